/**
 * Drift detection as a library call (DESIGN.md §5 `drift`): load the manifests, read the org,
 * plan, and read the plan as drift — what the CLI's `drift` does, for a program that embeds
 * platform-sync (a scheduler, a dashboard).
 */
import type { ApiClient } from '../api/types.js';
import type { Plan } from '../model/plan.js';
import type { LiveState } from '../model/resources.js';
import { planFromManifests } from '../pipeline.js';
import { roleRefAddress } from '../plan/references.js';
import { assertDriftReadable, describeDrift, type DriftReport } from './drift-report.js';
import { judgeAccessRules } from '../access/rules.js';
import { relationOf } from '../access/relation.js';
import { stateOfLive } from '../access/state.js';

export interface DriftResult {
  report: DriftReport;
  /** The plan the report was read from (steps that would restore the manifests). */
  plan: Plan;
}

/**
 * Plans and reads the plan as drift. Drift never applies, so the mass-delete rail is lifted
 * (a hundred identities created by hand is drift to report, not a plan to refuse); refusals
 * caused by the drift itself are part of the report, the others are errors (UnsafePlanError).
 */
export async function detectDrift(paths: string[], client: ApiClient): Promise<DriftResult> {
  const { plan, live, desired, now } = await planFromManifests(paths, client, { allowMassDelete: true });
  assertDriftReadable(plan);
  const report = describeDrift(plan, { addressOfUid: indexAddressesByUid(live) });
  // Access rules judge live (DESIGN.md §4 rev 6).
  if (desired.accessRules !== undefined && desired.accessRules.length > 0)
    report.accessRules = judgeAccessRules(relationOf(stateOfLive(live), now), desired.accessRules);
  return { report, plan };
}

/** Names what a uid in live state is: a resource of the org, or a built-in role. */
function indexAddressesByUid(live: LiveState): (uid: string) => string | undefined {
  const byUid = new Map(live.resources.map((r) => [r.uid, r.address]));
  for (const [name, uid] of Object.entries(live.builtinRoles)) byUid.set(uid, roleRefAddress({ builtin: name }));
  return (uid) => byUid.get(uid);
}
