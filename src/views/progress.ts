/**
 * Views of an apply's events (STYLE.md §7): the executor only emits events; these decide what
 * a person on a terminal, a CI log or a program reading JSON sees. Formatting is pure; only
 * {@link createProgressView} writes, to the stream it is given.
 */
import type { PlanStep } from '../model/plan.js';
import { escapeControl, stringifyForOutput } from './escape.js';
import { colorPaint, plainPaint, type Paint } from './paint.js';
import { ABORTED, TOKEN_REFUSED, type AnswerDifference, type ApplyEvent, type ApplyResult } from '../apply/index.js';

export type ProgressFormat = 'text' | 'json';

export { colorPaint, type Paint } from './paint.js';

/** `create identity:ci-bot` (`rename identity:old → identity:new`), the way every line names a step. */
export function describeStep(step: Pick<PlanStep, 'action' | 'address'> & { previousAddress?: string }): string {
  const text =
    step.previousAddress !== undefined
      ? `rename ${step.previousAddress} → ${step.address}`
      : `${step.action} ${step.address}`;
  return escapeControl(text);
}

/** One line for a finished step, as CI logs show it; null for events that are not an outcome. */
export function formatStepOutcome(e: ApplyEvent, paint: Paint = plainPaint): string | null {
  switch (e.type) {
    case 'step-done':
      return `${paint('green', '✓')} ${describeStep(e.step)} ${paint('dim', `(${e.ms} ms)`)}`;
    case 'step-failed':
      return `${paint('red', '✗')} ${describeStep(e.step)}: ${escapeControl(e.error.message)}`;
    case 'step-skipped':
      return `${paint('yellow', '-')} skipped ${describeStep(e.step)} ${paint('dim', escapeControl(skipReason(e.because)))}`;
    case 'step-differs':
      return `${paint('yellow', '!')} ${describeStep(e.step)}: the service holds other values than it was sent: ${describeDifferences(e.differences)}`;
    default:
      return null;
  }
}

/** `description "a b" (sent "a  b"), labels.team (unset; sent "x")`: each field, what the service holds and what was sent. */
function describeDifferences(differences: readonly AnswerDifference[]): string {
  return differences
    .map((d) => escapeControl(`${d.field} ${shownValue(d.answered)} (sent ${shownValue(d.wrote)})`))
    .join(', ');
}

/** Longest value a warning shows before cutting it. */
const SHOWN_VALUE_CHARS = 120;

function shownValue(value: unknown): string {
  if (value === undefined) return 'unset';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > SHOWN_VALUE_CHARS ? `${text.slice(0, SHOWN_VALUE_CHARS - 1)}…` : text;
}

function skipReason(because: string): string {
  if (because === ABORTED) return '(apply was interrupted)';
  if (because === TOKEN_REFUSED) return '(not sent: the API refused the token)';
  return `(depends on failed ${because})`;
}

/** Steps named in a summary line before "and N more": enough to recognise, short enough to read. */
const SUMMARY_NAMED = 5;

/** Codes of failures that another run may well not hit: the API was down, slow or busy. */
const TRANSIENT_CODES = new Set(['API_UNAVAILABLE', 'API_RESOURCE_EXHAUSTED', 'API_INTERNAL', 'API_UNKNOWN']);
/** Codes of failures of the token itself: no re-run helps until the token does. */
const TOKEN_CODES = new Set(['API_PERMISSION_DENIED', 'API_UNAUTHENTICATED']);

/**
 * The end of an apply, for a person deciding what to do next: "Apply complete: 12 done.", or
 * the counts, every failure with the API's reason, the skipped steps (named, not only counted),
 * and what to do now — which depends on why the steps failed.
 */
export function formatApplySummary(result: ApplyResult, paint: Paint = plainPaint): string {
  if (result.ok) return `${paint('green', 'Apply complete:')} ${result.done.length} done.`;
  const differs = differLines(result, paint);
  if (result.failed.length === 0 && result.skipped.length === 0) {
    const n = result.differs?.length ?? 0;
    return [
      `${paint('yellow', 'Apply done, but the service holds other values than it was sent:')} ${result.done.length} done; ${n === 1 ? '1 field differs' : `${n} fields differ`}.`,
      ...differs,
      `${paint('bold', 'Next:')} ${DIFFERS_ADVICE}`,
    ].join('\n');
  }
  const aborted = result.skipped.filter((s) => s.because === ABORTED);
  const unsent = result.skipped.filter((s) => s.because === TOKEN_REFUSED);
  const blocked = result.skipped.filter((s) => s.because !== ABORTED && s.because !== TOKEN_REFUSED);
  const interrupted = aborted.length > 0;
  const head = `${paint('red', interrupted ? 'Apply interrupted:' : 'Apply failed:')} ${result.done.length} done, ${result.failed.length} failed, ${result.skipped.length} skipped.`;
  const lines = [
    head,
    ...result.failed.map((f) => `  ${paint('red', '✗')} ${escapeControl(`${f.address}: ${f.error}`)}`),
  ];
  if (blocked.length > 0) {
    lines.push(
      `  ${paint('yellow', '-')} ${countSteps(blocked.length)} skipped because ${blocked.length === 1 ? 'it depends' : 'they depend'} on a failed step: ${nameSome(blocked.map((s) => s.address))}`,
    );
  }
  if (unsent.length > 0) {
    lines.push(
      `  ${paint('yellow', '-')} ${countSteps(unsent.length)} not sent: the API refused the token, so every other write would be refused too: ${nameSome(unsent.map((s) => s.address))}`,
    );
  }
  if (aborted.length > 0) {
    lines.push(
      `  ${paint('yellow', '-')} ${countSteps(aborted.length)} not started because the apply was interrupted: ${nameSome(aborted.map((s) => s.address))}`,
    );
  }
  lines.push(...differs);
  lines.push(`${paint('bold', 'Next:')} ${adviseNextStep(result)}`);
  return lines.join('\n');
}

/** What to do when the service kept other values than it was sent: a re-run would send them again. */
const DIFFERS_ADVICE =
  'the org is not what the manifests say where the service kept other values (`platform-sync plan` shows them): ' +
  'change the manifests to what the service keeps, or find out why it changes them — an apply sends the same values again.';

/** Resources named in a summary with the values the service holds, before "and N more". */
const SUMMARY_DIFFERS = 20;

/** One line per resource whose answer held other values than were sent. */
function differLines(result: ApplyResult, paint: Paint): string[] {
  const byAddress = new Map<string, AnswerDifference[]>();
  for (const { address, ...d } of result.differs ?? []) {
    const list = byAddress.get(address);
    if (list) list.push(d);
    else byAddress.set(address, [d]);
  }
  const lines = [...byAddress]
    .slice(0, SUMMARY_DIFFERS)
    .map(([address, ds]) => `  ${paint('yellow', '!')} ${escapeControl(address)}: ${describeDifferences(ds)}`);
  if (byAddress.size > SUMMARY_DIFFERS) lines.push(`  … and ${byAddress.size - SUMMARY_DIFFERS} more resources`);
  return lines;
}

/**
 * What to do after an apply that did not finish. Every step either happened or did not (a
 * re-run plans from live state), so the advice is about the cause, not about cleaning up.
 */
function adviseNextStep(result: ApplyResult): string {
  const rerun = 'run the same apply again: it does only what is left (`platform-sync plan` shows it)';
  const codes = result.failed.map((f) => f.code ?? '');
  if (codes.includes('API_ALREADY_EXISTS')) {
    return 'another apply (or a person) is changing this org at the same time — the API has no lock, so only one apply may run at once (in CI: one concurrency group). Once it is done, run `platform-sync plan` to see what is left, and apply again.';
  }
  if (codes.some((c) => TOKEN_CODES.has(c))) {
    return `the API refused the token; apply needs one that may write to this org (plan and drift can use a read-only one). Then ${rerun}.`;
  }
  if (codes.length > 0 && codes.every((c) => TRANSIENT_CODES.has(c))) {
    return `the API kept failing after retries; once it answers, ${rerun}.`;
  }
  if (codes.length > 0) return `fix the cause named above (in the manifests, or live), then ${rerun}.`;
  return `${rerun}.`;
}

function countSteps(n: number): string {
  return n === 1 ? '1 step' : `${n} steps`;
}

function nameSome(addresses: readonly string[]): string {
  const shown = escapeControl(addresses.slice(0, SUMMARY_NAMED).join(', '));
  return addresses.length > SUMMARY_NAMED ? `${shown} and ${addresses.length - SUMMARY_NAMED} more` : shown;
}

/** One event as one JSON line: steps as {action, kind, address}, errors as their messages. */
export function serializeApplyEvent(e: ApplyEvent): string {
  const stepOf = (s: PlanStep) => ({ action: s.action, kind: s.kind, address: s.address });
  switch (e.type) {
    case 'start':
      return stringifyForOutput({ type: e.type, total: e.total });
    case 'step-start':
      return stringifyForOutput({ type: e.type, step: stepOf(e.step) });
    case 'step-done':
      return stringifyForOutput({ type: e.type, step: stepOf(e.step), uid: e.uid, ms: e.ms });
    case 'step-failed':
      return stringifyForOutput({ type: e.type, step: stepOf(e.step), error: e.error.message });
    case 'step-skipped':
      return stringifyForOutput({ type: e.type, step: stepOf(e.step), because: e.because });
    case 'step-differs':
      return stringifyForOutput({ type: e.type, step: stepOf(e.step), differences: e.differences });
    case 'end':
      return stringifyForOutput({ type: e.type, result: e.result });
  }
}

/** The live line: `Applying 5/12 · create repo:nginx, create identity:ci-bot +3`, cut to width. */
export function formatLiveLine(
  finished: number,
  total: number,
  running: readonly PlanStep[],
  columns: number,
  paint: Paint = plainPaint,
): string {
  const head = `Applying ${finished}/${total}`;
  let line = head;
  if (running.length > 0) {
    const shown = running.slice(0, 3).map(describeStep).join(', ');
    const more = running.length > 3 ? ` +${running.length - 3}` : '';
    line = `${head} · ${shown}${more}`;
  }
  // Two columns spare: the terminal echoes "^C" after the line, and a wrapped line could not
  // be redrawn in place.
  const max = Math.max(10, columns - 3);
  if (line.length > max) line = `${line.slice(0, max - 1)}…`;
  return line.startsWith(head) ? paint('bold', head) + line.slice(head.length) : line;
}

/** Where an apply stands when it is quit at once: outcomes so far, and the steps in flight. */
export interface ApplyTally {
  total: number;
  done: number;
  failed: number;
  skipped: number;
  running: number;
}

/**
 * The one line printed when a second Ctrl-C quits an apply at once: what happened so far, and
 * that steps in flight may or may not have reached the API (a re-run plans from live state).
 */
export function formatQuitLine(t: ApplyTally): string {
  const finished = t.done + t.failed + t.skipped;
  const outcomes = [`${t.done} done`, t.failed ? `${t.failed} failed` : '', t.skipped ? `${t.skipped} skipped` : '']
    .filter(Boolean)
    .join(', ');
  const inFlight = t.running === 0 ? '' : `; ${countSteps(t.running)} in flight may or may not have been applied`;
  return `Quit: ${finished} of ${countSteps(t.total)} finished (${outcomes})${inFlight}. Run the same apply again to finish (\`platform-sync plan\` shows what is left).`;
}

export interface ProgressViewOptions {
  /** Where the view writes; `columns` (a terminal's width) cuts the live line, 80 when unknown. */
  out: { write(text: string): unknown; columns?: number };
  format: ProgressFormat;
  /** A terminal: one live line redrawn in place. Otherwise one plain line per finished step. */
  tty: boolean;
  color: boolean;
}

/** Minimum time between two redraws of the live line, so thousands of steps do not flood a terminal. */
const REDRAW_INTERVAL_MS = 50;

/**
 * The `onEvent` callback of an apply, plus `notice(text)` for a message from outside the
 * executor (Ctrl-C was pressed) that must not be drawn over by the live line, and `quit()` for
 * a second Ctrl-C: it ends the live line for good and returns {@link formatQuitLine} for the
 * caller to print (where depends on the format) before exiting.
 */
export type ProgressView = ((e: ApplyEvent) => void) & { notice(text: string): void; quit(): string };

/** Counts outcomes as events pass, for {@link formatQuitLine}. */
function trackTally(): { tally: ApplyTally; count(e: ApplyEvent): void } {
  const tally: ApplyTally = { total: 0, done: 0, failed: 0, skipped: 0, running: 0 };
  const count = (e: ApplyEvent): void => {
    if (e.type === 'start') tally.total = e.total;
    else if (e.type === 'step-start') tally.running++;
    else if (e.type === 'step-done' || e.type === 'step-failed') {
      tally.running--;
      tally[e.type === 'step-done' ? 'done' : 'failed']++;
    } else if (e.type === 'step-skipped') tally.skipped++;
  };
  return { tally, count };
}

/** Returns the `onEvent` callback that renders an apply for the chosen audience. */
export function createProgressView(options: ProgressViewOptions): ProgressView {
  const { out } = options;
  const paint = options.color ? colorPaint : plainPaint;
  const { tally, count } = trackTally();
  if (options.format === 'json') {
    // stdout carries only events; a notice is for people and a program has the events.
    const onEvent = (e: ApplyEvent): void => {
      count(e);
      out.write(`${serializeApplyEvent(e)}\n`);
    };
    return Object.assign(onEvent, { notice: () => {}, quit: () => formatQuitLine(tally) });
  }
  if (!options.tty) {
    const onEvent = (e: ApplyEvent): void => {
      count(e);
      const line = e.type === 'end' ? formatApplySummary(e.result, paint) : formatStepOutcome(e, paint);
      if (line !== null) out.write(`${line}\n`);
    };
    return Object.assign(onEvent, {
      notice: (text: string) => void out.write(`${text}\n`),
      quit: () => formatQuitLine(tally),
    });
  }

  const running = new Map<string, PlanStep>();
  let total = 0;
  let finished = 0;
  let lastDraw = -Infinity;
  let drawn = false;
  let ended = false;
  const clear = (): void => {
    if (drawn) out.write('\r\x1b[2K');
    drawn = false;
  };
  // A redraw skipped for being too soon is owed: without this timer, slow steps would leave
  // the line showing what ran before they started.
  let owed: NodeJS.Timeout | undefined;
  const draw = (force: boolean): void => {
    const now = performance.now();
    if (!force && now - lastDraw < REDRAW_INTERVAL_MS) {
      owed ??= setTimeout(
        () => {
          owed = undefined;
          if (!ended) draw(true);
        },
        REDRAW_INTERVAL_MS - (now - lastDraw),
      ).unref();
      return;
    }
    clearTimeout(owed);
    owed = undefined;
    lastDraw = now;
    out.write(`\r\x1b[2K${formatLiveLine(finished, total, [...running.values()], out.columns || 80, paint)}`);
    drawn = true;
  };
  const onEvent = (e: ApplyEvent): void => {
    count(e);
    if (ended) return;
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
        // Failures stay on screen above the live line; successes only advance the counter.
        running.delete(e.step.address);
        finished++;
        clear();
        out.write(`${formatStepOutcome(e, paint)}\n`);
        draw(true);
        return;
      case 'step-differs':
        // A step done whose answer holds other values stays on screen too (it was counted as done).
        clear();
        out.write(`${formatStepOutcome(e, paint)}\n`);
        draw(true);
        return;
      case 'step-skipped':
        // One failure (or Ctrl-C) can skip thousands of steps: count them here, and let the
        // summary name them, rather than scroll the failure off the screen.
        finished++;
        draw(false);
        return;
      case 'end':
        clearTimeout(owed);
        clear();
        ended = true;
        out.write(`${formatApplySummary(e.result, paint)}\n`);
        return;
    }
  };
  const notice = (text: string): void => {
    clear();
    out.write(`${text}\n`);
    if (total > 0 && !ended) draw(true);
  };
  const quit = (): string => {
    // The live line (and the "^C" the terminal echoed after it) stays; the next line starts clean.
    clearTimeout(owed);
    if (drawn) out.write('\n');
    drawn = false;
    ended = true;
    return formatQuitLine(tally);
  };
  return Object.assign(onEvent, { notice, quit });
}
