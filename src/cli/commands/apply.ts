/**
 * `platform-sync apply <paths…> | apply <plan.json>` (DESIGN.md §4, §5): plan (or check a saved
 * plan against live state), show it, get approval, run it, report. Exit 0 when every step was
 * applied (or there was nothing to do); 1 on any error, refusal, cancellation or partial apply
 * (set here or by main.ts).
 */
import { readline } from '../../util/lazy-require.js';
import { stringifyForOutput } from '../../views/escape.js';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { statSync } from 'node:fs';
import { readFileHeadSync } from '../../io/read-file.js';
import { readSecretsOnce, redactDeclaredSecrets, type SecretReader } from '../../apply/secrets.js';
import { extname } from 'node:path';
import {
  apply,
  DEFAULT_CONCURRENCY,
  InviteCodesNeededError,
  type ApplyResult,
  type InviteCodeRecord,
} from '../../apply/index.js';
import type { KeepInviteCode } from '../../apply/execute-step.js';
import { openSecretFile } from '../../io/write-file.js';
import { escapeValue } from '../../io/escape.js';
import { loadInviteRecipient } from '../../apply/invite-recipient.js';
import { createProgressView, type ProgressFormat } from '../../views/progress.js';
import type { ApiClient } from '../../api/types.js';
import { UserError } from '../../model/errors.js';
import type { Plan } from '../../model/plan.js';
import { assertSafe } from '../../plan/index.js';
import { checkSavedPlan } from '../../saved-plan/check-saved-plan.js';
import { planFromManifests } from '../../pipeline.js';
import { loadManifests } from '../../manifest/index.js';
import { renderPlan, toPlanDocument } from '../../views/plan.js';
import {
  addConnectionOptions,
  addPlanningOptions,
  planOptionsFrom,
  requirePaths,
  cliSecretReader,
  shouldColor,
  withSession,
  type ConnectionOptions,
  type PlanningCliOptions,
  readProgress,
} from '../shared.js';
import type { CliContext } from '../context.js';
import { INVITE_KIND } from '../../model/kinds.js';

interface ApplyCommandOptions extends ConnectionOptions, PlanningCliOptions {
  autoApprove?: boolean;
  concurrency: number;
  format: ProgressFormat;
  inviteCodes?: string;
  /** `--invite-codes-recipient KEY`: the armored OpenPGP public key (a file, or `-`) every code is encrypted to. */
  inviteCodesRecipient?: string;
  /** `--manifests <paths…>` with a saved plan: the manifests it must have been made from (apply what was reviewed). */
  manifests?: string[];
}

const PROGRESS_FORMATS: readonly ProgressFormat[] = ['text', 'json'];

export function registerApplyCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('apply')
    .description(
      'Make the org match the manifests (plan, confirm, apply), or apply a plan saved with `plan --out` exactly',
    )
    .argument('[paths...]', 'manifest files or directories, or one saved plan file (.json)')
    .usage('[options] <paths...|plan.json>')
    .option('--auto-approve', 'apply without asking (required when not on a terminal)')
    .option('--concurrency <n>', 'steps sent to the API at once', parseConcurrency, DEFAULT_CONCURRENCY)
    .addOption(
      new Option('--format <format>', 'progress output: text, or one JSON event per line')
        .choices([...PROGRESS_FORMATS])
        .default('text'),
    )
    .option(
      '--manifests <paths...>',
      'with a saved plan: apply it only if it was made from exactly these manifests (what was merged is what was reviewed)',
    )
    .option(
      '--invite-codes <file>',
      'append the code of each invite the apply creates to FILE (0600, one JSON object a line); the only place a code goes',
    )
    .option(
      '--invite-codes-recipient <key>',
      'with --invite-codes: encrypt each code to this armored OpenPGP public key (a file, or - for standard input) before its line is written; ' +
        'the key is checked before any write',
    );
  addPlanningOptions(command);
  addConnectionOptions(command);
  command.action(async (paths: string[], options: ApplyCommandOptions) => {
    requirePaths(paths, options, 'apply');
    ctx.exitCode = await runApply(paths, options, ctx);
  });
}

/** Parses `--concurrency`: a whole number from 1 to 256. */
function parseConcurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 1 || n > 256) {
    throw new InvalidArgumentError('expected a whole number from 1 to 256.');
  }
  return n;
}

async function runApply(paths: string[], options: ApplyCommandOptions, ctx: CliContext): Promise<number> {
  const { output } = ctx;
  // The inviter's key is checked before anything is read from or sent to the server: a key that
  // cannot be used refuses the whole apply (a code encrypted to nobody is a dead invite).
  if (options.inviteCodesRecipient !== undefined && options.inviteCodes === undefined) {
    throw new UserError(
      'APPLY_USAGE',
      '--invite-codes-recipient goes with --invite-codes FILE: the file the encrypted codes are written to',
    );
  }
  const recipient =
    options.inviteCodesRecipient === undefined
      ? undefined
      : await loadInviteRecipient(options.inviteCodesRecipient, ctx);
  if (recipient) {
    const who = recipient.userId === '' ? '' : ` (${escapeValue(recipient.userId)})`;
    output.stderr.write(`Invite codes are encrypted to OpenPGP key ${recipient.fingerprint}${who}.\n`);
  }
  const planFile = savedPlanPath(paths, options);
  // A saved plan is read before connecting: a bad file fails offline, naming the problem.
  const saved =
    planFile === undefined ? undefined : await (await import('../../saved-plan/saved-plan.js')).loadSavedPlan(planFile); // ajv, on use only (see main.ts)
  if (options.manifests !== undefined) {
    if (!saved)
      throw new UserError(
        'APPLY_USAGE',
        '--manifests goes with a saved plan (apply plan.json --manifests manifests/): it checks the plan was made from them',
      );
    // Offline, before connecting: the merged manifests must be the ones the reviewed plan was made from.
    const { checkPlanMadeFrom } = await import('../../saved-plan/reviewed.js');
    checkPlanMadeFrom(saved, await loadManifests(options.manifests), options.manifests);
  }
  return withSession({ ...options, emulatorWrites: true }, ctx, async ({ client }) => {
    const progress = readProgress(ctx);
    const planned = saved
      ? undefined
      : await planFromManifests(paths, client, {
          ...planOptionsFrom(options),
          ...(progress.onReadProgress ? { onReadProgress: progress.onReadProgress } : {}),
        }).finally(progress.done);
    const plan = saved
      ? await checkSavedPlan(saved, client, { denyNewAccess: options.denyNewAccess === true })
      : planned!.plan;
    // Every secret the manifests name is read for redaction, sent or not: live data may hold one
    // that this plan does not send (DESIGN.md §8 rev 4). One that cannot be read is not needed.
    if (planned) redactDeclaredSecrets(planned.desired, cliSecretReader(options, ctx));
    // Every secret is read before anything is printed, so that each is redacted from all output
    // (live data may hold one); a missing one stops the run once the plan is shown.
    const secrets = readSecretsOnce(plan, cliSecretReader(options, ctx));
    const out = output.stdout;
    if (options.format === 'json') out.write(`${stringifyForOutput({ type: 'plan', plan: toPlanDocument(plan) })}\n`);
    else out.write(renderPlan(plan, 'text', { color: shouldColor(options, out, ctx.env) }));
    assertSafe(plan); // a refused plan is shown whole, then stops here
    if (plan.steps.length === 0) return 0;
    if (secrets.error) throw secrets.error; // before the question
    // A code nobody keeps is a dead invite: refused before the question, as apply() would before any write.
    const invites = plan.steps.filter((s) => s.action === 'create' && s.kind === INVITE_KIND).map((s) => s.address);
    if (invites.length > 0 && options.inviteCodes === undefined) throw new InviteCodesNeededError(invites);

    if (!(await confirmApply(plan.steps.length, options, ctx))) {
      output.stderr.write('Apply cancelled: nothing was changed.\n');
      return 1;
    }
    // Approved without a question (CI): a blank line between the plan and the progress.
    if (options.autoApprove && options.format === 'text') out.write('\n');
    // Invite codes go to the operator's file only (opened before any write; registered as
    // secrets so that no other output can show one).
    const codes = options.inviteCodes === undefined ? undefined : openSecretFile(options.inviteCodes, 'invite codes');
    try {
      const onInviteCode =
        codes &&
        (async (record: InviteCodeRecord) => {
          ctx.onInviteCode?.(record.code);
          output.addSecret(record.code);
          // With a recipient, the line holds the code as an armored OpenPGP message to that key
          // (`encryptedTo` names it): the plain code is never written anywhere.
          const line = recipient
            ? { ...record, code: await recipient.encrypt(record.code), encryptedTo: recipient.fingerprint }
            : record;
          codes.appendLine(JSON.stringify(line));
        });
      const result = await applyWithInterrupt(plan, client, options, ctx, secrets.read, onInviteCode);
      return result.ok ? 0 : 1;
    } finally {
      codes?.close();
    }
  });
}

/**
 * Whether a path names a saved plan: a `.json` file, or a file that is not `.yaml`/`.yml` and
 * holds a JSON object with a `formatVersion` (Terraform users name plans `plan.out`, `tfplan`,
 * …). Manifests are YAML files or directories.
 */
function isSavedPlanFile(path: string): boolean {
  if (extname(path).toLowerCase() === '.json') return true;
  if (/\.ya?ml$/i.test(path) || statSync(path, { throwIfNoEntry: false })?.isFile() !== true) return false;
  const head = readFileHeadSync(path, 4096)?.toString('utf8') ?? '';
  return /^\s*\{/.test(head) && head.includes('"formatVersion"');
}

/** The saved plan's path, when `paths` names one (it must then be the only path). */
function savedPlanPath(paths: string[], options: ApplyCommandOptions): string | undefined {
  const plans = paths.filter(
    (p) =>
      isSavedPlanFile(p) ||
      (paths.length === 1 && !/\.ya?ml$/i.test(p) && statSync(p, { throwIfNoEntry: false })?.isFile() === true),
  );
  if (plans.length === 0) return undefined;
  if (paths.length > 1) {
    throw new UserError(
      'APPLY_USAGE',
      `a saved plan (${plans[0]}) must be the only path given to apply; manifests are .yaml/.yml files`,
    );
  }
  const planning = [
    options.target?.length ? '--target' : '',
    options.maxDeleteRatio !== undefined ? '--max-delete-ratio' : '',
    options.allowMassDelete ? '--allow-mass-delete' : '',
    options.bootstrap ? '--bootstrap' : '',
    options.rotateSecrets ? '--rotate-secrets' : '',
  ].filter(Boolean);
  if (planning.length > 0) {
    throw new UserError(
      'APPLY_USAGE',
      `${planning.join(', ')} cannot be used with a saved plan: they were decided when it was made (plan ${planning.join(' ')} --out …)`,
    );
  }
  return plans[0];
}

/**
 * Approval: --auto-approve, or 'yes' typed on a terminal. The answer is read from stdin; the
 * question goes to stdout, or to stderr when stdout is piped (`apply … | tee apply.log`) or
 * carries JSON events. Without a terminal to ask on, refused. Ctrl-C or Ctrl-D at the question
 * cancels, like any answer but 'yes'.
 */
async function confirmApply(count: number, options: ApplyCommandOptions, ctx: CliContext): Promise<boolean> {
  if (options.autoApprove) return true;
  const toStdout = options.format !== 'json' && ctx.output.stdout.isTTY;
  // readline writes the prompt and echoes the answer itself, so it gets the raw stream: the
  // question holds a count, and the echo is what the person typed.
  const prompt = toStdout ? ctx.stdout : ctx.stderr;
  if (!ctx.stdin.isTTY || !prompt.isTTY) {
    throw new UserError(
      'APPLY_NOT_APPROVED',
      `refusing to apply ${changes(count)} without approval: there is no terminal to ask on. Review the plan above and pass --auto-approve to apply it.`,
    );
  }
  const rl = readline().createInterface({ input: ctx.stdin, output: prompt });
  // Ctrl-D (end of input) and Ctrl-C close the interface without an answer: no approval.
  const closed = new Promise<null>((resolve) => rl.once('close', () => resolve(null)));
  const asked = rl
    .question(`\n${count === 1 ? 'Apply this change' : `Apply these ${changes(count)}`}? Only 'yes' will be accepted: `)
    .catch((err: unknown) => {
      if ((err as { code?: unknown }).code === 'ABORT_ERR') return null;
      throw err;
    });
  try {
    const answer = await Promise.race([asked, closed]);
    if (answer === null) prompt.write('\n');
    return answer?.trim() === 'yes';
  } finally {
    rl.close();
  }
}

function changes(count: number): string {
  return count === 1 ? '1 change' : `${count} changes`;
}

/** Exit code of a second stop signal: 128 + the signal's number, as shells report it. */
const SIGNAL_EXIT: Readonly<Record<'SIGINT' | 'SIGTERM', number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * Runs the apply with the progress view. The first Ctrl-C (or SIGTERM, which CI runners and
 * container platforms send to cancel) stops new steps from starting and lets the ones in
 * flight finish, so the report is true; a second one exits at once. Either way, running the
 * same apply again finishes the job.
 */
async function applyWithInterrupt(
  plan: Plan,
  client: ApiClient,
  options: ApplyCommandOptions,
  ctx: CliContext,
  readSecret: SecretReader,
  onInviteCode?: KeepInviteCode,
): Promise<ApplyResult> {
  const { output } = ctx;
  const controller = new AbortController();
  const view = createProgressView({
    out: output.stdout,
    format: options.format,
    tty: output.stdout.isTTY,
    color: shouldColor(options, output.stdout, ctx.env),
  });
  const onSignal = (signal: 'SIGINT' | 'SIGTERM'): void => {
    if (controller.signal.aborted) {
      // JSON events own stdout; people read stderr then.
      (options.format === 'json' ? output.stderr : output.stdout).write(`${view.quit()}\n`);
      ctx.exit(SIGNAL_EXIT[signal]);
      return;
    }
    controller.abort();
    const again = signal === 'SIGINT' ? 'Press Ctrl-C again to quit at once.' : 'Send SIGTERM again to quit at once.';
    const message = `${signal === 'SIGINT' ? 'Interrupted' : 'Terminated'}: no new step starts; waiting for the steps in flight. ${again}`;
    // JSON events own stdout; people read stderr then.
    if (options.format === 'json') output.stderr.write(`${message}\n`);
    else view.notice(message);
  };
  ctx.signals.on('SIGINT', onSignal);
  ctx.signals.on('SIGTERM', onSignal);
  try {
    return await apply(plan, client, {
      concurrency: options.concurrency,
      onEvent: view,
      signal: controller.signal,
      readSecret,
      ...(onInviteCode ? { onInviteCode } : {}),
    });
  } finally {
    ctx.signals.off('SIGINT', onSignal);
    ctx.signals.off('SIGTERM', onSignal);
  }
}
