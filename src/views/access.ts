/**
 * How plans show access changes (DESIGN.md §4): the part of a pull request a reviewer must not
 * miss, above the steps. Bounded: at most ACCESS_SHOWN changes, then how many more.
 */
import type { AccessChange } from '../access/effective-access.js';

export const ACCESS_SHOWN = 50;

/** "and 2 groups below", for a change that reaches more than its scope. */
export function reachText(change: Pick<AccessChange, 'groups'>): string {
  return change.groups > 1 ? ` and ${change.groups - 1} group${change.groups === 2 ? '' : 's'} below` : '';
}

/** How many capabilities a line names before it says how many more there are (JSON has them all). */
export const CAPABILITIES_SHOWN = 12;
const WRITES = /\.(create|update|delete)$/;

/**
 * What a change gains or loses, said shortly: "all of owner (138 capabilities)" when it is exactly
 * a built-in role's, else the list — bounded (the service's roles hold dozens): past
 * CAPABILITIES_SHOWN, the ones that write come first and the line says how many there are in all.
 */
export function capabilitiesText(caps: readonly string[], role: string | undefined): string {
  if (role !== undefined) return `all of ${role} (${caps.length} capabilities)`;
  if (caps.length <= CAPABILITIES_SHOWN) return caps.join(', ');
  const first = [...caps.filter((c) => WRITES.test(c)), ...caps.filter((c) => !WRITES.test(c))].slice(
    0,
    CAPABILITIES_SHOWN,
  );
  return `${caps.length} capabilities: ${first.join(', ')}, …`;
}

/**
 * Who a change's principal admits, said beside it (DESIGN.md §4, issue 58): its note when its
 * relationship widened (which says it already), else `admits: any GitHub workflow`; undefined when
 * there is nothing broad to say.
 */
export function admitsText(c: { note?: string; admits?: readonly string[] }): string | undefined {
  if (c.note !== undefined) return c.note;
  return c.admits !== undefined && c.admits.length > 0 ? `admits: ${c.admits.join('; ')}` : undefined;
}
