/**
 * Phase 8, summary: how many steps of each action. Pure (src/plan/index.ts runs the phases in order).
 */
import type { PlanStep, PlanSummary } from '../../model/plan.js';

export function summarise(steps: PlanStep[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0 };
  for (const s of steps) summary[s.action]++;
  return summary;
}
