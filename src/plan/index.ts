/**
 * The planner (DESIGN.md §4, STYLE.md §1): `plan(desired, live, options) → Plan`.
 *
 * Pure — no I/O, no clock, no randomness — and deterministic: the same inputs give the same
 * plan, step for step. It matches desired and live resources by address, decides creates,
 * updates and deletes, wires `dependsOn` edges, orders the steps once, and refuses (collecting
 * every reason) a plan that would be unsafe or that the server would reject.
 */
import { indexLive } from './live-index.js';
import { orderSteps } from './order.js';
import { findRefusals } from './safety.js';
import { planAccess } from './phases/access.js';
import { planCreates } from './phases/creates.js';
import { chooseDeletes, planDeletes } from './phases/deletes.js';
import { explainReplacements, noteWhatGoesWithParents } from './phases/explain.js';
import { matchResources } from './phases/match.js';
import { planMembers } from './phases/members.js';
import { normaliseDesired, refusePinnedOrgOfAnotherName } from './phases/normalise.js';
import type { Planning } from './phases/planning.js';
import { summarise } from './phases/summary.js';
import { selectTargets } from './phases/targets.js';
import { planRoleChanges, planUpdates, waitForFreedNames } from './phases/updates.js';
import { applyRenames, formerAddressesOf } from './renames.js';
import { checkTargets } from './targets.js';
import { ORG_ADDRESS, compileAddressGlob } from '../model/address.js';
import { UnsafePlanError } from '../model/errors.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanRefusal } from '../model/plan.js';
import type { DesiredState, LiveState } from '../model/resources.js';

export { countLabel, isPruned } from './settings.js';
export { checkTargets, TARGET_PREFIXES } from './targets.js';

export interface PlanOptions {
  /**
   * `--target` addresses or address globs. Only matching steps are planned, plus every step
   * they depend on (the parents a create needs, the identity/role a binding references, the
   * children a delete must remove first).
   */
  targets?: string[];
  /** Largest share of a kind's managed live resources one plan may delete (default 0.25). */
  maxDeleteRatio?: number;
  /** Lift the mass-delete refusal. */
  allowMassDelete?: boolean;
  /**
   * `apply --rotate-secrets`: re-send every declared secret of a resource that exists (one PATCH
   * per resource, its mask naming the secret). Without it a secret is sent only by a create:
   * the API never returns one, so a changed secret cannot be detected.
   */
  rotateSecrets?: boolean;
  /**
   * Plan the create of the org when no root group of its name is visible (`--bootstrap`).
   * Without it a missing org is a refusal, never a `create org` step (DESIGN.md §4): a wrong
   * URL or another tenant's token looks exactly like an org that does not exist.
   */
  bootstrap?: boolean;
  /**
   * `--deny-new-access`: refuse a plan that gains any capability for anyone (rule `new-access`,
   * naming the steps that cause it); losing access is never refused by it (DESIGN.md §4).
   */
  denyNewAccess?: boolean;
  /**
   * The time of the plan (ms since the epoch): invites for members expire `settings.inviteTtl`
   * after it, and an invite is pending while it has not expired. The planner reads no clock:
   * planFromManifests gives the time of the run; a saved plan keeps the one it was made with.
   */
  now?: number;
}

export const DEFAULT_MAX_DELETE_RATIO = 0.25;

/**
 * Plans the steps that take `live` to `desired`. A plan that would delete what it must not
 * (see safety.ts) is still returned, with every reason in `refusals`: views show it whole, and
 * {@link assertSafe} stops it before apply.
 */
export function plan(desired: DesiredState, live: LiveState, options: PlanOptions = {}): Plan {
  const targets = options.targets ?? [];
  checkTargets(targets);
  if (live.org === null && options.bootstrap !== true) return refuseInvisibleOrg(desired);
  const renamed = applyRenames(desired, live);
  // 0. members: each `members` line becomes the binding, invite or new invite that brings it about.
  const now = options.now ?? Number.NaN;
  const membered = planMembers(desired, renamed.live, now);
  desired = membered.desired;
  // Only a plan with renames and with ignore or protect globs needs the addresses as read.
  const globbed = desired.settings.ignore.length > 0 || desired.settings.protect.length > 0;
  const liveAddressOf = renamed.live === live || !globbed ? undefined : renamed.liveAddressOf;
  live = membered.live;
  if (membered.members.some((m) => m.state === 'invited') && !Number.isFinite(now)) {
    renamed.refusals.push({
      rule: 'invite-time',
      message: 'members need invites, but the plan was given no time to set their expiration from (plan() option now)',
      addresses: membered.members.filter((m) => m.state === 'invited').map((m) => m.address),
    });
  }
  const p: Planning = {
    desired,
    live,
    previousAddress: renamed.previousAddress,
    index: indexLive(live),
    ignore: desired.settings.ignore.map(compileAddressGlob),
    warnings: [],
    refusals: [...renamed.refusals],
    steps: new Map(),
    rotateSecrets: options.rotateSecrets === true,
    creating: new Set(),
  };
  if (liveAddressOf) p.liveAddressOf = liveAddressOf;
  const formerOf = globbed ? formerAddressesOf(desired, liveAddressOf) : undefined;
  if (formerOf) p.formerAddressesOf = formerOf;
  // The phases (src/plan/phases), each a module of its own, in order:
  // 1. normalise
  refusePinnedOrgOfAnotherName(p);
  const resources = normaliseDesired(p);
  // 2. match
  const matching = matchResources(p, resources);
  // 3. creates
  planCreates(p, matching.creates);
  // 4. updates
  planUpdates(p, matching.pairs);
  waitForFreedNames(p);
  planRoleChanges(p, matching.roleChanges);
  // 5. deletes
  const deletes = chooseDeletes(p, matching.unmatchedLive, resources);
  // What holds them: what each delete waits for, and (safety) what would keep one from happening.
  const holders = p.index.holdersOf(new Set(deletes.keys()));
  planDeletes(p, deletes, holders);
  // Before --target leaves some out: a declared reference holds what it names whether targeted or not.
  const plannedSteps = [...p.steps.values()].map((s) => s.step);
  // 7. targets (before 6: a note explains only the steps a target keeps)
  const untargeted = targets.length > 0 ? selectTargets(p, targets) : undefined;
  // 6. explain
  explainReplacements(p);
  noteWhatGoesWithParents(p);

  // Order once, then the safety rules over the whole plan (safety.ts).
  const steps = orderSteps([...p.steps.values()]);
  const refusals: PlanRefusal[] = [...p.refusals, ...findRefusals({
    steps,
    plannedSteps,
    live,
    index: p.index,
    holders,
    desiredAddresses: p.index.ambiguous.size > 0 ? new Set(resources.map((r) => r.address)) : new Set(),
    prune: desired.settings.prune,
    protect: desired.settings.protect.map(compileAddressGlob),
    ...(formerOf ? { formerAddressesOf: formerOf } : {}),
    ignore: p.ignore,
    maxDeleteRatio: options.maxDeleteRatio ?? DEFAULT_MAX_DELETE_RATIO,
    allowMassDelete: options.allowMassDelete ?? false,
  })];

  // 9. access: what the plan changes in effective access, refused with --deny-new-access.
  const access = planAccess({ live, index: p.index, steps, denyNewAccess: options.denyNewAccess === true });
  if (access.refusal) refusals.push(access.refusal);

  const org: Plan['org'] = { name: desired.org.name };
  if (live.org) org.uid = live.org.uid;
  const result: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    org,
    summary: summarise(steps), // 8. summary
    steps,
    warnings: p.warnings,
    refusals,
    fingerprints: [],
    ...(access.changes.length > 0 ? { accessChanges: access.changes } : {}),
    ...(membered.members.length > 0 ? { members: membered.members } : {}),
  };
  if (untargeted !== undefined) result.untargeted = untargeted;
  return result;
}

/** The plan for an org that is not visible, without `bootstrap`: no step, one refusal. */
function refuseInvisibleOrg(desired: DesiredState): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    org: { name: desired.org.name },
    summary: { create: 0, update: 0, delete: 0 },
    steps: [],
    warnings: [],
    refusals: [{
      rule: 'org-not-visible',
      message:
        `org ${desired.org.name} is not visible (no root group of that name): a wrong URL, a token of another tenant or a token scoped below the org ` +
        'look exactly like an org that does not exist; to create it, plan with bootstrap (--bootstrap)',
      addresses: [ORG_ADDRESS],
    }],
    fingerprints: [],
  };
}

/** Throws UnsafePlanError when the plan is refused: the gate before anything is applied. */
export function assertSafe(plan: Plan): void {
  if (plan.refusals.length > 0) throw new UnsafePlanError(plan.refusals);
}
