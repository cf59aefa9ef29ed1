import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ApplyEvent, ApplyResult } from '../../src/apply/index.js';
import {
  colorPaint,
  createProgressView,
  formatApplySummary,
  formatLiveLine,
  formatQuitLine,
  formatStepOutcome,
  serializeApplyEvent,
} from '../../src/views/progress.js';
import type { PlanStep } from '../../src/model/plan.js';

const bot: PlanStep = {
  action: 'create',
  kind: 'identity',
  address: 'identity:ci-bot',
  parent: 'org',
  after: { name: 'ci-bot' },
};
const binding: PlanStep = {
  action: 'create',
  kind: 'roleBinding',
  address: 'roleBinding:ci-bot=viewer',
  parent: 'org',
  after: {},
};
const repo: PlanStep = {
  action: 'update',
  kind: 'repo',
  address: 'repo:nginx',
  uid: 'u/1',
  updateMask: ['description'],
  before: { description: '' },
  after: { description: 'Hardened' },
};

const failedResult: ApplyResult = {
  done: ['repo:nginx'],
  failed: [
    {
      address: 'identity:ci-bot',
      error: 'POST /iam/v2/identities/x failed: HTTP 403 PERMISSION_DENIED (7): read-only token',
    },
  ],
  skipped: [{ address: 'roleBinding:ci-bot=viewer', because: 'identity:ci-bot' }],
  ok: false,
  requests: 3,
  ms: 40,
};
const okResult: ApplyResult = { done: ['a', 'b'], failed: [], skipped: [], ok: true, requests: 2, ms: 5 };

const events: ApplyEvent[] = [
  { type: 'start', total: 3 },
  { type: 'step-start', step: repo },
  { type: 'step-start', step: bot },
  { type: 'step-done', step: repo, uid: 'u/1', ms: 123 },
  { type: 'step-failed', step: bot, error: new Error(failedResult.failed[0]!.error) },
  { type: 'step-skipped', step: binding, because: 'identity:ci-bot' },
  { type: 'end', result: failedResult },
];

/** A writable that keeps what it was given, standing in for stdout. */
function captureStream(columns?: number): Writable & { text: () => string; columns?: number } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  }) as Writable & { text: () => string; columns?: number };
  stream.text = () => chunks.join('');
  if (columns !== undefined) stream.columns = columns;
  return stream;
}

describe('progress formatting', () => {
  it('writes one plain line per finished step', () => {
    expect(formatStepOutcome(events[3]!)).toBe('✓ update repo:nginx (123 ms)');
    expect(formatStepOutcome(events[4]!)).toBe(`✗ create identity:ci-bot: ${failedResult.failed[0]!.error}`);
    expect(formatStepOutcome(events[5]!)).toBe(
      '- skipped create roleBinding:ci-bot=viewer (depends on failed identity:ci-bot)',
    );
    expect(formatStepOutcome({ type: 'step-skipped', step: binding, because: 'aborted' })).toBe(
      '- skipped create roleBinding:ci-bot=viewer (apply was interrupted)',
    );
    expect(formatStepOutcome(events[1]!)).toBeNull();
  });

  it('summarises success and failure with every reason, the skipped steps by name, and what to do next', () => {
    expect(formatApplySummary(okResult)).toBe('Apply complete: 2 done.');
    expect(formatApplySummary(failedResult)).toBe(
      [
        'Apply failed: 1 done, 1 failed, 1 skipped.',
        `  ✗ identity:ci-bot: ${failedResult.failed[0]!.error}`,
        '  - 1 step skipped because it depends on a failed step: roleBinding:ci-bot=viewer',
        'Next: fix the cause named above (in the manifests, or live), then run the same apply again: it does only what is left (`platform-sync plan` shows it).',
      ].join('\n'),
    );
  });

  it('advises by the cause of the failures: the token, a failing API, an interruption', () => {
    const failing = (...codes: string[]): ApplyResult => ({
      ...failedResult,
      failed: codes.map((code, i) => ({ address: `repo:r${i}`, error: `${code} happened`, code })),
      skipped: [],
    });
    const next = (r: ApplyResult) => formatApplySummary(r).split('\n').at(-1);
    expect(next(failing('API_PERMISSION_DENIED', 'API_UNAVAILABLE'))).toMatch(
      /^Next: the API refused the token; apply needs one that may write/,
    );
    expect(next(failing('API_UNAUTHENTICATED'))).toMatch(/^Next: the API refused the token/);
    expect(next(failing('API_UNAVAILABLE', 'API_RESOURCE_EXHAUSTED'))).toMatch(
      /^Next: the API kept failing after retries; once it answers, run the same apply again/,
    );
    expect(next(failing('API_UNAVAILABLE', 'API_FAILED_PRECONDITION'))).toMatch(/^Next: fix the cause named above/);

    const skipped = Array.from({ length: 7 }, (_, i) => ({ address: `repo:r${i}`, because: 'aborted' }));
    const interrupted = formatApplySummary({ done: ['a'], failed: [], skipped, ok: false, requests: 1, ms: 1 });
    expect(interrupted).toBe(
      [
        'Apply interrupted: 1 done, 0 failed, 7 skipped.',
        '  - 7 steps not started because the apply was interrupted: repo:r0, repo:r1, repo:r2, repo:r3, repo:r4 and 2 more',
        'Next: run the same apply again: it does only what is left (`platform-sync plan` shows it).',
      ].join('\n'),
    );
  });

  it('serialises events as one JSON object each, steps reduced to action/kind/address', () => {
    const lines = events.map(serializeApplyEvent);
    expect(lines.every((l) => !l.includes('\n'))).toBe(true);
    expect(JSON.parse(lines[4]!)).toEqual({
      type: 'step-failed',
      step: { action: 'create', kind: 'identity', address: 'identity:ci-bot' },
      error: failedResult.failed[0]!.error,
    });
    expect(JSON.parse(lines[3]!)).toEqual({
      type: 'step-done',
      step: { action: 'update', kind: 'repo', address: 'repo:nginx' },
      uid: 'u/1',
      ms: 123,
    });
    expect(JSON.parse(lines[6]!)).toEqual({ type: 'end', result: failedResult });
  });

  it('cuts the live line to the terminal width', () => {
    expect(formatLiveLine(1, 3, [bot, binding], 200)).toBe(
      'Applying 1/3 · create identity:ci-bot, create roleBinding:ci-bot=viewer',
    );
    expect(formatLiveLine(0, 9, [bot, binding, repo, bot], 200)).toMatch(/, update repo:nginx \+1$/);
    // Two columns spare, for the "^C" a terminal echoes after the line.
    const cut = formatLiveLine(1, 3, [bot, binding], 30);
    expect(cut).toHaveLength(27);
    expect(cut.endsWith('…')).toBe(true);
  });

  it('colors when the view is told to', () => {
    expect(formatStepOutcome(events[3]!, colorPaint)).toContain('\x1b[32m✓\x1b[39m');
  });
});

describe('createProgressView', () => {
  it('without a TTY prints one line per outcome and the summary, with no escape codes', () => {
    const out = captureStream();
    const view = createProgressView({ out, format: 'text', tty: false, color: false });
    events.forEach(view);
    expect(out.text()).toBe(
      [
        '✓ update repo:nginx (123 ms)',
        `✗ create identity:ci-bot: ${failedResult.failed[0]!.error}`,
        '- skipped create roleBinding:ci-bot=viewer (depends on failed identity:ci-bot)',
        formatApplySummary(failedResult),
        '',
      ].join('\n'),
    );
  });

  it('on a TTY redraws one live line in place and keeps failures on screen; skips are counted, and named by the summary', () => {
    const out = captureStream(80);
    const view = createProgressView({ out, format: 'text', tty: true, color: false });
    events.forEach(view);
    const text = out.text();
    expect(text.startsWith('\r\x1b[2KApplying 0/3')).toBe(true);
    // Successes and skips are not printed as their own lines; the failure is.
    expect(text).not.toContain('✓ update repo:nginx');
    expect(text).not.toContain('- skipped');
    expect(text).toContain(`\r\x1b[2K✗ create identity:ci-bot: ${failedResult.failed[0]!.error}\n`);
    expect(text.endsWith(`\r\x1b[2K${formatApplySummary(failedResult)}\n`)).toBe(true);
    expect(formatApplySummary(failedResult)).toContain('roleBinding:ci-bot=viewer');
  });

  it('redraws a live line it skipped for being too soon, so a slow step that just started shows', async () => {
    const out = captureStream(80);
    const view = createProgressView({ out, format: 'text', tty: true, color: false });
    const slow = events.find((e) => e.type === 'step-start')!;
    view({ type: 'start', total: 3 });
    view(slow); // within the redraw interval of the first draw: not drawn yet
    expect(out.text()).not.toContain((slow as Extract<ApplyEvent, { type: 'step-start' }>).step.address);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(out.text()).toContain((slow as Extract<ApplyEvent, { type: 'step-start' }>).step.address);
  });

  it('prints a notice (Ctrl-C) on a line of its own, then redraws the live line under it', () => {
    const out = captureStream(80);
    const view = createProgressView({ out, format: 'text', tty: true, color: false });
    view(events[0]!);
    view(events[1]!);
    const before = out.text().length;
    view.notice('Interrupted.');
    expect(out.text().slice(before)).toBe('\r\x1b[2KInterrupted.\n\r\x1b[2KApplying 0/3 · update repo:nginx');

    const log = captureStream();
    const plain = createProgressView({ out: log, format: 'text', tty: false, color: false });
    plain.notice('Interrupted.');
    expect(log.text()).toBe('Interrupted.\n');
    const json = captureStream();
    createProgressView({ out: json, format: 'json', tty: false, color: false }).notice('Interrupted.');
    expect(json.text()).toBe(''); // stdout carries only JSON events
  });

  it('with --format json streams exactly one JSON line per event', () => {
    const out = captureStream();
    const view = createProgressView({ out, format: 'json', tty: true, color: true });
    events.forEach(view);
    const lines = out.text().trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).type)).toEqual(events.map((e) => e.type));
  });

  it('quits at once (a second Ctrl-C): ends the live line and says what was done so far', () => {
    expect(formatQuitLine({ total: 36, done: 8, failed: 1, skipped: 0, running: 3 })).toBe(
      'Quit: 9 of 36 steps finished (8 done, 1 failed); 3 steps in flight may or may not have been applied. Run the same apply again to finish (`platform-sync plan` shows what is left).',
    );
    expect(formatQuitLine({ total: 2, done: 0, failed: 0, skipped: 0, running: 0 })).toBe(
      'Quit: 0 of 2 steps finished (0 done). Run the same apply again to finish (`platform-sync plan` shows what is left).',
    );

    const out = captureStream(80);
    const view = createProgressView({ out, format: 'text', tty: true, color: false });
    events.slice(0, 4).forEach(view); // start, two steps start, one done
    const line = view.quit();
    expect(line).toBe(
      'Quit: 1 of 3 steps finished (1 done); 1 step in flight may or may not have been applied. Run the same apply again to finish (`platform-sync plan` shows what is left).',
    );
    expect(out.text().endsWith('\n')).toBe(true); // the live line is ended, not left open
    const after = out.text().length;
    view(events[4]!); // a late event draws nothing over what follows
    expect(out.text().length).toBe(after);

    const json = captureStream();
    const jsonView = createProgressView({ out: json, format: 'json', tty: false, color: false });
    events.slice(0, 3).forEach(jsonView);
    expect(jsonView.quit()).toMatch(/^Quit: 0 of 3 steps finished \(0 done\); 2 steps in flight/);
  });
});
