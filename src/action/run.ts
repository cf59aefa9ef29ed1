/**
 * The GitHub Action (`action.yml`, `uses: ./node_modules/platform-sync`): runs `plan`, `apply` or
 * `drift` through the CLI in-process, sets the step's outputs (`exitcode`, `has-changes`,
 * `plan-json`), adds the plan to the job summary, and — with `comment: true` on a pull request
 * — posts the plan as one comment that later runs update. A refused plan and invalid manifests
 * reach the comment too: that is where a reviewer looks.
 *
 * Inputs arrive as environment variables set by action.yml (`PS_COMMAND`, `PS_PATHS`, `PS_ARGS`,
 * `PS_COMMENT`, `PS_FAIL_ON_DRIFT`, `PS_GITHUB_TOKEN`); GitHub sets the rest (`GITHUB_OUTPUT`,
 * `GITHUB_STEP_SUMMARY`, `GITHUB_EVENT_PATH`, `GITHUB_REPOSITORY`, `GITHUB_API_URL`,
 * `RUNNER_TEMP`). The API token reaches the CLI only as `PLATFORM_TOKEN`, like everywhere else.
 */
import { existsSync } from 'node:fs';
import { escapeValue } from '../io/escape.js';
import { applySummaryMarkdown, applyResultOf } from './apply-report.js';
import {
  APPLY_COMMENT_MARKER,
  COMMENT_MARKER,
  commentBody,
  mergedPullRequestOf,
  postComment,
  pullRequestOf,
  reviewedApplyProblem,
} from './github-api.js';
import { annotationsOf, logText, SAFE_FOR_WORKFLOW_COMMAND, workflowCommand } from './workflow-log.js';
import { createOutput, type Output } from '../io/output.js';
import { readTextSyncBounded } from '../io/read-file.js';
import { makeUserDirectory, removeUserDirectory } from '../io/write-file.js';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { main } from '../cli/main.js';
import type { CliIo } from '../cli/context.js';

const COMMANDS = ['plan', 'apply', 'drift', 'audit', 'adopt'] as const;
type ActionCommand = (typeof COMMANDS)[number];

export interface ActionResult {
  exitcode: number;
  hasChanges: boolean;
  planJson: string;
  /** audit: where the SARIF report was written ('' when none). */
  sarifFile: string;
  /** Exit code of the step itself. */
  stepExit: number;
}

/** Splits `args` like a shell would for plain words and '…'/"…" quotes (no expansion). */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text))
    out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : (m[2] ?? m[3]!));
  return out;
}

/** A stream that keeps what is written and copies it to `echo` (the job log). */
function tee(
  echo: NodeJS.WritableStream,
  show: (line: string) => string | null = (line) => line,
): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  let partial = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = chunk.toString();
      chunks.push(text);
      // Line by line, so that a line can be shown otherwise (apply's JSON events as people read them).
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const shown = show(line);
        if (shown !== null) echo.write(`${logText(shown)}\n`);
      }
      done();
    },
    final(done) {
      if (partial !== '') {
        const shown = show(partial);
        if (shown !== null) echo.write(logText(shown));
      }
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * One of apply's JSON events (what the Action reads its outputs from) as the line a person reads
 * in the job's log (issue 49: not one huge JSON line); null for events that show nothing.
 */
export function applyEventLine(line: string): string | null {
  if (!line.startsWith('{')) return line;
  let e: {
    type?: string;
    total?: number;
    step?: { action?: string; address?: string };
    ms?: number;
    error?: string;
    because?: string;
    plan?: { summary?: { create?: number; update?: number; delete?: number }; accessChanges?: unknown[] };
    result?: { done?: unknown[]; failed?: unknown[]; skipped?: unknown[] };
  };
  try {
    e = JSON.parse(line) as typeof e;
  } catch {
    return line;
  }
  const step = `${e.step?.action ?? '?'} ${e.step?.address ?? '?'}`;
  switch (e.type) {
    case 'plan': {
      const sum = e.plan?.summary ?? {};
      const access = e.plan?.accessChanges?.length ?? 0;
      return escapeValue(
        `Plan: ${sum.create ?? 0} to create, ${sum.update ?? 0} to update, ${sum.delete ?? 0} to delete${access > 0 ? ` (${access} access change${access === 1 ? '' : 's'}: see the job summary)` : ''}.`,
      );
    }
    case 'start':
      return `Applying ${e.total ?? 0} step${e.total === 1 ? '' : 's'}…`;
    case 'step-done':
      return escapeValue(`✓ ${step} (${e.ms ?? 0} ms)`);
    case 'step-failed':
      return escapeValue(`✗ ${step}: ${e.error ?? ''}`);
    case 'step-skipped':
      return escapeValue(`- skipped ${step} (depends on ${e.because ?? '?'})`);
    case 'end': {
      const r = e.result ?? {};
      const failed = r.failed?.length ?? 0;
      return failed === 0
        ? `Apply complete: ${r.done?.length ?? 0} done.`
        : `Apply failed: ${r.done?.length ?? 0} done, ${failed} failed, ${r.skipped?.length ?? 0} skipped (the job summary says what to do).`;
    }
    default:
      return null;
  }
}

function setOutputs(env: NodeJS.ProcessEnv, door: Output, outputs: Record<string, string>): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) return;
  door.appendToFile(
    file,
    Object.entries(outputs)
      .map(([k, v]) => `${k}=${escapeValue(v)}\n`)
      .join(''),
  );
}

/**
 * The secrets-env input: `NAME=value` a line (blank lines and `#` comments skipped), every name a
 * PLATFORM_SYNC_SECRET_* variable (the only ones a manifest can name); a message saying what is
 * wrong otherwise. The message names the line by its number and shows nothing of it (found by the
 * review): a line that is not `NAME=value` may be a value pasted alone, and what comes before its
 * first `=` may be the value too (base64 ends in `=`), which the log's masking of the whole secret
 * would not catch.
 */
export function secretsEnvOf(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  const expected =
    'expected PLATFORM_SYNC_SECRET_<NAME>=value, one a line (the only variables a manifest can name); the line is not shown, as it may hold a secret';
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) return `line ${i + 1} of secrets-env has no "=": ${expected}`;
    const name = line.slice(0, eq).trim();
    if (!/^PLATFORM_SYNC_SECRET_[A-Z0-9_]+$/.test(name))
      return `line ${i + 1} of secrets-env: what comes before its first "=" is not a name PLATFORM_SYNC_SECRET_<NAME> (capital letters, digits and _): ${expected}`;
    out[name] = line.slice(eq + 1);
  }
  return out;
}

/** The secrets of the job in `env` that the Action knows: the API token, GitHub's tokens and every PLATFORM_SYNC_SECRET_*. */
function jobSecrets(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env).flatMap(([name, value]) =>
    value &&
    (name === 'PLATFORM_TOKEN' ||
      name === 'GITHUB_TOKEN' ||
      name === 'PS_GITHUB_TOKEN' ||
      name.startsWith('PLATFORM_SYNC_SECRET_'))
      ? [value]
      : [],
  );
}

/**
 * Why a run failed that {@link runAction} did not report itself (GitHub refusing a comment, a
 * file that cannot be written), on one line of the log written as every other is: redacted of
 * the job's secrets (secrets-env's included) and escaped, so that it starts no workflow command
 * (found by the review: the entry wrote the message raw, a request's path and a token in it).
 */
export function reportFailure(err: unknown, env: NodeJS.ProcessEnv, stderr: NodeJS.WritableStream): void {
  const door = createOutput(stderr, stderr, { workflowLog: true });
  const named = secretsEnvOf(env.PS_SECRETS_ENV ?? '');
  for (const secret of jobSecrets({ ...env, ...(typeof named === 'string' ? {} : named) })) door.addSecret(secret);
  door.stderr.write(`platform-sync action: ${escapeValue(err instanceof Error ? err.message : String(err))}\n`);
}

/** Runs the action with the given environment and streams; returns what it set. */
export async function runAction(io: CliIo): Promise<ActionResult> {
  const { env } = io;
  const command = (env.PS_COMMAND ?? '').trim() as ActionCommand;
  if (!COMMANDS.includes(command)) {
    io.stderr.write(
      logText(
        `Error: the command input must be one of ${COMMANDS.join(', ')}, got ${escapeValue(JSON.stringify(env.PS_COMMAND ?? ''))}\n`,
      ),
    );
    return { exitcode: 1, hasChanges: false, planJson: '', sarifFile: '', stepExit: 1 };
  }
  const paths = splitArgs(env.PS_PATHS ?? 'manifests/');
  const args = splitArgs(env.PS_ARGS ?? '');
  // The deny-new-access input: a gate a bot that merges on its own can rely on.
  if (
    (command === 'plan' || command === 'apply') &&
    ['true', 'yes', '1'].includes((env.PS_DENY_NEW_ACCESS ?? '').trim().toLowerCase())
  )
    args.push('--deny-new-access');
  // The invite-codes input: where apply keeps the codes of the invites it creates (upload it as a
  // short-lived artifact, or hand it on); each code is masked in the log before it exists anywhere else.
  const inviteCodes = (env.PS_INVITE_CODES ?? '').trim();
  // The reviewed-plan input: the plan the pull request's plan job saved (its plan-json output, kept as an artifact).
  const reviewedPlan = (env.PS_REVIEWED_PLAN ?? '').trim();
  if (command === 'apply' && inviteCodes !== '') args.push('--invite-codes', inviteCodes);
  if (command === 'apply' && reviewedPlan !== '') {
    const problem = await reviewedApplyProblem(env);
    if (problem !== undefined) {
      io.stderr.write(`Error: ${logText(escapeValue(problem))}\n`);
      const door = createOutput(io.stdout, io.stderr);
      setOutputs(env, door, { exitcode: '1', 'has-changes': 'false', 'plan-json': '', 'sarif-file': '' });
      // Refused before anything was read or sent: the summary and the merged pull request say why too.
      await reportApply(io, door, applySummaryMarkdown('', '', 1, escapeValue(problem)));
      return { exitcode: 1, hasChanges: false, planJson: '', sarifFile: '', stepExit: 1 };
    }
  }
  const planJson = join(env.RUNNER_TEMP ?? tmpdir(), 'platform-sync-plan.json');
  const sarifFile = join(env.RUNNER_TEMP ?? tmpdir(), 'platform-sync-audit.sarif');
  const argv =
    command === 'plan'
      ? ['plan', ...paths, '--format', 'markdown', '--detailed-exitcode', '--out', planJson, ...args]
      : command === 'apply'
        ? // Its outputs are read from the JSON events, never from the text a person reads: the
          // JSON format comes last, so a --format in args cannot take it away (issue 40).
          // With reviewed-plan, exactly the plan the pull request showed, if the merged manifests are the ones it was made from.
          reviewedPlan !== ''
          ? ['apply', reviewedPlan, '--manifests', ...paths, '--auto-approve', ...args, '--format', 'json']
          : ['apply', ...paths, '--auto-approve', ...args, '--format', 'json']
        : command === 'audit'
          ? // Text in the log, SARIF for code scanning, markdown in the job summary (the command writes it).
            ['audit', ...paths, '--sarif', sarifFile, ...args]
          : command === 'adopt'
            ? ['adopt', ...paths, ...args] // drift's other answer: exit 2 (has-changes) when the manifests change
            : ['drift', ...paths, ...args];
  // Apply's JSON events are what the outputs are read from; the log shows them as people read them,
  // and the events are kept whole in a file beside the plan (RUNNER_TEMP/platform-sync-apply.jsonl).
  const stdout = command === 'apply' ? tee(io.stdout, applyEventLine) : tee(io.stdout);
  const stderr = tee(io.stderr);
  // The Action's own door out: what it appends and posts is redacted of every secret of the job
  // it knows (the CLI redacted its own output already; this covers the Action's writing).
  const door = createOutput(io.stdout, io.stderr);
  // The secrets-env input: the secrets the manifests name, for this step alone (issue 49).
  const secrets = secretsEnvOf(env.PS_SECRETS_ENV ?? '');
  if (typeof secrets === 'string') {
    io.stderr.write(`Error: ${logText(escapeValue(secrets))}\n`);
    setOutputs(env, door, { exitcode: '1', 'has-changes': 'false', 'plan-json': '', 'sarif-file': '' });
    return { exitcode: 1, hasChanges: false, planJson: '', sarifFile: '', stepExit: 1 };
  }
  const { PS_SECRETS_ENV: _given, ...rest } = env;
  const runEnv: NodeJS.ProcessEnv = { ...rest, ...secrets };
  for (const secret of jobSecrets(runEnv)) door.addSecret(secret);
  const exitcode = await withOwnSummary(env, runEnv, door, () =>
    main(['node', 'platform-sync', ...argv], {
      ...io,
      env: runEnv,
      stdout: stdout.stream,
      stderr: stderr.stream,
      // GitHub masks the code in every later line of the log (a workflow command, so it goes out as is).
      onInviteCode: (code) => {
        door.addSecret(code);
        // A value the server chose reaches a workflow command only as printable ASCII without %,
        // CR or LF (DESIGN.md §8 rev 5): a newline would start a command of its own
        // (`::stop-commands::`), after which later codes would be printed unmasked. Refused, the
        // invite is deleted again by apply (a code nobody keeps is a dead invite).
        if (!SAFE_FOR_WORKFLOW_COMMAND.test(code))
          throw new Error(
            'the service answered a code that is not printable ASCII without %, CR or LF, which a workflow command cannot carry safely',
          );
        io.stdout.write(`::add-mask::${code}\n`);
      },
    }),
  );

  // Each manifest problem as a GitHub annotation on its line (issue 40): the PR's diff shows it where it is.
  if (exitcode === 1)
    for (const line of annotationsOf(stderr.text() + stdout.text())) io.stdout.write(door.redact(line));
  const applied = command === 'apply' ? applyResultOf(stdout.text()) : undefined;
  if (command === 'apply')
    door.appendToFile(join(env.RUNNER_TEMP ?? tmpdir(), 'platform-sync-apply.jsonl'), stdout.text());
  // A partial apply changed things too: has-changes says whether any step was done.
  const hasChanges = command === 'apply' ? (applied?.done.length ?? 0) > 0 : exitcode === 2;
  const planFile = command === 'plan' && exitcode !== 1 && existsSync(planJson) ? planJson : '';
  const sarifOut = command === 'audit' && exitcode !== 1 && existsSync(sarifFile) ? sarifFile : '';
  setOutputs(env, door, {
    exitcode: String(exitcode),
    'has-changes': String(hasChanges),
    'plan-json': planFile,
    'sarif-file': sarifOut,
  });

  if (command === 'plan') {
    const pr = pullRequestOf(env);
    // What merging will do, said plainly (issue 49): only a plan with changes is applied.
    const refused = exitcode === 1 && stdout.text().includes('This plan is refused');
    const outcome =
      exitcode === 2
        ? '; applied when merged'
        : exitcode === 0
          ? ': no changes, so merging applies nothing'
          : refused
            ? ': refused — not applied when merged; fix what it names and push again'
            : ': no plan (the manifests are invalid or planning failed) — nothing is applied when merged';
    const footer = pr?.sha ? `\n\n_Plan of ${pr.sha}${outcome}._` : '';
    const body = door.redact(logText(commentBody(stdout.text(), stderr.text(), exitcode) + footer));
    if (env.GITHUB_STEP_SUMMARY)
      door.appendToFile(env.GITHUB_STEP_SUMMARY, `${body.slice(COMMENT_MARKER.length + 1)}\n`);
    if (['true', 'yes', '1'].includes((env.PS_COMMENT ?? '').trim().toLowerCase())) {
      if (pr === undefined) io.stderr.write('Not commenting: this run is not for a pull request.\n');
      else {
        try {
          io.stdout.write(`Plan comment ${await postComment(env, pr.number, body)} on pull request #${pr.number}.\n`);
        } catch (err) {
          // GitHub unreachable (fetch's TypeError): the plan succeeded and is in the job summary, so
          // this is a warning, not a failed step. A refusal from GitHub (a missing permission) still fails it.
          if (!(err instanceof TypeError)) throw err;
          const cause = (err as { cause?: { code?: string; message?: string } }).cause;
          const why = `${(err as Error).message}${cause?.code ? ` (${cause.code})` : cause?.message ? ` (${cause.message})` : ''}`;
          const warning = `the plan comment could not be posted on pull request #${pr.number}: ${why}; the plan is in the job summary`;
          io.stderr.write(door.redact(workflowCommand('warning', warning)));
        }
      }
    }
  }
  if (command === 'apply') await reportApply(io, door, applySummaryMarkdown(stdout.text(), stderr.text(), exitcode));
  const failOnDrift = !['false', 'no', '0'].includes((env.PS_FAIL_ON_DRIFT ?? 'true').trim().toLowerCase());
  // An audit finding at or above --fail-on fails the step, as a drift does (upload the SARIF with `if: always()`).
  const stepExit =
    exitcode === 1 ? 1 : (command === 'drift' || command === 'audit') && exitcode === 2 && failOnDrift ? 2 : 0;
  return { exitcode, hasChanges, planJson: planFile, sarifFile: sarifOut, stepExit };
}

/**
 * The apply's result (or why it did not run) in the job summary and — with `comment: true` — on
 * the merged pull request, as one comment updated in place (issue 49): every outcome, refusals
 * included, is reported where people look, not only in the log.
 */
async function reportApply(io: CliIo, door: Output, summary: string): Promise<void> {
  const { env } = io;
  const text = door.redact(logText(summary));
  if (env.GITHUB_STEP_SUMMARY) door.appendToFile(env.GITHUB_STEP_SUMMARY, text);
  if (!['true', 'yes', '1'].includes((env.PS_COMMENT ?? '').trim().toLowerCase())) return;
  try {
    const pr = await mergedPullRequestOf(env);
    if (pr === undefined) io.stderr.write('Not commenting: no merged pull request for this commit.\n');
    else {
      const body = door.redact(
        `${APPLY_COMMENT_MARKER}\n${text}\n_Apply of ${logText(escapeValue((env.GITHUB_SHA ?? '').slice(0, 7)))}._`,
      );
      io.stdout.write(
        `Apply comment ${await postComment(env, pr, body, APPLY_COMMENT_MARKER)} on pull request #${pr}.\n`,
      );
    }
  } catch (err) {
    // The apply is done either way: a comment that cannot be posted is a warning, and the result is in the job summary.
    const warning = `the apply's result could not be posted on the merged pull request: ${(err as Error).message}; it is in the job summary`;
    io.stderr.write(door.redact(workflowCommand('warning', warning)));
  }
}

/**
 * Runs the CLI with a job summary of this step's own: what a command appends there (drift's
 * report, audit's review) reaches the job summary through the Action's door, escaped like
 * everything else it writes ({@link logText}), and the file is gone afterwards.
 */
async function withOwnSummary(
  env: NodeJS.ProcessEnv,
  runEnv: NodeJS.ProcessEnv,
  door: Output,
  run: () => Promise<number>,
): Promise<number> {
  const summary = env.GITHUB_STEP_SUMMARY;
  if (!summary) return run();
  const dir = join(env.RUNNER_TEMP ?? tmpdir(), `platform-sync-summary-${randomUUID()}`);
  makeUserDirectory(dir, "the directory of the command's job summary");
  try {
    const own = join(dir, 'summary.md');
    runEnv.GITHUB_STEP_SUMMARY = own;
    const exitcode = await run();
    if (existsSync(own)) door.appendToFile(summary, logText(readTextSyncBounded(own, { maxBytes: 16 * 1024 * 1024 })));
    return exitcode;
  } finally {
    removeUserDirectory(dir);
  }
}
