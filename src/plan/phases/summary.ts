/**
 * Phase 10, summary: the plan as the views and apply read it, with how many steps of each
 * action. Pure (src/plan/index.ts runs the phases in order).
 */
import type { Checked } from './check.js';
import type { MemberStatus } from '../../model/plan.js';
import type { Planning } from './planning.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanStep, type PlanSummary } from '../../model/plan.js';

export function summarise(steps: PlanStep[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0 };
  for (const s of steps) summary[s.action]++;
  return summary;
}

export function assemblePlan(
  p: Pick<Planning, 'desired' | 'live'>,
  checked: Checked,
  found: { members: MemberStatus[]; untargeted: number | undefined; warnings: string[] },
): Plan {
  const org: Plan['org'] = { name: p.desired.org.name };
  if (p.live.org) org.uid = p.live.org.uid;
  const result: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    org,
    summary: summarise(checked.steps),
    steps: checked.steps,
    warnings: found.warnings,
    refusals: checked.refusals,
    fingerprints: [],
    ...(checked.accessChanges.length > 0 ? { accessChanges: checked.accessChanges } : {}),
    ...(checked.accessRules ? { accessRules: checked.accessRules } : {}),
    ...(found.members.length > 0 ? { members: found.members } : {}),
  };
  if (found.untargeted !== undefined) result.untargeted = found.untargeted;
  return result;
}
