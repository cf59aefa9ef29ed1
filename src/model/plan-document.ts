/**
 * The plan as a JSON document (DESIGN.md §5): versioned, described by schemas/plan.schema.json.
 * It is the plan's own data — the plan is plain data already — so a consumer reads exactly
 * what the executor will do. `plan --format json` prints it (views/plan-json.ts) and saved plans
 * are this document with fingerprints (saved-plan/saved-plan.ts): data, not a view.
 */
import type { Fingerprint, Plan, PlanBasis, PlanRefusal, PlanStep, PlanSummary } from './plan.js';

/** What `plan --format json` prints and `plan --out` writes. */
export interface JsonPlan {
  formatVersion: Plan['formatVersion'];
  org: Plan['org'];
  summary: PlanSummary;
  steps: PlanStep[];
  warnings: string[];
  /** Present when the plan is refused: why apply will not run it. */
  refusals?: PlanRefusal[];
  /** Present in saved plans only. */
  fingerprints?: Fingerprint[];
  /** Present when --target made the plan: how many planned changes it left out. */
  untargeted?: number;
  /** Present when the plan changes effective access: each change once, at the highest group where it starts. */
  accessChanges?: Plan['accessChanges'];
  /** Present when the manifests declare access rules: how the state the plan leads to holds to each (DESIGN.md §4 rev 6). */
  accessRules?: Plan['accessRules'];
  /** Present when the manifests declare members: what each line comes to. */
  members?: Plan['members'];
  /** Present in saved plans only: what the plan was planned from (re-planned at apply). */
  basis?: PlanBasis;
}

export interface JsonPlanOptions {
  /** Include the fingerprints (saved plans); left out of printed output, where they are noise. */
  fingerprints?: boolean;
}

export function toPlanDocument(plan: Plan, options: JsonPlanOptions = {}): JsonPlan {
  const out: JsonPlan = {
    formatVersion: plan.formatVersion,
    org: plan.org,
    summary: plan.summary,
    steps: plan.steps,
    warnings: plan.warnings,
  };
  if (plan.accessChanges !== undefined && plan.accessChanges.length > 0) out.accessChanges = plan.accessChanges;
  if (plan.accessRules !== undefined && plan.accessRules.length > 0) out.accessRules = plan.accessRules;
  if (plan.members !== undefined && plan.members.length > 0) out.members = plan.members;
  if (plan.refusals.length > 0) out.refusals = plan.refusals;
  if (options.fingerprints) out.fingerprints = plan.fingerprints;
  if (options.fingerprints && plan.basis) out.basis = plan.basis;
  if (plan.untargeted !== undefined) out.untargeted = plan.untargeted;
  return out;
}
