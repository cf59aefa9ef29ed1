/**
 * The JSON view of a plan (DESIGN.md §5): the plan's own document (model/plan-document.ts),
 * printed as it is.
 */
export { toPlanDocument as renderJsonPlan, type JsonPlan, type JsonPlanOptions } from '../model/plan-document.js';
