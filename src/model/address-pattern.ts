/**
 * What is wrong with an address pattern (`--target`, `settings.ignore`/`protect`): apart from
 * address.ts, so that the address functions (which every kind descriptor calls) do not import
 * the registry of kinds — no import circle among src/model.
 */
import { ORG_ADDRESS } from './address.js';
import { KINDS, type Kind } from './kinds.js';
import { suggestClosest } from '../util/suggest.js';

/**
 * What is wrong with an address pattern (`--target`, `settings.ignore`/`protect`) that can never
 * match: undefined when it is `org` or starts with a known kind prefix and names something.
 * `suggestion` is a corrected pattern when a close kind exists (`repos:*` → `repo:*`).
 * Callers word the message for where the pattern was written.
 */
export type AddressPatternProblem =
  | { problem: 'nothing-after-kind'; kind: Kind | typeof MEMBER_PREFIX }
  | { problem: 'no-kind' | 'unknown-kind'; prefix: string; suggestion?: string }
  /** A `member:` pattern where only resources count (`ignore`, `protect`): a members line is no live resource. */
  | { problem: 'member-line' };

/** The prefix of a members line's address (`member:<group path>/<email>=<role>`): it names a line, not a resource. */
export const MEMBER_PREFIX = 'member';

/**
 * `members: true` where a pattern may name members lines (`--target`: the steps a line causes);
 * elsewhere a `member:` pattern is the problem `member-line`.
 */
export function findAddressPatternProblem(
  pattern: string,
  options: { members?: boolean } = {},
): AddressPatternProblem | undefined {
  if (pattern === ORG_ADDRESS) return undefined;
  const colon = pattern.indexOf(':');
  const prefix = colon < 0 ? pattern : pattern.slice(0, colon);
  if (colon > 0 && prefix === MEMBER_PREFIX) {
    if (options.members !== true) return { problem: 'member-line' };
    return colon === pattern.length - 1 ? { problem: 'nothing-after-kind', kind: MEMBER_PREFIX } : undefined;
  }
  if (colon > 0 && (KINDS as readonly string[]).includes(prefix)) {
    return colon === pattern.length - 1 ? { problem: 'nothing-after-kind', kind: prefix as Kind } : undefined;
  }
  const known = (KINDS as readonly string[]).includes(prefix) ? prefix : undefined; // a bare kind: `group`
  const kind =
    known ??
    suggestClosest(prefix, [...KINDS, ORG_ADDRESS]) ??
    (prefix.endsWith('s') ? suggestClosest(prefix.slice(0, -1), KINDS) : undefined);
  const out: AddressPatternProblem = { problem: colon < 0 ? 'no-kind' : 'unknown-kind', prefix };
  if (kind !== undefined)
    out.suggestion = kind === ORG_ADDRESS ? ORG_ADDRESS : `${kind}${colon < 0 ? ':*' : pattern.slice(colon)}`;
  return out;
}
