/**
 * Phase 7, targets: `--target` keeps the steps it matches and what they depend on. A target that
 * can never match is refused before anything is read (checkTargets). Pure (src/plan/index.ts runs
 * the phases in order).
 */
import { byAddress, type Planning, type StepsByAddress } from './planning.js';
import type { OrderedStep } from '../order.js';
import type { PlanRefusal } from '../../model/plan.js';
import { type AddressGlob, ORG_ADDRESS, compileAddressGlob, matchesAnyGlob } from '../../model/address.js';
import { findAddressPatternProblem, MEMBER_PREFIX } from '../../model/address-pattern.js';
import { UserError } from '../../model/errors.js';
import { KINDS } from '../../model/kinds.js';

/** Addresses of the steps `address` waits for, transitively (what it takes down with it). */
export function collectDependencies(steps: StepsByAddress, address: string): Set<string> {
  const found = new Set<string>();
  const pending = [...(steps.get(address)?.step.dependsOn ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (found.has(next)) continue;
    found.add(next);
    pending.push(...(steps.get(next)?.step.dependsOn ?? []));
  }
  return found;
}

/** What the targets phase makes: the steps it keeps, how many planned changes it left out, and what it says. */
export interface Targeted {
  steps: OrderedStep[];
  untargeted: number;
  warnings: string[];
  refusals: PlanRefusal[];
}

/**
 * Keeps the steps a target names and, transitively, every step they depend on. A target that
 * names members lines (`member:…`) names the steps those lines cause. Returns how many planned
 * changes the targets left out.
 */
export function selectTargets(
  p: Pick<Planning, 'desired' | 'index' | 'stepsByMember'>,
  planned: readonly OrderedStep[],
  targets: string[],
): Targeted {
  const steps = byAddress(planned);
  const warnings: string[] = [];
  const refusals: PlanRefusal[] = [];
  const globs = targets.map(compileAddressGlob);
  const keep = new Set<string>();
  const pending: string[] = [];
  for (const address of steps.keys()) if (matchesAnyGlob(address, globs)) pending.push(address);
  const membersOf = (glob: AddressGlob) => [...p.stepsByMember.keys()].filter((m) => glob.test(m));
  for (const glob of globs)
    for (const m of membersOf(glob)) pending.push(...(p.stepsByMember.get(m) ?? []).filter((a) => steps.has(a)));
  for (let i = 0; i < targets.length; i++) {
    const glob = globs[i]!;
    const ofMembers = membersOf(glob).flatMap((m) => p.stepsByMember.get(m) ?? []);
    if ([...steps.keys()].some((a) => glob.test(a)) || ofMembers.some((a) => steps.has(a))) continue;
    // Say which: a target whose resources are as declared, or one that names nothing at all (a typo).
    const known =
      p.desired.resources.some((d) => glob.test(d.address)) ||
      [...p.index.rankOf.keys()].some((a) => glob.test(a)) ||
      (p.desired.members ?? []).some((m) => glob.test(m.address));
    // As in Terraform: a target that names nothing is an error (a typo must not plan "no changes"); one whose resources match is a note.
    if (known) warnings.push(`--target ${targets[i]} matches no change: what it names is live as declared`);
    else
      refusals.push({
        rule: 'unknown-target',
        message: `--target ${targets[i]} matches nothing: no resource the manifests declare or the org holds has such an address (a typo?)`,
        addresses: [targets[i]!],
      });
  }
  while (pending.length > 0) {
    const address = pending.pop()!;
    if (keep.has(address)) continue;
    keep.add(address);
    for (const dep of steps.get(address)?.step.dependsOn ?? []) pending.push(dep);
  }
  const excluded = steps.size - keep.size;
  if (excluded > 0) {
    warnings.push(`${excluded} other change${excluded === 1 ? ' is' : 's are'} not in this plan because of --target`);
  }
  return { steps: planned.filter((s) => keep.has(s.step.address)), untargeted: excluded, warnings, refusals };
}

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
