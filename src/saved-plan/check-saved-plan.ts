/**
 * Checking a saved plan against live state before it is applied (DESIGN.md §4), as a library
 * call: check that every uid the plan touches is one it vouches for, then re-read the org and
 * compare what the plan recorded with what is there now.
 */
import type { ApiClient } from '../api/types.js';
import { readLiveState } from '../live/index.js';
import { StalePlanError, UserError } from '../model/errors.js';
import type { Plan, PlanStep } from '../model/plan.js';
import { checkFingerprints, fingerprintLive, readmeReposOf, uidKey } from './fingerprint.js';
import { kindOfAddress } from '../model/address.js';
import type { LiveState } from '../model/resources.js';

/** A saved plan touches a uid its own fingerprints do not vouch for: it was edited, or is not ours. */
export class UnvouchedPlanError extends UserError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      'PLAN_UNVOUCHED',
      `the saved plan touches resources it did not read, so it was changed after \`plan --out\`; nothing was applied:\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        `\nMake a new plan with \`platform-sync plan --out\`.`,
    );
    this.problems = problems;
  }
}

/**
 * Every uid a step touches — its target, or a create's parent — must be one the plan's own
 * fingerprints vouch for, at the address the step names, and lie under the plan's org; a
 * create without a parent uid must have its parent created by the same plan. A saved plan is
 * a file anyone could have edited: a uid of another org swapped into a step, or a step
 * appended, is refused here, before any request. Pure; empty when every step is vouched for.
 */
export function findUnvouchedSteps(saved: Plan): string[] {
  const orgUid = saved.org.uid;
  const vouched = new Map(saved.fingerprints.map((f) => [uidKey(kindOfAddress(f.address), f.uid), f.address]));
  const created = new Set(saved.steps.filter((s) => s.action === 'create').map((s) => s.address));
  const underOrg = (uid: string) => orgUid !== undefined && (uid === orgUid || uid.startsWith(`${orgUid}/`));
  // A rename re-addresses everything beneath it, and a binding's address holds its role (which
  // an update may change): the address a step names and the one the resource was read at may
  // then differ, never in their kind.
  const renames = saved.steps.some((s) => s.action === 'update' && s.previousAddress !== undefined);
  const kindOf = (address: string) => address.slice(0, address.indexOf(':') + 1) || address;
  const sameResource = (read: string, named: string) =>
    read === named || (kindOf(read) === kindOf(named) && (renames || kindOf(named) === 'roleBinding:'));
  const problems: string[] = [];
  const check = (step: PlanStep, role: string, uid: string, address: string | null | undefined): void => {
    const what = `${step.action} ${step.address}: ${role} uid ${uid}`;
    const kind = role === 'target' ? step.kind : address ? kindOfAddress(address) : 'group';
    const read = vouched.get(uidKey(kind, uid));
    if (!underOrg(uid)) problems.push(`${what} does not lie under org ${saved.org.name} (${orgUid ?? 'which the plan creates'})`);
    else if (read === undefined) problems.push(`${what} is not one the plan read (no fingerprint vouches for it)`);
    else if (address != null && !sameResource(read, address)) problems.push(`${what} was read as ${read}, not ${address}`);
  };
  for (const step of saved.steps) {
    if (step.action !== 'create') {
      check(step, 'target', step.uid, step.action === 'update' ? (step.previousAddress ?? step.address) : step.address);
    } else if (step.parentUid !== undefined) {
      check(step, 'parent', step.parentUid, step.parent);
    } else if (step.parent === null) {
      if (step.kind !== 'group' || step.address !== 'org' || orgUid !== undefined) problems.push(`create ${step.address}: only the org itself is created without a parent`);
    } else if (!created.has(step.parent)) {
      problems.push(`create ${step.address}: its parent ${step.parent} has no uid and is not created by the plan`);
    }
  }
  return problems;
}

/**
 * Refuses a plan that touches uids it does not vouch for (UnvouchedPlanError), then re-reads
 * the org and compares it with the fingerprints the plan recorded: a plan made against a world
 * that has since changed is refused (StalePlanError). Both before anything is sent. Returns the
 * plan, ready for `apply`.
 */
export async function checkSavedPlan(saved: Plan, client: ApiClient): Promise<Plan> {
  const problems = findUnvouchedSteps(saved);
  if (problems.length > 0) throw new UnvouchedPlanError(problems);
  const live = await readLiveState(client, { org: saved.org, readmeRepos: readmeReposOf(saved) });
  const changed = checkFingerprints(saved, live);
  if (changed.length > 0) {
    if (wasApplied(saved, live)) {
      throw new UserError(
        'PLAN_ALREADY_APPLIED',
        `this saved plan was already applied: every change it makes is live (${saved.steps.length} step${saved.steps.length === 1 ? '' : 's'}), so there is nothing left to apply; ` +
          'run `platform-sync plan` to see whether anything else changed since',
      );
    }
    throw new StalePlanError(changed);
  }
  return saved;
}

/**
 * Whether live state is what the plan leads to: everything it creates is there, everything it
 * deletes is gone, everything it updates changed at the address it names. Then a stale plan
 * is simply one that was applied already (a re-run of the apply job), not someone else's change.
 */
function wasApplied(saved: Plan, live: LiveState): boolean {
  if (saved.steps.length === 0 || live.org === null) return false;
  const byUid = new Map(live.resources.map((r) => [uidKey(r.kind, r.uid), r]));
  const addresses = new Set(live.resources.map((r) => r.address));
  const versions = new Map(saved.fingerprints.map((f) => [f.uid, f.version]));
  const after = new Map(fingerprintLive(live).map((f) => [f.uid, f.version]));
  return saved.steps.every((step) => {
    if (step.action === 'create') return addresses.has(step.address);
    if (step.action === 'delete') return !byUid.has(uidKey(step.kind, step.uid));
    return byUid.get(uidKey(step.kind, step.uid))?.address === step.address && after.get(step.uid) !== versions.get(step.uid);
  });
}
