/**
 * `platform-sync emulator`: runs the Platform API v2 emulator until SIGINT/SIGTERM, then
 * closes it (writing `--state`). Prints the URL, never a token.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { UserError } from '../../model/errors.js';
import type { EmulatorToken, FaultOptions } from '../../emulator/index.js';
import { readTokensFile } from '../../emulator/tokens.js';

interface EmulatorCliOptions {
  port: number;
  host: string;
  state?: string;
  repair?: boolean;
  seed?: string;
  token?: string;
  viewerToken?: string;
  tokens?: string;
  latency?: number;
  jitter?: number;
  errorRate?: number;
  rateLimit?: number;
  resetRate?: number;
  internalErrorRate?: number;
  shortPageRate?: number;
  retryAfter?: number;
  pageTokenTtl?: number;
  faultSeed?: number;
  checkAnswers?: boolean;
  plainResponses?: boolean;
}

function parseNumber(kind: 'integer' | 'number' | 'rate') {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n) || n < 0)
      throw new InvalidArgumentError(
        `expected a non-negative ${kind === 'rate' ? 'number between 0 and 1' : kind}, got ${JSON.stringify(raw)}`,
      );
    if (kind === 'integer' && !Number.isInteger(n))
      throw new InvalidArgumentError(`expected an integer, got ${JSON.stringify(raw)}`);
    if (kind === 'rate' && n > 1) throw new InvalidArgumentError(`expected a number between 0 and 1, got ${raw}`);
    return n;
  };
}

/**
 * The tokens the command line configures: `--tokens FILE` entries, then the owner token
 * (`--token`, else PLATFORM_TOKEN) and `--viewer-token`. A token given twice is an error.
 */
function tokensFromOptions(
  opts: Pick<EmulatorCliOptions, 'token' | 'viewerToken' | 'tokens'>,
  env: NodeJS.ProcessEnv,
): EmulatorToken[] {
  const tokens: EmulatorToken[] = opts.tokens ? readTokensFile(opts.tokens) : [];
  const fromFile = tokens.length;
  const add = (token: string, role: EmulatorToken['role'], flag: string): void => {
    const clash = tokens.findIndex((t) => t.token === token);
    if (clash >= 0) {
      const where = clash < fromFile ? `entry [${clash}] of --tokens ${opts.tokens}` : 'the owner token';
      throw new UserError(
        'EMULATOR_OPTIONS',
        `${flag} repeats a token already configured (${where}); each token has one role`,
      );
    }
    tokens.push({ token, role });
  };
  const owner = opts.token ?? env.PLATFORM_TOKEN;
  if (owner) add(owner, 'owner', opts.token ? '--token' : 'PLATFORM_TOKEN');
  if (opts.viewerToken) add(opts.viewerToken, 'viewer', '--viewer-token');
  return tokens;
}

/** Fault options from flags; absent flags stay absent. */
function faultsFromOptions(opts: EmulatorCliOptions): FaultOptions {
  const f: FaultOptions = {};
  if (opts.faultSeed !== undefined) f.seed = opts.faultSeed;
  if (opts.latency !== undefined) f.latencyMs = opts.latency;
  if (opts.jitter !== undefined) f.jitterMs = opts.jitter;
  if (opts.errorRate !== undefined) f.errorRate = opts.errorRate;
  if (opts.rateLimit !== undefined) f.rateLimit = opts.rateLimit;
  if (opts.resetRate !== undefined) f.resetRate = opts.resetRate;
  if (opts.internalErrorRate !== undefined) f.internalErrorRate = opts.internalErrorRate;
  if (opts.shortPageRate !== undefined) f.shortPageRate = opts.shortPageRate;
  if (opts.retryAfter !== undefined) f.retryAfterSeconds = opts.retryAfter;
  if (opts.pageTokenTtl !== undefined) f.pageTokenTtlSeconds = opts.pageTokenTtl;
  return f;
}

export function registerEmulatorCommand(program: Command, ctx: CliContext): void {
  program
    .command('emulator')
    .description('Run the Platform API v2 emulator (a real HTTP server) until interrupted')
    .option('--port <port>', 'port to listen on (0 = any free port)', parseNumber('integer'), 8080)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--state <file>',
      'load state from FILE if it exists; every change is journalled (FILE.journal, fsynced) before it is acknowledged',
    )
    .option(
      '--repair',
      'start even when the journal has a damaged record before its last: truncate it there, saying how many records are dropped',
    )
    .option('--seed <file>', 'YAML/JSON seed loaded at start (ignored when --state FILE exists)')
    .option('--token <token>', 'owner bearer token (default: $PLATFORM_TOKEN)')
    .option('--viewer-token <token>', 'read-only bearer token (writes get 403)')
    .option(
      '--tokens <file>',
      'YAML/JSON list of {token, role: owner|viewer, scope?: <group uid>}; keeps tokens out of the command line',
    )
    .option('--latency <ms>', 'added latency per request', parseNumber('number'))
    .option('--jitter <ms>', 'up to this much more latency, random per request', parseNumber('number'))
    .option('--error-rate <r>', 'share of requests answered 503 with Retry-After (0..1)', parseNumber('rate'))
    .option('--rate-limit <rps>', 'requests per second before 429 with Retry-After', parseNumber('number'))
    .option(
      '--reset-rate <r>',
      'share of connections reset, half after applying the request (0..1)',
      parseNumber('rate'),
    )
    .option(
      '--internal-error-rate <r>',
      'share of requests answered 500 INTERNAL, half after applying the request (0..1)',
      parseNumber('rate'),
    )
    .option(
      '--short-page-rate <r>',
      'share of list pages cut short while nextPageToken is set (0..1)',
      parseNumber('rate'),
    )
    .option('--retry-after <seconds>', 'Retry-After on 503/429 (default 1)', parseNumber('integer'))
    .option('--page-token-ttl <seconds>', 'page token lifetime (default 259200 = 3 days)', parseNumber('number'))
    .option('--fault-seed <n>', 'seed for faults and uids: same seed, same run', parseNumber('integer'))
    .option(
      '--plain-responses',
      'leave out the fields only the real service sends (resourceLimits, verified, company), which clients must ignore',
    )
    .option(
      '--check-answers',
      "check every answer against the emulator's contract (GET /openapi.json) before sending it; one that breaks it is a 500 naming why",
    )
    .action(async (opts: EmulatorCliOptions) => {
      const tokens = tokensFromOptions(opts, ctx.env);
      const { startEmulator } = await import('../../emulator/index.js'); // on use only (see main.ts)
      const emulator = await startEmulator({
        port: opts.port,
        host: opts.host,
        tokens,
        ...(opts.seed ? { seed: opts.seed } : {}),
        ...(opts.state ? { statePath: opts.state } : {}),
        ...(opts.repair ? { repair: true } : {}),
        lockHolder: `an emulator server (platform-sync emulator --state ${opts.state ?? ''})`,
        onNote: (note) => ctx.output.stderr.write(`emulator: ${note}\n`),
        faults: faultsFromOptions(opts),
        ...(opts.checkAnswers ? { checkAnswers: true } : {}),
        ...(opts.plainResponses ? { plainResponses: true } : {}),
      });
      ctx.output.stdout.write(`Platform API v2 emulator listening on ${emulator.url}\n`);
      if (tokens.length === 0)
        ctx.output.stderr.write(
          'No token configured (--tokens, --token or PLATFORM_TOKEN): every request except ping will get 401.\n',
        );
      await new Promise<void>((resolve) => {
        const stop = (signal: 'SIGINT' | 'SIGTERM'): void => {
          ctx.signals.off('SIGINT', stop);
          ctx.signals.off('SIGTERM', stop);
          ctx.output.stderr.write(
            `Received ${signal}, shutting down${opts.state ? ` and writing ${opts.state}` : ''}.\n`,
          );
          emulator.close().then(resolve, (err: unknown) => {
            ctx.output.stderr.write(`Error: could not write emulator state: ${(err as Error).message}\n`);
            ctx.exitCode = 1;
            resolve();
          });
        };
        ctx.signals.on('SIGINT', stop);
        ctx.signals.on('SIGTERM', stop);
      });
    });
}
