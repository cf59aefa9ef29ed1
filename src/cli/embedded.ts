/**
 * `--emulator` (DESIGN.md §5): plan, apply, drift and export against an emulator started
 * in-process on a loopback port for the length of one command, its state kept in
 * `.platform-sync/emulator.json` under the working directory — so `plan → apply → plan` works
 * across processes on a machine with nothing else installed.
 *
 * The emulator accepts one owner token generated here for this process only; it is handed to
 * the client and never printed or written anywhere (the state file holds resources, not tokens).
 */
import { crypto } from '../util/lazy-require.js';
import type { Connection } from '../api/connection.js';
import { existsSync } from 'node:fs';
import { environmentRedactor } from '../io/redact.js';
import { makeUserDirectory, removeUserDirectory, writeUserFile } from '../io/write-file.js';
import { dirname, join, resolve } from 'node:path';
import type { Emulator } from '../emulator/index.js';
import { UserError } from '../model/errors.js';

/** Where the embedded emulator keeps its state, relative to the working directory. */
export const EMBEDDED_STATE_PATH = '.platform-sync/emulator.json';

export interface EmbeddedEmulator {
  /** Where the client connects: `http://127.0.0.1:<port>` and the generated owner token (give it to the client, nothing else). */
  connection: Connection;
  /** Absolute path of the state file. */
  statePath: string;
  /** Writes the state and stops the server. */
  close(): Promise<void>;
}

/**
 * Starts the embedded emulator with its state under `cwd` (default: the working directory).
 * `--emulator` is a connection of its own, so a base URL or token file beside it is a mistake
 * worth saying out loud rather than silently ignoring one of them.
 */
/** How long an `--emulator` command waits for the holder of the state file by default (`--lock-timeout`). */
const DEFAULT_LOCK_TIMEOUT_MS = 30_000;

export async function startEmbeddedEmulator(
  options: {
    cwd?: string;
    baseUrl?: string;
    tokenFile?: string;
    onWait?: (message: string) => void;
    lockTimeoutMs?: number;
    writes?: boolean;
  } = {},
): Promise<EmbeddedEmulator> {
  if (options.baseUrl !== undefined || options.tokenFile !== undefined) {
    throw new UserError(
      'OPTION_CONFLICT',
      '--emulator runs against an embedded emulator; it cannot be combined with --base-url or --token-file',
    );
  }
  const statePath = resolve(options.cwd ?? process.cwd(), EMBEDDED_STATE_PATH);
  // Only a command that writes (apply) makes the state: plan, drift, show and export in a
  // directory without one read an empty emulator and leave nothing behind (DESIGN.md §6).
  const persistent = options.writes === true || existsSync(statePath);
  // A state this run makes and then writes nothing to (an apply with nothing to do) is removed again.
  const madeHere = persistent && !existsSync(dirname(statePath));
  if (persistent) makeStateDirectory(dirname(statePath));
  const token = `embedded-${crypto().randomBytes(24).toString('hex')}`;
  // Loaded here, not at the top: every command imports this file for EMBEDDED_STATE_PATH, and
  // only `--emulator` needs the emulator itself (see main.ts on start-up cost).
  const { startEmulator } = await import('../emulator/index.js');
  const { describeHolder } = await import('../emulator/state-lock.js');
  const timeoutMs = options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const emulator: Emulator = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    tokens: [{ token, role: 'owner' }],
    ...(persistent
      ? {
          statePath,
          lockHolder: 'an --emulator command',
          // Another emulator on this state: wait for it (up to --lock-timeout), never share the file.
          lockWait: {
            timeoutMs,
            onWait: (holder) =>
              options.onWait?.(
                `Waiting for ${EMBEDDED_STATE_PATH}: ${describeHolder(holder)} is using it (giving up after ${Math.round(timeoutMs / 1000)} s, --lock-timeout)…`,
              ),
          },
        }
      : {}),
  });
  return {
    connection: { baseUrl: emulator.url, token, insecureHttp: false },
    statePath,
    close: async () => {
      const wrote = emulator.requestLog.some((e) => e.method !== 'GET' && e.status >= 200 && e.status < 300);
      await emulator.close();
      if (madeHere && !wrote) removeUserDirectory(dirname(statePath));
    },
  };
}

/** `.platform-sync/`, with a `.gitignore` of `*` so that its state (and its lock) never reaches git. */
function makeStateDirectory(dir: string): void {
  makeUserDirectory(dir, "the embedded emulator's state directory");
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore))
    writeUserFile(
      ignore,
      '# platform-sync --emulator state: never committed\n*\n',
      "the state directory's .gitignore",
      { redact: environmentRedactor() },
    );
}

/**
 * An org not visible to the embedded emulator: the URL and tenant causes of a remote API cannot
 * apply; the likely cause is another working directory (the state is per directory).
 */
export function embeddedOrgNotVisible(org: string, statePath: string): UserError {
  const where = existsSync(statePath)
    ? `the embedded emulator's state (${statePath}) holds no org "${org}"`
    : `there is no embedded emulator state in this directory (${statePath} does not exist)`;
  return new UserError(
    'ORG_NOT_VISIBLE',
    `org "${org}" is not visible with --emulator: ${where}. The state is kept per directory: the likely cause is running in another directory than the one where \`apply --emulator\` created it. ` +
      `To create the org here: platform-sync apply <paths> --emulator --bootstrap (or plan … --emulator --bootstrap to see it first).`,
  );
}
