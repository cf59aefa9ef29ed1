/**
 * Views of an apply's events (STYLE.md §7): the executor only emits events; these decide what
 * a person on a terminal, a CI log or a program reading JSON sees. Formatting is pure; only
 * {@link createProgressView} writes, to the stream it is given.
 */
import { styleText } from 'node:util';
import type { PlanStep } from '../model/plan.js';
import { ABORTED, type ApplyEvent, type ApplyResult } from './index.js';

export type ProgressFormat = 'text' | 'json';

/** Colors a piece of text, or leaves it alone (no TTY, NO_COLOR). */
export type Paint = (style: 'green' | 'red' | 'yellow' | 'dim' | 'bold', text: string) => string;

export const plainPaint: Paint = (_style, text) => text;
// The caller decides when to color (ProgressViewOptions.color), so styleText must not second-guess the stream.
export const colorPaint: Paint = (style, text) => styleText(style, text, { validateStream: false });

/** `create identity:ci-bot`, the way every line names a step. */
export function describeStep(step: Pick<PlanStep, 'action' | 'address'>): string {
  return `${step.action} ${step.address}`;
}

/** One line for a finished step, as CI logs show it; null for events that are not an outcome. */
export function formatStepOutcome(e: ApplyEvent, paint: Paint = plainPaint): string | null {
  switch (e.type) {
    case 'step-done':
      return `${paint('green', '✓')} ${describeStep(e.step)} ${paint('dim', `(${e.ms} ms)`)}`;
    case 'step-failed':
      return `${paint('red', '✗')} ${describeStep(e.step)}: ${e.error.message}`;
    case 'step-skipped':
      return `${paint('yellow', '-')} skipped ${describeStep(e.step)} ${paint('dim', skipReason(e.because))}`;
    default:
      return null;
  }
}

function skipReason(because: string): string {
  return because === ABORTED ? '(apply was interrupted)' : `(depends on failed ${because})`;
}

/** "Apply complete: 12 done." or "Apply failed: 10 done, 1 failed, 1 skipped." and each failure. */
export function formatApplySummary(result: ApplyResult, paint: Paint = plainPaint): string {
  if (result.ok) return `${paint('green', 'Apply complete:')} ${result.done.length} done.`;
  const interrupted = result.skipped.some((s) => s.because === ABORTED);
  const head = `${paint('red', interrupted ? 'Apply interrupted:' : 'Apply failed:')} ${result.done.length} done, ${result.failed.length} failed, ${result.skipped.length} skipped.`;
  const failures = result.failed.map((f) => `  ${paint('red', '✗')} ${f.address}: ${f.error}`);
  const tail = 'Run the same apply again (or plan) to finish what is left.';
  return [head, ...failures, tail].join('\n');
}

/** One event as one JSON line: steps as {action, kind, address}, errors as their messages. */
export function serializeApplyEvent(e: ApplyEvent): string {
  const stepOf = (s: PlanStep) => ({ action: s.action, kind: s.kind, address: s.address });
  switch (e.type) {
    case 'start':
      return JSON.stringify({ type: e.type, total: e.total });
    case 'step-start':
      return JSON.stringify({ type: e.type, step: stepOf(e.step) });
    case 'step-done':
      return JSON.stringify({ type: e.type, step: stepOf(e.step), uid: e.uid, ms: e.ms });
    case 'step-failed':
      return JSON.stringify({ type: e.type, step: stepOf(e.step), error: e.error.message });
    case 'step-skipped':
      return JSON.stringify({ type: e.type, step: stepOf(e.step), because: e.because });
    case 'end':
      return JSON.stringify({ type: e.type, result: e.result });
  }
}

/** The live line: `Applying 5/12 · create repo:nginx, create identity:ci-bot +3`, cut to width. */
export function formatLiveLine(finished: number, total: number, running: readonly PlanStep[], columns: number, paint: Paint = plainPaint): string {
  const head = `Applying ${finished}/${total}`;
  let line = head;
  if (running.length > 0) {
    const shown = running.slice(0, 3).map(describeStep).join(', ');
    const more = running.length > 3 ? ` +${running.length - 3}` : '';
    line = `${head} · ${shown}${more}`;
  }
  const max = Math.max(10, columns - 1);
  if (line.length > max) line = `${line.slice(0, max - 1)}…`;
  return line.startsWith(head) ? paint('bold', head) + line.slice(head.length) : line;
}

export interface ProgressViewOptions {
  /** Where the view writes; `columns` (a terminal's width) cuts the live line, 80 when unknown. */
  out: NodeJS.WritableStream & { columns?: number };
  format: ProgressFormat;
  /** A terminal: one live line redrawn in place. Otherwise one plain line per finished step. */
  tty: boolean;
  color: boolean;
}

/** Minimum time between two redraws of the live line, so thousands of steps do not flood a terminal. */
const REDRAW_INTERVAL_MS = 50;

/** Returns the `onEvent` callback that renders an apply for the chosen audience. */
export function createProgressView(options: ProgressViewOptions): (e: ApplyEvent) => void {
  const { out } = options;
  if (options.format === 'json') return (e) => out.write(`${serializeApplyEvent(e)}\n`);
  const paint = options.color ? colorPaint : plainPaint;
  if (!options.tty) {
    return (e) => {
      const line = e.type === 'end' ? formatApplySummary(e.result, paint) : formatStepOutcome(e, paint);
      if (line !== null) out.write(`${line}\n`);
    };
  }

  const running = new Map<string, PlanStep>();
  let total = 0;
  let finished = 0;
  let lastDraw = -Infinity;
  let drawn = false;
  const clear = (): void => {
    if (drawn) out.write('\r\x1b[2K');
    drawn = false;
  };
  const draw = (force: boolean): void => {
    const now = performance.now();
    if (!force && now - lastDraw < REDRAW_INTERVAL_MS) return;
    lastDraw = now;
    out.write(`\r\x1b[2K${formatLiveLine(finished, total, [...running.values()], out.columns || 80, paint)}`);
    drawn = true;
  };
  return (e) => {
    switch (e.type) {
      case 'start':
        total = e.total;
        draw(true);
        return;
      case 'step-start':
        running.set(e.step.address, e.step);
        draw(false);
        return;
      case 'step-done':
        running.delete(e.step.address);
        finished++;
        draw(false);
        return;
      case 'step-failed':
      case 'step-skipped':
        // Problems stay on screen above the live line; successes only advance the counter.
        running.delete(e.step.address);
        finished++;
        clear();
        out.write(`${formatStepOutcome(e, paint)}\n`);
        draw(true);
        return;
      case 'end':
        clear();
        out.write(`${formatApplySummary(e.result, paint)}\n`);
        return;
    }
  };
}
