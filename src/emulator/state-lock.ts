/**
 * One emulator per state file (DESIGN.md §6). A second emulator on the same file is refused,
 * naming the holder (or waits, for `--emulator` commands, up to a timeout).
 *
 * On Linux the lock is a socket bound in the abstract namespace under a name derived from the
 * state file's real path: binding is exclusive, the kernel releases it when its process ends
 * however it ends, and there is no file to go stale — so no takeover exists that two processes
 * could race (a lock file taken over while another contender re-creates it can be held twice;
 * this cannot). The holder answers a connection with who it is (process, host, since, and what
 * it is: an `emulator` server or an `--emulator` command), so a waiter names the real holder.
 * `<state>.lock` is still written beside the state, for people: it is not the lock there.
 * Elsewhere, the lock is that exclusive file, and a file whose process no longer runs is taken
 * over (a best effort: the race above is possible there).
 */
import { createHash } from 'node:crypto';
import { createConnection, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { basename, dirname, resolve as resolvePath } from 'node:path';
import { linkSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { UserError } from '../model/errors.js';
import { readTextSyncBounded } from '../io/read-file.js';

/** Who holds a state file. */
export interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the holder took the lock. */
  since: string;
  /** What holds it: "an emulator server (platform-sync emulator)", "an --emulator command". */
  what?: string;
}

/** The holder as a message names it. */
export function describeHolder(holder: LockHolder): string {
  return `${holder.what ?? 'an emulator'} (process ${holder.pid} on ${holder.host}, since ${holder.since})`;
}

export class StateLockedError extends UserError {
  readonly holder: LockHolder;
  constructor(statePath: string, holder: LockHolder) {
    super(
      'EMULATOR_STATE_LOCKED',
      `emulator state file ${statePath} is in use by ${describeHolder(holder)}; ` +
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

export interface LockOptions {
  wait?: LockWait;
  /** What the taker is, for a waiter's message ("an --emulator command"). */
  what?: string;
}

export interface StateLock {
  release(): void;
  /**
   * Holds the names of the state file as it is now (its inode, once the file exists): called
   * after the state was first written, so that a hard link made to it later is refused too.
   */
  holdFile?(): Promise<void>;
}

const POLL_MS = 100;
/** How long a lock's name may go unanswered before its holder counts as unknown (acquireSocketLock). */
const UNANSWERED_GRACE_MS = 3000;

/** A lock file's text, through the door in (a lock is a line; anything else is not one). */
function readLockText(path: string, _encoding: 'utf8'): string {
  return readTextSyncBounded(path, { maxBytes: 4096 });
}

function readHolder(lockPath: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readLockText(lockPath, 'utf8')) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string')
      return {
        pid: parsed.pid,
        host: parsed.host,
        since: String(parsed.since ?? '?'),
        ...(typeof parsed.what === 'string' ? { what: parsed.what } : {}),
      };
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
  const content = readLockText(aside, 'utf8');
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

/** The state file cannot be locked where it is: its directory is missing, or is no directory. */
function unusableState(statePath: string, err: unknown): UserError {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? `its directory ${dirname(statePath)} does not exist`
      : code === 'ENOTDIR'
        ? `${dirname(statePath)} is not a directory`
        : (code ?? (err as Error).message);
  return new UserError('EMULATOR_STATE_LOCK', `cannot use the emulator state file ${statePath}: ${why}`);
}

/** Acquires the lock of `statePath`, waiting as `options.wait` says (not at all by default). */
export async function acquireStateLock(statePath: string, options: LockOptions = {}): Promise<StateLock> {
  const mine: LockHolder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    ...(options.what ? { what: options.what } : {}),
  };
  if (process.platform === 'linux') return acquireSocketLock(statePath, mine, options.wait);
  return acquireFileLock(statePath, mine, options.wait);
}

/**
 * The real path of a state file: every symlink resolved, the file itself when it exists (a
 * symlink to a held state names the same file), else its real directory and its name. Writes
 * go there too, so a link is never replaced by a file (DESIGN.md §8 rev 4).
 */
export function realStatePath(statePath: string): string {
  const absolute = resolvePath(statePath);
  try {
    return realpathSync(absolute);
  } catch {
    // Not there yet: its directory must be.
  }
  try {
    const dir = realpathSync(dirname(absolute));
    // A file where its directory should be (`--state f/x`): named as such, never an internal error later.
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    return resolvePath(dir, basename(absolute));
  } catch (err) {
    throw unusableState(statePath, err);
  }
}

/**
 * The abstract socket names of a state file, every one of which the holder binds: one from its
 * real path, and one from its device and inode when it exists, so that a second emulator on a
 * symlink or a hard link to a held state is refused like one on the same path.
 */
function socketNamesOf(statePath: string): string[] {
  const name = (key: string) =>
    `\0platform-sync-emulator-state-${createHash('sha256').update(key).digest('hex').slice(0, 48)}`;
  const names = [name(realStatePath(statePath))];
  // A path that cannot name a file (a file where a directory should be) has no inode: the open of the state says why.
  let info: ReturnType<typeof statSync> | undefined;
  try {
    info = statSync(statePath, { throwIfNoEntry: false, bigint: true });
  } catch {
    info = undefined;
  }
  // With its birth time: an inode number is reused once its file is gone, and an emulator still
  // holding a deleted file must not lock out the next file that gets its number.
  if (info) names.push(name(`inode:${info.dev}:${info.ino}:${info.birthtimeNs}`));
  return names;
}

function listen(server: Server, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(name, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Asks the holder of an abstract socket who it is (it answers one JSON line); undefined when it does not say in time. */
function askHolder(name: string): Promise<LockHolder | undefined> {
  return new Promise((resolve) => {
    let text = '';
    const socket = createConnection(name);
    const done = (holder: LockHolder | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(holder);
    };
    const timer = setTimeout(() => done(undefined), 1000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 4096) done(undefined);
    });
    socket.on('end', () => done(parseHolder(text)));
    socket.on('error', () => done(undefined));
  });
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<LockHolder>;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string') {
      return {
        pid: parsed.pid,
        host: parsed.host,
        since: String(parsed.since ?? '?'),
        ...(typeof parsed.what === 'string' ? { what: parsed.what } : {}),
      };
    }
  } catch {
    // Not a holder's answer.
  }
  return undefined;
}

/** Binds every name, or none: the first taken name fails the whole (its holder answers for it). */
async function listenAll(names: readonly string[], mine: LockHolder): Promise<Server[]> {
  const servers: Server[] = [];
  try {
    for (const name of names) {
      const server = createServer((socket) => socket.end(`${JSON.stringify(mine)}\n`));
      servers.push(server);
      await listen(server, name).catch((err: NodeJS.ErrnoException) => {
        err.message = name;
        throw err;
      });
    }
    return servers;
  } catch (err) {
    for (const server of servers) server.close();
    throw err;
  }
}

async function acquireSocketLock(statePath: string, mine: LockHolder, wait: LockWait | undefined): Promise<StateLock> {
  const names = socketNamesOf(statePath);
  const deadline = Date.now() + (wait?.timeoutMs ?? 0);
  // A name nobody answers on is most often a holder letting go (its server closing) or one too
  // busy to answer in time: tried again for a moment before it counts as held by someone unknown.
  const unansweredUntil = Date.now() + UNANSWERED_GRACE_MS;
  let told = false;
  for (;;) {
    let servers: Server[];
    try {
      servers = await listenAll(names, mine);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      const name = (err as Error).message;
      const answer = await askHolder(name);
      if (answer === undefined && Date.now() < unansweredUntil) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        continue;
      }
      const holder = answer ?? {
        pid: 0,
        host: 'an unknown host',
        since: 'an unknown time',
        what: 'another process',
      };
      if (Date.now() >= deadline) throw new StateLockedError(statePath, holder);
      if (!told) wait?.onWait?.(holder);
      told = true;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      continue;
    }
    for (const server of servers) server.unref();
    // For people: who holds it, beside the state (the lock itself is the socket).
    const lockPath = `${statePath}.lock`;
    const text = `${JSON.stringify(mine)}\n`;
    try {
      writeFileSync(`${lockPath}.${process.pid}.tmp`, text, { mode: 0o644 });
      renameSync(`${lockPath}.${process.pid}.tmp`, lockPath);
    } catch {
      // Only information: the lock is held either way.
    }
    const held = new Set(names);
    return {
      release() {
        try {
          if (readLockText(lockPath, 'utf8') === text) unlinkSync(lockPath);
        } catch {
          // Gone already.
        }
        for (const server of servers) server.close();
      },
      async holdFile() {
        const more = socketNamesOf(statePath).filter((n) => !held.has(n));
        if (more.length === 0) return;
        try {
          const added = await listenAll(more, mine);
          for (const server of added) server.unref();
          servers.push(...added);
          for (const n of more) held.add(n);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
          throw new StateLockedError(
            statePath,
            (await askHolder((err as Error).message)) ?? {
              pid: 0,
              host: 'an unknown host',
              since: 'an unknown time',
              what: 'another process',
            },
          );
        }
      },
    };
  }
}

/** An empty or unreadable lock file is stale once it is this old (its writer would have written it by then). */
const UNREADABLE_STALE_MS = 2000;

async function acquireFileLock(statePath: string, mine: LockHolder, wait: LockWait | undefined): Promise<StateLock> {
  const lockPath = `${statePath}.lock`;
  const text = `${JSON.stringify(mine)}\n`;
  const deadline = Date.now() + (wait?.timeoutMs ?? 0);
  let told = false;
  for (;;) {
    try {
      // Created with its content at once (a link of a written file): never seen empty.
      const temp = `${lockPath}.${process.pid}.tmp`;
      writeFileSync(temp, text, { mode: 0o644 });
      try {
        linkSync(temp, lockPath);
      } finally {
        unlinkSync(temp);
      }
      return {
        release() {
          // Only our own lock: never one another process took over after us.
          if (readHolder(lockPath)?.pid === mine.pid && readLockText(lockPath, 'utf8') === text) unlinkSync(lockPath);
        },
      };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw unusableState(statePath, err);
    }
    let stale: string;
    try {
      stale = readLockText(lockPath, 'utf8');
    } catch {
      continue; // released in between: try again
    }
    const holder = readHolder(lockPath);
    const unreadableAndOld =
      holder === undefined &&
      Date.now() - (statSync(lockPath, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > UNREADABLE_STALE_MS;
    if ((holder && !isAlive(holder)) || unreadableAndOld) {
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
