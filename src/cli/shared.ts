/**
 * What every command that talks to the API shares (DESIGN.md §5): the connection and global
 * and planning options, and opening a session (a client, and whatever must be closed with it).
 * The "load manifests → read live → plan" sequence plan, apply and drift start with is the
 * library's planFromManifests (src/pipeline.ts).
 *
 * The token comes from PLATFORM_TOKEN or --token-file only; it is handed to the client and to
 * the command's Output, which redacts it from everything the command writes from then on
 * (output.ts) — the client redacts it from its own errors too.
 */
import { existsSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { Option, type Command } from 'commander';
import { secretReader, type SecretReader, type SecretSources } from '../apply/secrets.js';
import { resolveConnection } from '../api/connection.js';
import { EMBEDDED_STATE_PATH, embeddedOrgNotVisible, startEmbeddedEmulator } from './embedded.js';
import type { ApiClient } from '../api/types.js';
import { OrgNotVisibleError, UserError } from '../model/errors.js';
import type { PlanningOptions } from '../pipeline.js';
import type { CliContext } from './context.js';
import { parseByteCount, parseSeconds } from './parse-options.js';

/** Options every API-talking command accepts (as commander parses them). */
export interface ConnectionOptions {
  /** `--base-url`; else PLATFORM_API_URL. */
  baseUrl?: string;
  /** `--token-file`; else PLATFORM_TOKEN. */
  tokenFile?: string;
  /** `--verbose`: one line per HTTP request on stderr (method, path, status, time; never headers). */
  verbose?: boolean;
  /** `--no-color` sets this to false. */
  color?: boolean;
  /** `--emulator`: an embedded emulator, state in .platform-sync/emulator.json (embedded.ts). */
  emulator?: boolean;
  /** `--insecure-http`: allow plain http to a host that is not loopback. */
  insecureHttp?: boolean;
  /** `--lock-timeout <seconds>`: how long `--emulator` waits for the holder of its state. */
  lockTimeout?: string;
  /** Set by commands that write (apply): `--emulator` makes its state directory only for them. */
  emulatorWrites?: boolean;
}

/**
 * Adds --base-url, --token-file, --verbose, --no-color and --emulator to a command, and a
 * hidden --token that refuses, without repeating it, a token typed as an argument (where shell
 * history and process listings would keep it).
 */
export function addConnectionOptions(command: Command): Command {
  return command
    .option('--base-url <url>', 'Platform API base URL (default: $PLATFORM_API_URL)')
    .option('--token-file <file>', 'read the API token from this file (default: $PLATFORM_TOKEN)')
    .option('--verbose', 'log every HTTP request to stderr (the token is never shown)')
    .option('--no-color', 'plain output without ANSI colours')
    .option('--emulator', `use an embedded emulator, its state kept in ${EMBEDDED_STATE_PATH}`)
    .option(
      '--lock-timeout <seconds>',
      'with --emulator: how long to wait for another emulator holding its state (default 30)',
    )
    .option(
      '--insecure-http',
      'allow a plain http:// base URL to a host that is not loopback (the token then crosses the network unencrypted)',
    )
    .addOption(new Option('--token <token>').hideHelp().argParser(refuseTokenArgument));
}

function refuseTokenArgument(): never {
  throw new UserError(
    'TOKEN_AS_ARGUMENT',
    'a token is never taken as a command-line argument (shell history and process listings keep it): set PLATFORM_TOKEN or pass --token-file FILE',
  );
}

/** An open connection to the API; `close()` releases it (and anything started for it). */
export interface Session {
  client: ApiClient;
  close(): Promise<void>;
  /** With --emulator: its state file (for messages that fit the emulator, not a remote API). */
  embeddedStatePath?: string;
}

/**
 * Opens the session a command works in. This is the one place that decides where the API is:
 * today a remote API from --base-url/--token-file; an `--emulator` mode (an embedded emulator
 * whose close() also stops it, see embedded.ts) plugs in here and nowhere else.
 */
async function openSession(options: ConnectionOptions, ctx: CliContext): Promise<Session> {
  const { output } = ctx;
  const embedded = options.emulator
    ? await startEmbeddedEmulator({
        cwd: ctx.cwd,
        baseUrl: options.baseUrl,
        tokenFile: options.tokenFile,
        onWait: (m) => output.stderr.write(`${m}\n`),
        writes: options.emulatorWrites === true,
        ...(options.lockTimeout !== undefined
          ? { lockTimeoutMs: parseSeconds(options.lockTimeout, '--lock-timeout') * 1000 }
          : {}),
      })
    : undefined;
  const connection =
    embedded?.connection ??
    resolveConnection({
      baseUrl: options.baseUrl,
      tokenFile: options.tokenFile,
      insecureHttp: options.insecureHttp,
      env: ctx.env,
    });
  // Before the first request: from here on nothing the command writes can carry the token.
  output.addSecret(connection.token);
  // The client (and undici under it) is loaded on first connect, not at start-up (see main.ts).
  const { createClient, formatRequestEvent } = await import('../api/client.js');
  const client = createClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    allowInsecureHttp: connection.insecureHttp,
    onRequest: options.verbose ? (e) => output.stderr.write(`${formatRequestEvent(e)}\n`) : undefined,
    clock: ctx.clock,
  });
  return {
    client,
    close: async () => {
      await client.close();
      await embedded?.close();
    },
    ...(embedded ? { embeddedStatePath: embedded.statePath } : {}),
  };
}

/** Runs `work` in a session and always closes it; the run's Output redacts the session's token. */
export async function withSession<T>(
  options: ConnectionOptions,
  ctx: CliContext,
  work: (session: Session) => Promise<T>,
): Promise<T> {
  const session = await openSession(options, ctx);
  try {
    return await work(session);
  } catch (err) {
    if (err instanceof OrgNotVisibleError && session.embeddedStatePath !== undefined)
      throw embeddedOrgNotVisible(err.org, session.embeddedStatePath);
    throw err;
  } finally {
    await session.close();
  }
}

/**
 * Colour for a stream: never with --no-color; always with FORCE_COLOR set (to anything but
 * `0`/`false`: CI logs that render colour, as Node and most CLIs do); never with NO_COLOR set
 * (https://no-color.org); else only on a TTY.
 */
export function shouldColor(options: ConnectionOptions, stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (options.color === false) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && !['0', 'false'].includes(force.trim().toLowerCase())) return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

/** Parses `--max-delete-ratio`: a number from 0 to 1. */
function parseDeleteRatio(value: string): number {
  const ratio = Number(value);
  if (value.trim() === '' || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new UserError('OPTION_INVALID', `--max-delete-ratio must be a number from 0 to 1, got "${value}"`);
  }
  return ratio;
}

/** The planning options as commander parses them (see addPlanningOptions). */
export interface PlanningCliOptions {
  target?: string[];
  /** `--bootstrap`: create the org when it is not visible. */
  bootstrap?: boolean;
  /** Still text here: planOptionsFrom parses it (parseDeleteRatio). */
  maxDeleteRatio?: string;
  allowMassDelete?: boolean;
  /** `--rotate-secrets` (plan, apply): send every declared secret again. */
  rotateSecrets?: boolean;
  /** `--deny-new-access` (plan, apply): refuse a plan that gains any capability. */
  denyNewAccess?: boolean;
  /** `--reinvite`: members whose open invite is replaced by a new one. */
  reinvite?: string[];
  /** `--secrets-dir`: where `fromFile` secret references are read from. */
  secretsDir?: string;
  /** `--max-manifest-bytes`, parsed by planOptionsFrom. */
  maxManifestBytes?: string;
}

/**
 * Where a run's secrets come from (DESIGN.md §3): its environment, and the secrets directory the
 * operator names with `--secrets-dir` or PLATFORM_SYNC_SECRETS_DIR — never the manifests.
 */
export function cliSecretSources(options: PlanningCliOptions, ctx: CliContext): SecretSources {
  const dir = options.secretsDir ?? ctx.env.PLATFORM_SYNC_SECRETS_DIR;
  return dir === undefined || dir === '' ? { env: ctx.env } : { env: ctx.env, secretsDir: resolvePath(ctx.cwd, dir) };
}

/**
 * How the CLI reads the secrets a plan sends, each value added to the Output's redaction before
 * it is used, so no text the run writes can carry it.
 */
export function cliSecretReader(options: PlanningCliOptions, ctx: CliContext): SecretReader {
  const read = secretReader(cliSecretSources(options, ctx));
  return (ref) => {
    const value = read(ref);
    ctx.output.addSecret(value);
    return value;
  };
}

/**
 * `plan`/`apply` without paths. `--target` takes every word after it, so `plan --target
 * 'identity:*' manifests/` leaves no paths: say that, and how to write it, instead of only
 * "missing required argument".
 */
export function requirePaths(paths: readonly string[], options: PlanningCliOptions, command: string): void {
  if (paths.length > 0) return;
  const swallowed = (options.target ?? []).filter((t) => existsSync(t) || (!t.includes(':') && t !== 'org'));
  if (swallowed.length > 0) {
    throw new UserError(
      'USAGE',
      `no manifest paths: --target took ${swallowed.map((t) => JSON.stringify(t)).join(', ')} as ${swallowed.length === 1 ? 'an address' : 'addresses'} ` +
        `(it takes every word after it); give the paths first (platform-sync ${command} ${swallowed[0]} --target …) or end the addresses with -- (--target … -- ${swallowed[0]})`,
    );
  }
  throw new UserError('USAGE', `missing required argument 'paths': the manifest files or directories to ${command}`);
}

/** Adds the planning options (--target, --max-delete-ratio, --allow-mass-delete) to a command. */
export function addPlanningOptions(command: Command): Command {
  return command
    .option(
      '--target <addresses...>',
      'plan only these addresses or globs (and what they depend on); member:… plans what a members line causes',
    )
    .option(
      '--max-delete-ratio <ratio>',
      'refuse to delete more than this share of a kind that has at least 10 (default 0.25)',
    )
    .option('--allow-mass-delete', 'lift the --max-delete-ratio refusal')
    .option(
      '--bootstrap',
      'create the org (its root group) when none of its name is visible; without it, an org that is not visible is an error',
    )
    .option(
      '--max-manifest-bytes <bytes>',
      'refuse a manifest set larger than this, all files together (default 64 MiB)',
    )
    .option(
      '--secrets-dir <dir>',
      'the directory fromFile secret references are read from (default: $PLATFORM_SYNC_SECRETS_DIR); nothing outside it is read',
    )
    .option(
      '--rotate-secrets',
      "send every declared secret again (an identity provider's client secret): one PATCH per resource, shown in the plan and kept in a saved one",
    )
    .option(
      '--deny-new-access',
      'refuse a plan that gives anyone a capability they do not have (rule new-access); losing access is never refused',
    )
    .option(
      '--reinvite <emails...>',
      'replace the open invite of these members with a new one (a lost code): the old invite is deleted, a new one created',
    );
}

/** The planning options from the parsed command-line options. */
export function planOptionsFrom(options: PlanningCliOptions): PlanningOptions {
  const out: PlanningOptions = {};
  if (options.bootstrap) out.bootstrap = true;
  if (options.target && options.target.length > 0) out.targets = options.target;
  if (options.maxDeleteRatio !== undefined) out.maxDeleteRatio = parseDeleteRatio(options.maxDeleteRatio);
  if (options.allowMassDelete) out.allowMassDelete = true;
  if (options.rotateSecrets) out.rotateSecrets = true;
  if (options.denyNewAccess) out.denyNewAccess = true;
  if (options.reinvite && options.reinvite.length > 0) out.reinvite = options.reinvite;
  if (options.maxManifestBytes !== undefined)
    out.maxManifestBytes = parseByteCount(options.maxManifestBytes, '--max-manifest-bytes');
  return out;
}

/**
 * Appends markdown to `$GITHUB_STEP_SUMMARY` when GitHub Actions set it, redacted like all
 * output. The job summary is a copy: when it cannot be written, a warning says so and the exit
 * code still tells the outcome, which is what a cron job acts on.
 */
export function appendStepSummary(markdown: string, { output, env }: CliContext, what: string): void {
  const summaryPath = env.GITHUB_STEP_SUMMARY;
  if (!summaryPath) return;
  try {
    output.appendToFile(summaryPath, `${markdown}\n`);
  } catch (err) {
    const cause = ((err as { cause?: unknown }).cause ?? err) as NodeJS.ErrnoException;
    output.stderr.write(
      `Warning: cannot append ${what} to $GITHUB_STEP_SUMMARY (${summaryPath}): ${cause.code ?? cause.message}; the report above is complete.\n`,
    );
  }
}

/**
 * A progress line while the live org is read (issue 50): `Reading the live org: 5 of 12 kinds listed…`,
 * rewritten in place on a terminal and cleared when the read is done — never on a pipe or in a
 * CI log (CI set), where it would be noise. `done()` clears it.
 */
export function readProgress(ctx: CliContext): {
  onReadProgress?: (done: number, total: number) => void;
  done(): void;
} {
  const stream = ctx.output.stderr;
  if (!stream.isTTY || (ctx.env.CI ?? '') !== '') return { done: () => undefined };
  let shown = false;
  return {
    onReadProgress: (done, total) => {
      shown = true;
      stream.write(`\r\u001b[2K${readProgressText(done, total)}`);
    },
    done: () => {
      if (shown) stream.write('\r\u001b[2K');
    },
  };
}

/** The words of the read's progress line. */
export function readProgressText(done: number, total: number): string {
  return `Reading the live org: ${done} of ${total} kinds listed${done < total ? '…' : ''}`;
}
