/**
 * Plan renderers, a small registry by format name (like knip's reporters): the CLI picks one
 * with `--format` and prints what it returns.
 */
import type { Plan } from '../model/plan.js';
import { renderJsonPlan } from './plan-json.js';
import { renderMarkdownPlan } from './plan-markdown.js';
import { renderTextPlan } from './plan-text.js';

export { renderJsonPlan, toPlanDocument, type JsonPlan, type JsonPlanOptions } from './plan-json.js';
export { renderMarkdownPlan, MARKDOWN_MAX_CHARS, type MarkdownPlanOptions } from './plan-markdown.js';
export { renderTextPlan, type TextPlanOptions } from './plan-text.js';
export { summaryLine } from './step-lines.js';

export const PLAN_FORMATS = ['text', 'json', 'markdown'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];

export interface RenderOptions {
  /** Text only: ANSI colours. */
  color?: boolean;
}

const RENDERERS: Record<PlanFormat, (plan: Plan, options: RenderOptions) => string> = {
  text: (plan, options) => renderTextPlan(plan, { color: options.color ?? false }),
  json: (plan) => renderJsonPlan(plan),
  markdown: (plan) => renderMarkdownPlan(plan),
};

/** The plan as text in one of the formats; always ends with a newline. */
export function renderPlan(plan: Plan, format: PlanFormat, options: RenderOptions = {}): string {
  return RENDERERS[format](plan, options);
}
