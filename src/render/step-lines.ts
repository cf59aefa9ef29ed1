/**
 * One plan step as plain lines of text: the body the text view colours and the markdown view
 * puts in ```diff blocks. Pure. Multi-line values (readme, a description with newlines) are
 * shown as a unified diff made by the `diff` package.
 */
import { structuredPatch } from 'diff';
import type { PlanStep, UidReference } from '../model/plan.js';

/** How a line is meant: the views colour `add`/`remove`/`change` lines, `context` stays plain. */
export type LineTone = 'add' | 'remove' | 'change' | 'context' | 'header';

export interface StepLine {
  tone: LineTone;
  text: string;
}

export const ACTION_SYMBOL = { create: '+', update: '~', delete: '-' } as const;

/** A short, unambiguous rendering of a field value ("text" quoted, lists and objects inline). */
export function formatValue(value: unknown): string {
  if (value === undefined) return '(unset)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${formatValue(v)}`)
      .join(', ')}}`;
  }
  return String(value);
}

function isMultiline(value: unknown): value is string {
  return typeof value === 'string' && value.includes('\n');
}

/** Unified-diff hunks between two texts, without file headers. */
export function diffLines(before: string, after: string): StepLine[] {
  const patch = structuredPatch('before', 'after', before, after, '', '', { context: 3 });
  const lines: StepLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({ tone: 'context', text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@` });
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file" says nothing to a reader here
      const tone: LineTone = line.startsWith('+') ? 'add' : line.startsWith('-') ? 'remove' : 'context';
      lines.push({ tone, text: line });
    }
  }
  return lines;
}

function referenceText(ref: UidReference): string {
  return ref.uid !== undefined ? formatValue(ref.uid) : `(known after apply: ${ref.address})`;
}

const INDENT = '    ';

/** The field lines of a step (not its header line). */
function fieldLines(step: PlanStep): StepLine[] {
  const lines: StepLine[] = [];
  const push = (tone: LineTone, text: string) => lines.push({ tone, text: `${INDENT}${text}` });
  if (step.action === 'create') {
    for (const [field, value] of Object.entries(step.after ?? {})) {
      const ref = field === 'identityUid' || field === 'roleUid' ? step.refs?.[field] : undefined;
      if (ref) continue; // shown below with its address
      if (isMultiline(value)) {
        // All lines are new: a hunk header would say nothing.
        push('add', `${field}:`);
        for (const l of diffLines('', value)) if (l.tone === 'add') push('add', `  ${l.text}`);
      } else push('add', `${field}: ${formatValue(value)}`);
    }
    for (const field of ['identityUid', 'roleUid'] as const) {
      const ref = step.refs?.[field];
      if (ref) push('add', `${field}: ${referenceText(ref)}${ref.uid ? ` (${ref.address})` : ''}`);
    }
  } else if (step.action === 'update') {
    for (const field of step.updateMask ?? []) {
      const before = step.before?.[field];
      const after = step.after?.[field];
      if (isMultiline(before) || isMultiline(after)) {
        push('change', `${field}:`);
        for (const l of diffLines(typeof before === 'string' ? before : '', typeof after === 'string' ? after : '')) push(l.tone, `  ${l.text}`);
      } else {
        const ref = field === 'roleUid' ? step.refs?.roleUid : undefined;
        push('change', `${field}: ${formatValue(before)} → ${ref ? referenceText(ref) : formatValue(after)}`);
      }
    }
  }
  return lines;
}

/** Header line and field lines of one step. */
export function renderStepLines(step: PlanStep): StepLine[] {
  const tone: LineTone = step.action === 'create' ? 'add' : step.action === 'delete' ? 'remove' : 'change';
  const header: StepLine = {
    tone,
    text: `${ACTION_SYMBOL[step.action]} ${step.action} ${step.address}${step.reason ? `  (${step.reason})` : ''}`,
  };
  return [header, ...fieldLines(step)];
}

/** "Plan: 3 to create, 1 to update, 2 to delete." or the no-change sentence. */
export function summaryLine(summary: { create: number; update: number; delete: number }): string {
  if (summary.create + summary.update + summary.delete === 0) return 'No changes. The org matches the manifests.';
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.delete} to delete.`;
}
