/**
 * The planner (DESIGN.md §4, STYLE.md §1): `plan(desired, live, options) → Plan`.
 *
 * Pure — no I/O, no clock, no randomness — and deterministic: the same inputs give the same
 * plan, step for step. It matches desired and live resources by address, decides creates,
 * updates and deletes, wires `dependsOn` edges, orders the steps once, and refuses (collecting
 * every reason) a plan that would be unsafe or that the server would reject.
 */
import { orderAndCheck } from './phases/check.js';
import { planCreates } from './phases/creates.js';
import { planDeletes } from './phases/deletes.js';
import { explain } from './phases/explain.js';
import { matchResources } from './phases/match.js';
import { normalise } from './phases/normalise.js';
import { invisibleOrgPlan, preparePlanning } from './phases/prepare.js';
import { assemblePlan } from './phases/summary.js';
import { checkTargets, selectTargets } from './phases/targets.js';
import { planRoleChanges, planUpdates, waitForFreedNames } from './phases/updates.js';
import type { PlanOptions } from './options.js';
import { UnsafePlanError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import type { DesiredState, LiveState } from '../model/resources.js';

export { countLabel, isPruned } from './settings.js';
export { checkTargets, TARGET_PREFIXES } from './phases/targets.js';
export { DEFAULT_MAX_DELETE_RATIO, type PlanOptions } from './options.js';
export { liveReadFor } from './phases/prepare.js';

/**
 * Plans the steps that take `live` to `desired`, phase by phase (src/plan/phases). A plan that
 * would delete what it must not (see safety.ts) is still returned, with every reason in
 * `refusals`: views show it whole, and {@link assertSafe} stops it before apply.
 */
export function plan(desired: DesiredState, live: LiveState, options: PlanOptions = {}): Plan {
  const targets = options.targets ?? [];
  checkTargets(targets);
  const invisible = invisibleOrgPlan(desired, live, options);
  if (invisible) return invisible;
  // 0. prepare: renames re-address live state, members become bindings and invites, live is indexed
  const { p, members, refusals: prepared } = preparePlanning(desired, live, options);
  // 1. normalise
  const normalised = normalise(p);
  // 2. match
  const matching = matchResources(p, normalised);
  // 3. creates
  const creates = planCreates(p, matching.creates);
  // 4. updates, and the role a binding changes to
  const updates = planUpdates(p, matching.pairs, creates.creating);
  const roleChanges = planRoleChanges(p, matching.roleChanges, creates.creating);
  // 5. deletes (waiting for the updates that move a reference off a deleted role)
  const deletes = planDeletes(p, matching.unmatchedLive, normalised.resources, [
    ...updates.steps,
    ...roleChanges.steps,
  ]);
  // 6. freed names: a create or rename that takes a name a rename frees waits for it
  const planned = waitForFreedNames([...creates.steps, ...updates.steps, ...roleChanges.steps, ...deletes.steps]);
  // 7. targets (before explaining: a note explains only the steps a target keeps)
  const targeted = targets.length > 0 ? selectTargets(p, planned, targets) : undefined;
  const kept = targeted?.steps ?? planned;
  // 8. explain
  const explained = explain(kept);
  // 9. order and check: the safety rules, and what the plan changes in access (--deny-new-access)
  const refusals = [...prepared, ...normalised.refusals, ...(targeted?.refusals ?? [])];
  const checked = orderAndCheck(
    p,
    {
      steps: explained.steps,
      plannedSteps: planned.map((s) => s.step),
      holders: deletes.holders,
      resources: normalised.resources,
      refusals,
    },
    options,
  );
  // 10. summary
  const warnings = [
    ...creates.warnings,
    ...updates.warnings,
    ...roleChanges.warnings,
    ...deletes.warnings,
    ...(targeted?.warnings ?? []),
    ...explained.warnings,
  ];
  return assemblePlan(p, checked, { members, untargeted: targeted?.untargeted, warnings });
}

/** Throws UnsafePlanError when the plan is refused: the gate before anything is applied. */
export function assertSafe(plan: Plan): void {
  if (plan.refusals.length > 0) throw new UnsafePlanError(plan.refusals);
}
