/**
 * Why the resolver refuses to declare a resource, and how that is said. A resource is claimed
 * for every item of every manifest: the text naming it in a message is made only when it is
 * refused (resolve.ts `claim`, `refuse`). Pure.
 */
import { escapeValue } from '../io/escape.js';
import type { SourceLocation } from '../model/resources.js';
import { formatLocation } from './diagnostics.js';

/** Why a resource was refused: a control character in its address, or the place that declared it first. */
export type Refusal = 'control' | SourceLocation;

/** The message for a resource refused at `address`; `what` names it ("identity \"ci\" in org \"acme\""). */
export function refusalMessage(what: string, address: string, refusal: Refusal): string {
  // A name, key or reference on two lines would forge the lines after it in every view
  // (DESIGN.md §8 rev 4): refused here as the emulator refuses it.
  if (refusal === 'control')
    return `${escapeValue(what)} has a name or key holding a control character (a newline, a tab, …): ${escapeValue(address)}; a name is one line of printable text`;
  return `${what} is declared twice (address ${address}); also declared at ${formatLocation(refusal)}`;
}
