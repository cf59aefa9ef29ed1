/**
 * `--emulator` (DESIGN.md §5): plan, apply, drift and export against an emulator started
 * in-process on a loopback port for the length of one command, its state kept in
 * `.platform-sync/emulator.json` under the working directory — so `plan → apply → plan` works
 * across processes on a machine with nothing else installed.
 *
 * The emulator accepts one owner token generated here for this process only; it is handed to
 * the client and never printed or written anywhere (the state file holds resources, not tokens).
 */
import type { Connection } from '../api/connection.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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
/** How long an `--emulator` command waits for another one to release the state file. */
const LOCK_WAIT_MS = 5 * 60_000;

export async function startEmbeddedEmulator(
  options: { cwd?: string; baseUrl?: string; tokenFile?: string; onWait?: (message: string) => void } = {},
): Promise<EmbeddedEmulator> {
  if (options.baseUrl !== undefined || options.tokenFile !== undefined) {
    throw new UserError('OPTION_CONFLICT', '--emulator runs against an embedded emulator; it cannot be combined with --base-url or --token-file');
  }
  const statePath = resolve(options.cwd ?? process.cwd(), EMBEDDED_STATE_PATH);
  mkdirSync(dirname(statePath), { recursive: true });
  const token = `embedded-${randomBytes(24).toString('hex')}`;
  // Loaded here, not at the top: every command imports this file for EMBEDDED_STATE_PATH, and
  // only `--emulator` needs the emulator itself (see main.ts on start-up cost).
  const { startEmulator } = await import('../emulator/index.js');
  const emulator: Emulator = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    tokens: [{ token, role: 'owner' }],
    statePath,
    // Another --emulator command in this directory: wait for it, never share the file with it.
    lockWait: {
      timeoutMs: LOCK_WAIT_MS,
      onWait: (holder) =>
        options.onWait?.(`Waiting for ${EMBEDDED_STATE_PATH}: another --emulator command (process ${holder.pid}) is using it…`),
    },
  });
  return {
    connection: { baseUrl: emulator.url, token, insecureHttp: false },
    statePath,
    close: () => emulator.close(),
  };
}
