/** Checking `--target` addresses before planning. Pure. */
import { ORG_ADDRESS } from '../model/address.js';
import { UserError } from '../model/errors.js';
import { KINDS } from '../model/kinds.js';
import { suggestClosest } from '../manifest/suggest.js';

/** What a target may start with: `org` itself, or a kind prefix. */
export const TARGET_PREFIXES: readonly string[] = [ORG_ADDRESS, ...KINDS.map((k) => `${k}:`)];

/** The problem with one target, or undefined: it must be `org` or start with a known kind prefix. */
function checkTarget(target: string): string | undefined {
  if (target === ORG_ADDRESS) return undefined;
  const colon = target.indexOf(':');
  const prefix = colon < 0 ? target : target.slice(0, colon);
  if (colon > 0 && (KINDS as readonly string[]).includes(prefix)) {
    return colon === target.length - 1 ? `--target ${target} has nothing after "${prefix}:" (e.g. ${prefix}:* or ${prefix}:<path>)` : undefined;
  }
  const known = (KINDS as readonly string[]).includes(prefix) ? prefix : undefined;
  const kind = known ?? suggestClosest(prefix, [...KINDS, ORG_ADDRESS]) ?? (prefix.endsWith('s') ? suggestClosest(prefix.slice(0, -1), KINDS) : undefined);
  const hint = kind === undefined ? '' : `; did you mean ${kind === ORG_ADDRESS ? ORG_ADDRESS : `${kind}${colon < 0 ? ':*' : target.slice(colon)}`}?`;
  const what = colon < 0 ? 'has no kind prefix' : `has an unknown kind "${prefix}"`;
  return `--target ${target} ${what}${hint}`;
}

/**
 * Throws a UserError naming every target that can never match an address, with the valid
 * kinds, so a typo is not mistaken for "no changes".
 */
export function checkTargets(targets: readonly string[]): void {
  const problems = targets.map(checkTarget).filter((m): m is string => m !== undefined);
  if (problems.length === 0) return;
  throw new UserError(
    'TARGET_INVALID',
    `${problems.join('\n')}\na target is "org" or starts with one of ${TARGET_PREFIXES.filter((t) => t !== ORG_ADDRESS).join(', ')}`,
  );
}
