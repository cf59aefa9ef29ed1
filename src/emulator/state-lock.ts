/**
 * One emulator per state file (DESIGN.md §6): an exclusive lock file beside the state, holding
 * the pid, host and start time of the process that has it. A second emulator on the same file
 * is refused, naming the holder (or waits, for `--emulator` commands); a lock left by a process
 * that no longer runs is taken over.
 */
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { UserError } from '../model/errors.js';

/** Who holds a state file. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the holder took the lock. */
  since: string;
}

export class StateLockedError extends UserError {
  readonly holder: LockHolder;
  constructor(statePath: string, holder: LockHolder) {
    super(
      'EMULATOR_STATE_LOCKED',
      `emulator state file ${statePath} is in use by process ${holder.pid} on ${holder.host} (since ${holder.since}); ` +
        'two emulators must never share one state file — stop that one, or use another --state',
    );
    this.holder = holder;
  }
}

export interface LockWait {
  /** How long to wait for a live holder before giving up (StateLockedError). */
  timeoutMs: number;
  /** Called once when the lock is held by another live process and waiting starts. */
  onWait?: (holder: LockHolder) => void;
}

export interface StateLock {
  release(): void;
}

const POLL_MS = 100;

function readHolder(lockPath: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(lockPath, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') return { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? '?') };
  } catch {
    // Unreadable or half-written: treated as a lock whose holder is unknown (below).
  }
  return undefined;
}

/** Whether the holder is a process that still runs (on this host; another host's is assumed alive). */
function isAlive(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes over a stale lock: renames it away (only one taker can), checks it is still the stale
 * one it read, and removes it. False when another process got there first.
 */
function takeOver(lockPath: string, stale: string): boolean {
  const aside = `${lockPath}.${process.pid}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return false;
  }
  const content = readFileSync(aside, 'utf8');
  if (content !== stale) {
    // A fresh lock replaced the stale one in between: put it back (never over a newer one).
    try {
      linkSync(aside, lockPath);
    } catch {
      // Someone holds the path now; theirs wins.
    }
  }
  unlinkSync(aside);
  return content === stale;
}

/** Acquires the lock of `statePath`, waiting as `wait` says (not at all by default). */
export async function acquireStateLock(statePath: string, wait?: LockWait): Promise<StateLock> {
  const lockPath = `${statePath}.lock`;
  const mine: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  const deadline = Date.now() + (wait?.timeoutMs ?? 0);
  let told = false;
  for (;;) {
    try {
      writeFileSync(lockPath, text, { flag: 'wx', mode: 0o644 });
      return {
        release() {
          // Only our own lock: never one another process took over after us.
          if (readHolder(lockPath)?.pid === mine.pid && readFileSync(lockPath, 'utf8') === text) unlinkSync(lockPath);
        },
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') {
        const why = code === 'ENOENT' ? `its directory ${dirname(statePath)} does not exist` : code === 'ENOTDIR' ? `${dirname(statePath)} is not a directory` : (code ?? (err as Error).message);
        throw new UserError('EMULATOR_STATE_LOCK', `cannot use the emulator state file ${statePath}: ${why}`);
      }
    }
    let stale: string;
    try {
      stale = readFileSync(lockPath, 'utf8');
    } catch {
      continue; // released in between: try again
    }
    const holder = readHolder(lockPath);
    if (holder && !isAlive(holder)) {
      takeOver(lockPath, stale);
      continue;
    }
    const known = holder ?? { pid: 0, host: 'an unknown host', since: 'an unknown time' };
    if (Date.now() >= deadline) throw new StateLockedError(statePath, known);
    if (!told) wait?.onWait?.(known);
    told = true;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
