/**
 * End-to-end helpers: run the CLI in-process through `main(argv, io)` with its own streams and
 * a clean environment (most tests), or the built `bin/platform-sync` as a child process where
 * a real process matters (signals, a terminal, `--emulator` across processes); and put an org
 * into a real emulator through the library, the way a previous `apply` would have.
 */
import { EventEmitter } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { main } from '../../src/cli/main.js';

import { join, resolve } from 'node:path';
import { createClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import type { Clock } from '../../src/api/throttle.js';
import { apply } from '../../src/apply/index.js';
import { runCli as runBuiltCli, type CliRun } from '../../src/cli/run-cli.js';
import { planFromManifests } from '../../src/pipeline.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { afterAll, beforeAll } from 'vitest';
import { EXAMPLE_SECRET_ENV } from '../support/example-secrets.js';

export type { CliRun };

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const BIN = join(REPO_ROOT, 'bin', 'platform-sync');
export const ACME = join(REPO_ROOT, 'examples', 'acme');

/** Runs the built `bin/platform-sync args…` as a child process, from the repo root unless `cwd` says otherwise (clean environment). */
export function runCliProcess(
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return runBuiltCli(args, { cwd: REPO_ROOT, ...options });
}

/** A stream that keeps what is written to it, as a terminal would not (no TTY). */
function collector(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * Runs `platform-sync args…` in this process through `main(argv, io)`: its own output streams,
 * no terminal, an empty standard input (or `stdin`), only the environment given (colour off), `cwd` for
 * `--emulator` state (default: the repo root), and `clock` for the API client's retry waits (a virtual
 * one: no real waiting). Paths in `args` should be absolute.
 */
export async function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; stdin?: string; clock?: Clock } = {},
): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const exits: number[] = [];
  const code = await main(['node', 'platform-sync', ...args], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    env: { NO_COLOR: '1', ...EXAMPLE_SECRET_ENV, ...options.env },
    cwd: options.cwd ?? REPO_ROOT,
    signals: new EventEmitter(),
    exit: (c) => void exits.push(c),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { code: exits[0] ?? code, stdout: stdout.text(), stderr: stderr.text() };
}

/** A command running in this process until it ends by itself or by a signal (`platform-sync emulator`). */
export interface CliSession {
  /** What it printed so far, stdout and stderr as they came. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the command ends first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends SIGINT or SIGTERM, as a terminal or a process manager would. */
  signal(name: 'SIGINT' | 'SIGTERM'): void;
  /** How the run ended. */
  done: Promise<CliRun>;
}

/** Starts `platform-sync args…` in this process (as runCli) without waiting for it to end. */
export function startCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliSession {
  let text = '';
  const waiters = new Set<() => void>();
  const both = () =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        text += chunk.toString();
        for (const wake of [...waiters]) wake();
        done();
      },
    });
  const signals = new EventEmitter();
  const exits: number[] = [];
  let ended = false;
  const done = main(['node', 'platform-sync', ...args], {
    stdout: both(),
    stderr: both(),
    stdin: Readable.from([]),
    env: { NO_COLOR: '1', ...EXAMPLE_SECRET_ENV, ...options.env },
    cwd: options.cwd ?? REPO_ROOT,
    signals,
    exit: (c) => void exits.push(c),
  }).then((code) => ({ code: exits[0] ?? code, stdout: text, stderr: '' }));
  void done.finally(() => {
    ended = true;
    for (const wake of [...waiters]) wake();
  });
  return {
    output: () => text,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = pattern.exec(text);
          if (m || ended) waiters.delete(check);
          if (m) resolve(m);
          else if (ended) reject(new Error(`the command ended before printing ${pattern}:\n${text}`));
        };
        waiters.add(check);
        check();
      }),
    signal: (name) => void signals.emit(name, name),
    done,
  };
}

import { makeTempDir } from '../support/temp-dirs.js';

export { makeTempDir };
export { CODE_CACHE_ENV } from '../support/own-temp-dir.js';

/** What a suite's CLI runs against: an emulator, the environment that points the CLI at it, a temporary directory. */
export interface SuiteEmulator {
  readonly emulator: Emulator;
  /** `PLATFORM_API_URL` and `PLATFORM_TOKEN` (an owner token) for `runCli`. */
  readonly env: Record<string, string>;
  readonly dir: string;
}

/**
 * An emulator with one owner `token` for the tests of the suite it is called in: started (then
 * `setup` run with it) before them, closed after them with the temporary directory removed.
 */
export function useSuiteEmulator(
  token: string,
  prefix: string,
  setup?: (emulator: Emulator) => unknown,
): SuiteEmulator {
  const temp = makeTempDir(prefix);
  let emulator: Emulator | undefined;
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token, role: 'owner' }] });
    await setup?.(emulator);
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });
  const started = (): Emulator => {
    if (!emulator) throw new Error('the suite emulator starts before the first test');
    return emulator;
  };
  return {
    get emulator() {
      return started();
    },
    get env() {
      return { PLATFORM_API_URL: started().url, PLATFORM_TOKEN: token };
    },
    dir: temp.dir,
  };
}

/** Makes live state match the manifests at `paths` through the library (load, read, plan, apply). */
export async function applyManifests(baseUrl: string, token: string, paths: string[]): Promise<void> {
  const client = createClient({ baseUrl, token });
  try {
    const { plan } = await planFromManifests(paths, client, { bootstrap: true });
    const result = await apply(plan, client, { concurrency: 8 });
    if (!result.ok) throw new Error(`setup apply failed: ${JSON.stringify(result.failed)}`);
  } finally {
    await client.close();
  }
}

/** A client for out-of-band changes in a test; closed by the caller. */
export function openClient(baseUrl: string, token: string): ApiClient {
  return createClient({ baseUrl, token });
}
