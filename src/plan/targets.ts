/** Checking `--target` addresses before planning. Pure. */
import { ORG_ADDRESS } from '../model/address.js';
import { findAddressPatternProblem, MEMBER_PREFIX } from '../model/address-pattern.js';
import { UserError } from '../model/errors.js';
import { KINDS } from '../model/kinds.js';

/** What a target may start with: `org` itself, a kind prefix, or `member:` (the steps a members line causes). */
export const TARGET_PREFIXES: readonly string[] = [ORG_ADDRESS, ...KINDS.map((k) => `${k}:`), `${MEMBER_PREFIX}:`];

/** The problem with one target, or undefined: it must be `org` or start with a known kind prefix. */
function checkTarget(target: string): string | undefined {
  const found = findAddressPatternProblem(target, { members: true });
  if (found === undefined || found.problem === 'member-line') return undefined;
  if (found.problem === 'nothing-after-kind') {
    return `--target ${target} has nothing after "${found.kind}:" (e.g. ${found.kind}:* or ${found.kind}:<path>)`;
  }
  const hint = found.suggestion === undefined ? '' : `; did you mean ${found.suggestion}?`;
  const what = found.problem === 'no-kind' ? 'has no kind prefix' : `has an unknown kind "${found.prefix}"`;
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
