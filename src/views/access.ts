/**
 * How plans show access changes (DESIGN.md §4): the part of a pull request a reviewer must not
 * miss, above the steps. Bounded: at most ACCESS_SHOWN changes, then how many more.
 */
import type { AccessChange } from '../access/effective-access.js';

export const ACCESS_SHOWN = 50;

/** "and 2 groups below", for a change that reaches more than its scope. */
export function reachText(change: AccessChange): string {
  return change.groups > 1 ? ` and ${change.groups - 1} group${change.groups === 2 ? '' : 's'} below` : '';
}

/** What a change gains or loses, said shortly: "all of owner (30 capabilities)" when it is exactly a built-in role's, else the list. */
export function capabilitiesText(caps: readonly string[], role: string | undefined): string {
  return role !== undefined ? `all of ${role} (${caps.length} capabilities)` : caps.join(', ');
}
