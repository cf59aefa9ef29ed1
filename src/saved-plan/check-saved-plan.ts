/**
 * Checking a saved plan against live state before it is applied (DESIGN.md §4), as a library
 * call: check that every uid the plan touches is one it vouches for, then re-read the org and
 * compare what the plan recorded with what is there now.
 */
import { accessOfPlan, newAccessRefusal } from '../access/effective-access.js';
import { escapeValue } from '../io/escape.js';
import type { ApiClient } from '../api/types.js';
import { readLiveState } from '../live/index.js';
import { StalePlanError, UnsafePlanError, UserError } from '../model/errors.js';
import { plan } from '../plan/index.js';
import { managedSubResources } from '../plan/renames.js';
import type { CreateStep, Plan, PlanBasis, PlanStep, UpdateStep } from '../model/plan.js';
import type { IdentityKey, RoleKey } from '../model/address.js';
import { descriptorOf } from '../model/kinds.js';
import { valueAtPath } from '../model/field-path.js';
import { heldDifferences } from '../model/step-holds.js';
import { pushTo } from '../util/multimap.js';
import { checkFingerprints, subResourcesOf, uidKey } from './fingerprint.js';
import { kindOfAddress, ORG_ADDRESS } from '../model/address.js';
import type { LiveResource, LiveState } from '../model/resources.js';

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
  // So may a plan that --target cut a rename out of (its other steps name the new addresses).
  const renames =
    saved.untargeted !== undefined || saved.steps.some((s) => s.action === 'update' && s.previousAddress !== undefined);
  const kindOf = (address: string) => address.slice(0, address.indexOf(':') + 1) || address;
  const sameResource = (read: string, named: string) =>
    read === named || (kindOf(read) === kindOf(named) && (renames || kindOf(named) === 'roleBinding:'));
  const problems: string[] = [];
  const check = (step: PlanStep, role: string, uid: string, address: string | null | undefined): void => {
    const what = `${step.action} ${step.address}: ${role} uid ${uid}`;
    const kind = role === 'target' ? step.kind : address ? kindOfAddress(address) : 'group';
    const read = vouched.get(uidKey(kind, uid));
    if (!underOrg(uid))
      problems.push(`${what} does not lie under org ${saved.org.name} (${orgUid ?? 'which the plan creates'})`);
    else if (read === undefined) problems.push(`${what} is not one the plan read (no fingerprint vouches for it)`);
    else if (address != null && !sameResource(read, address))
      problems.push(`${what} was read as ${read}, not ${address}`);
  };
  for (const step of saved.steps) {
    if (step.action !== 'create') {
      check(step, 'target', step.uid, step.action === 'update' ? (step.previousAddress ?? step.address) : step.address);
    } else if (step.parentUid !== undefined) {
      check(step, 'parent', step.parentUid, step.parent);
    } else if (step.parent === null) {
      if (!descriptorOf(step.kind).ownsGroupPath || step.address !== 'org' || orgUid !== undefined)
        problems.push(`create ${step.address}: only the org itself is created without a parent`);
    } else if (!created.has(step.parent)) {
      problems.push(`create ${step.address}: its parent ${step.parent} has no uid and is not created by the plan`);
    }
  }
  return problems;
}

/** How long a saved plan is good for when it records no `--plan-ttl` (DESIGN.md §4): 72 hours. */
export const DEFAULT_PLAN_TTL_MS = 72 * 3_600_000;
/** An invite a saved plan creates must stay open at least this long after it is applied. */
const INVITE_MARGIN_MS = 3_600_000;
/**
 * How far ahead of this machine's clock the clock that made a saved plan may be: beyond it, a
 * plan "made in the future" is refused, or its age could never exceed its --plan-ttl.
 */
export const PLAN_CLOCK_SKEW_MS = 5 * 60_000;

const hoursText = (ms: number): string =>
  ms >= 48 * 3_600_000
    ? `${Math.round((ms / 86_400_000) * 10) / 10} days`
    : ms >= 2 * 3_600_000
      ? `${Math.round((ms / 3_600_000) * 10) / 10} hours`
      : `${Math.round(ms / 60_000)} minutes`;

/**
 * A saved plan expires (DESIGN.md §4): it records when it was made and for how long it is good
 * (`plan --plan-ttl`, default 72 hours); an older one is refused, naming its age — a re-run of an
 * old apply job would otherwise undo what later merges did — and so is one made more than
 * {@link PLAN_CLOCK_SKEW_MS} in the future (an edited time would never expire). An invite it
 * creates whose expiry would be past or within the hour is refused too (re-plan). Both before
 * anything is read or sent.
 */
export function checkPlanAge(saved: Plan, nowMs: number): void {
  const madeAt = saved.basis?.options.now;
  if (madeAt === undefined)
    throw new UserError(
      'PLAN_EXPIRED',
      'the saved plan records no time it was made (a plan saved by an earlier version, or edited), so it cannot be known to be fresh; plan again and review that plan; nothing was changed',
    );
  const ttl = saved.basis?.options.planTtlMs ?? DEFAULT_PLAN_TTL_MS;
  const age = nowMs - madeAt;
  if (-age > PLAN_CLOCK_SKEW_MS)
    throw new UserError(
      'PLAN_EXPIRED',
      `the saved plan says it was made ${hoursText(-age)} from now, in the future (clocks may differ by at most ${hoursText(PLAN_CLOCK_SKEW_MS)}), so its age cannot be known; plan again and review that plan; nothing was changed`,
    );
  if (age > ttl)
    throw new UserError(
      'PLAN_EXPIRED',
      `the saved plan was made ${hoursText(age)} ago, and plans are good for ${hoursText(ttl)} (plan --plan-ttl); plan again and review that plan; nothing was changed`,
    );
  const closing = saved.steps.filter(
    (s) =>
      s.action === 'create' &&
      typeof s.after.expirationTime === 'string' &&
      Date.parse(s.after.expirationTime) - nowMs < INVITE_MARGIN_MS,
  );
  if (closing.length > 0) {
    throw new UserError(
      'PLAN_INVITE_EXPIRY',
      `the saved plan creates invites that would expire within the hour or have expired (${closing
        .slice(0, 5)
        .map((s) => escapeValue(s.address))
        .join(', ')}); plan again so that they get a fresh expiry; nothing was changed`,
    );
  }
}

/**
 * Refuses a plan that names another org (PlanOrgError) or touches uids it does not vouch for
 * (UnvouchedPlanError), then re-reads the org and compares it with the fingerprints the plan
 * recorded: a plan made against a world that has since changed is refused (StalePlanError). All
 * before anything is sent. Returns the plan, ready for `apply`.
 */
export async function checkSavedPlan(
  saved: Plan,
  client: ApiClient,
  options: { denyNewAccess?: boolean; nowMs?: number } = {},
): Promise<Plan> {
  checkPlanAge(saved, options.nowMs ?? Date.now());
  checkPlanOrg(saved);
  const problems = findUnvouchedSteps(saved);
  if (problems.length > 0) throw new UnvouchedPlanError(problems);
  const basis = saved.basis;
  const subResources = subResourcesOf(saved);
  if (basis) for (const address of managedSubResources(basis.desired)) subResources.add(address);
  const live = await readLiveState(client, {
    org: saved.org,
    subResources,
    ...(basis ? { expected: basis.desired.resources } : {}),
  });
  checkLiveOrg(saved, live);
  const changed = checkFingerprints(saved, live);
  if (changed.length > 0) {
    const done = stepsLive(saved, live);
    if ((done > 0 && done === saved.steps.length) || (basis !== undefined && plansNothing(basis, live)))
      throw alreadyApplied(saved);
    throw new StalePlanError(changed, { live: done, steps: saved.steps.length });
  }
  if (basis) checkAgainstBasis(saved, basis, live);
  // What it changes in access is the relation of the state its steps lead to against live, worked
  // out now (never what the file says: it is untrusted), and --deny-new-access as given now is
  // checked on it (DESIGN.md §4: a flag is never accepted and ignored); the access rules of its
  // basis are judged again on the state its steps lead to from the live state read now.
  const access = accessOfPlan(live, saved, basis?.desired.accessRules ?? [], basis?.options.now ?? Date.now());
  const kept = saved.refusals.filter((r) => r.rule !== 'access-rule');
  const refusals = [
    ...kept,
    ...access.refusals,
    ...(options.denyNewAccess === true ? newAccessRefusal(access.changes) : []),
  ];
  const { accessChanges: _untrusted, accessRules: _untrustedRules, ...rest } = saved;
  return {
    ...rest,
    refusals,
    ...(access.changes.length > 0 ? { accessChanges: access.changes } : {}),
    ...(access.rules ? { accessRules: access.rules } : {}),
  };
}

/** A saved plan names an org that is not the one its steps would be applied to. */
export class PlanOrgError extends UserError {
  constructor(problem: string) {
    super(
      'PLAN_WRONG_ORG',
      `${problem}; it was changed after \`plan --out\`, or made for another org; nothing was applied. ` +
        'Make a new plan with `platform-sync plan --out`.',
    );
  }
}

/**
 * The org a saved plan names, before anything is read (DESIGN.md §4): its uid is a root group's
 * (an org's uid has no '/'), the org it records having planned for is the one it names, and a
 * uid that planning pinned is the one it names. The file's org is untrusted: live is read at its
 * uid, so a uid of another org, or of a group inside one, would point every step there.
 */
function checkPlanOrg(saved: Plan): void {
  const { name, uid } = saved.org;
  if (uid?.includes('/')) throw new PlanOrgError(`${orgText(name, uid)}, which is a group inside an org, not an org`);
  const declared = saved.basis?.desired.org;
  if (declared === undefined) return;
  if (declared.name !== name)
    throw new PlanOrgError(
      `${orgText(name, uid)}, but what it records was planned for org ${JSON.stringify(declared.name)}`,
    );
  if (declared.uid !== undefined && declared.uid !== uid)
    throw new PlanOrgError(`${orgText(name, uid)}, but what it records pins org.uid ${escapeValue(declared.uid)}`);
}

/** "the saved plan names org "acme" at uid …": untrusted text, quoted and escaped. */
const orgText = (name: string, uid: string | undefined): string =>
  `the saved plan names org ${JSON.stringify(name)} ${uid === undefined ? '(which it creates)' : `at uid ${escapeValue(uid)}`}`;

/**
 * The org read at the plan's uid is the plan's org (DESIGN.md §4): its root group (checkPlanOrg
 * refused a group's uid) is named as the plan's org — or, as the planner allows, it is a pinned
 * org renamed in place (`renamedFrom` on the org, in what the plan records, pinning this uid).
 * Anything else is another org: a plan made for acme pointed at victim's uid would delete
 * victim's resources and create acme's there.
 */
function checkLiveOrg(saved: Plan, live: LiveState): void {
  const org = live.org;
  if (org === null) return; // the plan creates its org (bootstrap): read by its name
  const { name, uid } = saved.org;
  if (org.name === name) return;
  const basis = saved.basis?.desired;
  const renamedFrom = basis?.resources.find((r) => r.address === ORG_ADDRESS)?.renamedFrom;
  if (basis?.org.uid === org.uid && renamedFrom === org.name) return;
  throw new PlanOrgError(
    `${orgText(name, uid)}, but the root group at that uid is named ${JSON.stringify(org.name)} live, another org`,
  );
}

/** A saved plan whose every change is live: a re-run of the apply job, nothing left to do. */
function alreadyApplied(saved: Plan): UserError {
  return new UserError(
    'PLAN_ALREADY_APPLIED',
    `this saved plan was already applied: every change it makes is live (${saved.steps.length} step${saved.steps.length === 1 ? '' : 's'}), so there is nothing left to apply; ` +
      'run `platform-sync plan` to see whether anything else changed since',
  );
}

/**
 * Whether planning what the saved plan records, now, leaves nothing to do: its changes are live.
 * The steps' own addresses cannot tell when `--target` left a rename out (a step names the
 * resource after the rename, live still before it); its basis can.
 */
function plansNothing(basis: PlanBasis, live: LiveState): boolean {
  try {
    return leavesNothing(plan(basis.desired, live, basis.options));
  } catch {
    return false;
  }
}

/** A plan with nothing to do and nothing refused. */
function leavesNothing(p: Plan): boolean {
  // A target that named what the plan deleted names nothing once it is applied: nothing is left.
  return p.steps.length === 0 && p.refusals.every((r) => r.rule === 'unknown-target');
}

/** A saved plan whose steps are not the ones its own basis plans: changed after `plan --out`. */
export class AlteredPlanError extends UserError {
  constructor(problems: string[]) {
    super(
      'PLAN_ALTERED',
      `the saved plan holds steps that planning what it records would not produce, so it was changed after \`plan --out\`; nothing was applied:\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        `\nMake a new plan with \`platform-sync plan --out\`.`,
    );
  }
}

/**
 * Re-plans the saved plan's recorded desired state and options against the live state just
 * re-read (which its fingerprints vouch is the one it was made from): the same safety rules
 * (`protect`, the mass-delete ratio, `ignore`, every refusal) apply, and every step must be
 * exactly one that planning produces (DESIGN.md §4). Throws before anything is sent; returns
 * the access changes planning gives.
 */
export function checkAgainstBasis(saved: Plan, basis: PlanBasis, live: LiveState): void {
  // That it names the org it records was checked before the read (checkPlanOrg).
  let replanned: Plan;
  try {
    replanned = plan(basis.desired, live, basis.options);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new AlteredPlanError([`what it records cannot be planned (${(err as Error).message})`]);
  }
  const expected = new Map<string, number>();
  for (const step of replanned.steps) {
    const key = JSON.stringify(step);
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const problems: string[] = [];
  for (const step of saved.steps) {
    const key = JSON.stringify(step);
    const left = expected.get(key) ?? 0;
    if (left === 0)
      problems.push(
        `${step.action} ${step.address}: not a step that planning what the plan records produces (added or altered by hand)`,
      );
    else expected.set(key, left - 1);
  }
  const missing = replanned.steps.length - (saved.steps.length - problems.length);
  if (problems.length === 0 && missing > 0)
    problems.push(
      `${missing} step${missing === 1 ? '' : 's'} that planning produces ${missing === 1 ? 'is' : 'are'} missing from it (removed by hand)`,
    );
  if (problems.length === 0 && replanned.refusals.length === 0) return;
  // Nothing left to plan: what the saved plan makes is live (its own steps' addresses may not
  // say so when --target left a rename out).
  if (saved.steps.length > 0 && leavesNothing(replanned)) throw alreadyApplied(saved);
  // Planning differs because live has resources the plan never read (made since, by someone
  // else): the plan is stale, not altered.
  const read = new Set(saved.fingerprints.map((f) => f.uid));
  const since = live.resources.filter((r) => !read.has(r.uid));
  if (since.length > 0)
    throw new StalePlanError(
      since.slice(0, 20).map((r) => ({ address: r.address, reason: `created since the plan (uid ${r.uid})` })),
      { live: stepsLive(saved, live), steps: saved.steps.length },
    );
  if (replanned.refusals.length > 0) throw new UnsafePlanError(replanned.refusals);
  throw new AlteredPlanError(problems.slice(0, 20));
}

/**
 * How many of the plan's steps live state holds: what it creates is there, what it deletes is
 * gone, and what it creates or updates holds exactly the step's `after` values (DESIGN.md §4).
 * All of them: a stale plan is simply one that was applied already (a re-run of the apply job);
 * some: an earlier apply of it stopped part-way, or someone else made those changes — the rest
 * is someone else's change, and stale. Without a live org (a plan that creates it), none.
 */
function stepsLive(saved: Plan, live: LiveState): number {
  if (live.org === null) return 0;
  const byUid = new Map(live.resources.map((r) => [uidKey(r.kind, r.uid), r]));
  const byAddress = new Map<string, LiveResource[]>();
  for (const r of live.resources) pushTo(byAddress, r.address, r);
  const uidAt = (address: string): string | undefined => {
    const found = byAddress.get(address);
    return found?.length === 1 ? found[0]!.uid : undefined;
  };
  return saved.steps.filter((step) => {
    if (step.action === 'delete') return !byUid.has(uidKey(step.kind, step.uid));
    const now = step.action === 'create' ? byAddress.get(step.address) : [byUid.get(uidKey(step.kind, step.uid))];
    if (now?.length !== 1 || now[0] === undefined || now[0].address !== step.address) return false;
    return holdsAfter(step, now[0], live, uidAt);
  }).length;
}

/**
 * Whether a live resource holds every value a create or update step sets (model/step-holds.ts):
 * a reference compared as the uid it names now, an object's leaf, a set as a set; the exclusive
 * fields an update clears must be unset.
 */
function holdsAfter(
  step: CreateStep | UpdateStep,
  resource: LiveResource,
  live: LiveState,
  uidAt: (address: string) => string | undefined,
): boolean {
  const have = resource.fields as unknown as Record<string, unknown>;
  const refs = step.refs as Record<string, { address: string } | undefined> | undefined;
  const wrote = (path: string): unknown => {
    const ref = refs?.[path];
    return step.after[path] ?? (ref ? uidAt(ref.address) : undefined);
  };
  const differences = heldDifferences(step, wrote, {
    referenced: (reference) => {
      const key = have[reference] as IdentityKey | RoleKey | undefined;
      return key === undefined ? undefined : referencedUid(reference as 'identity' | 'role', key, live, uidAt);
    },
    role: (spec) => {
      const key = have[spec.name] as RoleKey | undefined;
      return key === undefined ? undefined : referencedUid('role', key, live, uidAt);
    },
    value: (spec) => have[spec.name],
    leaf: (spec, leaf) => valueAtPath(have[spec.name], leaf),
  });
  return differences.length === 0;
}

/** The uid an identity or role reference of a live resource names. */
function referencedUid(
  kind: 'identity' | 'role',
  key: IdentityKey | RoleKey,
  live: LiveState,
  uidAt: (address: string) => string | undefined,
): string | undefined {
  if ('uid' in key) return key.uid;
  if ('builtin' in key) return live.builtinRoles[key.builtin];
  return uidAt(`${kind}:${key.path}`);
}
