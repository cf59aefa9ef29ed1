/**
 * The JSON view of a plan (DESIGN.md §5): the plan's own document (model/plan-document.ts),
 * as text — like the drift, audit and access JSON views.
 */
import { toPlanDocument, type JsonPlanOptions } from '../model/plan-document.js';
import type { Plan } from '../model/plan.js';
import { stringifyForOutput } from './escape.js';

export { toPlanDocument, type JsonPlan, type JsonPlanOptions } from '../model/plan-document.js';

/** The plan document as JSON text (escaped as JSON escapes, a newline at the end). */
export function renderJsonPlan(plan: Plan, options: JsonPlanOptions = {}): string {
  return `${stringifyForOutput(toPlanDocument(plan, options), 2)}\n`;
}
