/**
 * Where the CLI keeps V8's code cache of its bundle (src/cli/launch.ts compiles with it): files
 * made at run time by the Node that runs the CLI, in a directory of the user's own. Only a
 * shortcut: whatever goes wrong here (no directory, one that is not safe, a file missing, damaged
 * or made by another build, a write that fails) costs the compile it would have saved, never a
 * failure or a message.
 *
 * - **The directory** is `PLATFORM_SYNC_CODE_CACHE_DIR` when set (an absolute path), else none in
 *   CI (`CI` set to anything but `false` or `0`, as GitHub Actions, GitLab CI and most others set
 *   it; or `GITHUB_ACTIONS=true`), else `<os.tmpdir()>/platform-sync-code-cache-<uid>` (tmpdir, as
 *   Node's own compile cache; emptied at a reboot); a relative one is no cache. Not in CI: a job
 *   starts on a fresh machine or with its temporary directory emptied and runs platform-sync once,
 *   so the cache it wrote was never read — and writing it cost a small org's run ≈7% of its CPU
 *   (docs/performance.md) — while on a runner that keeps its files, a job must not run code
 *   another job left (review of issue 61). It is made 0700 when missing and used only when it is
 *   a directory itself (not a symlink), owned by this user and writable by no one else: a stranger
 *   who can write into it could make this process run their code (docs/security.md). No uid
 *   (Windows): no cache. `NODE_DISABLE_COMPILE_CACHE` (Node's own switch) set to anything turns it off.
 * - **A file** is named by the bundle's id, the bundle file's name, Node's version and arch and a
 *   hash of Node's flags (`execArgv`, `NODE_OPTIONS`: V8 refuses a cache made under other flags,
 *   and runs that alternate between two must not overwrite each other's). It holds a line naming
 *   the bundle's id, the file and the CRC-32 of the text compiled (the file in its CommonJS wrapper), a line with
 *   the CRC-32 of the data and how many of the bundle's files the writing run had compiled (a
 *   run that compiles more writes the cache again, src/cli/launch.ts), then V8's data. V8 checks only the length of the text a cache was
 *   made from (a cache of an edited file of the same length ran the edit's code, review of issue
 *   61) and does not checksum the data (damaged data can abort it): a cache of another text, or
 *   whose data does not match, is never handed to V8. Read through the door, bounded; written (0600, never over an existing file) to
 *   a temporary name beside it, then renamed over it: a reader never sees half a file.
 * - **Pruned** when a file is written: the directory's cache files older than 30 days, and all
 *   but the newest {@link MAX_CACHE_FILES} (each build of the bundle has an id of its own).
 */
import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { lazyRequire } from '../util/lazy-require.js';
import { listDirectorySync, readFileSyncBounded } from './read-file.js';

/** What became of a bundle file's code cache: `off` — no cache directory (turned off, or not safe). */
export type CodeCacheState = 'used' | 'rejected' | 'stale' | 'corrupt' | 'none' | 'off';

/** A cache file larger than this is not read (the bundle's largest is ≈0.7 MB). */
export const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/** Cache files kept in the directory at most; the oldest go first. */
export const MAX_CACHE_FILES = 64;
/** Cache files not written for this long are removed. */
export const CACHE_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The names this module gives files: `<id>.<bundle file>.<Node version>.<arch>.<flags>.v8cache`,
 * and `.<that>.<pid>-<time>.tmp` while one is written. Nothing else in the directory is ever removed.
 */
const CACHE_NAME = String.raw`[0-9a-f]{16}\.[\w.-]+\.v\d+\.\d+\.\d+(?:-[\w.]+)?\.\w+\.[0-9a-f]{8}\.v8cache`;
const OWN_FILE = new RegExp(`^(?:${CACHE_NAME}|\\.${CACHE_NAME}\\.\\d+-[0-9a-z]+\\.tmp)$`);

/** How a cache file starts: then the bundle's id and the file's name, on one line. */
const HEADER_TEXT = 'platform-sync code cache ';
const HEADER = Buffer.from(HEADER_TEXT);

/**
 * CRC-32 (zlib's), not sha256: it finds damage (a cut, flipped bits) as surely for the purpose,
 * and node:zlib is loaded by every command that reads a server anyway, where node:crypto costs a
 * run ≈6 ms of CPU to load and ≈2 ms to hash 0.7 MB (docs/performance.md). It is no defence against
 * a hand that writes the file: the directory's checks are (see the header).
 */
const zlib = lazyRequire<typeof import('node:zlib')>('node:zlib');
const crc32 = (data: string | Buffer): string => zlib().crc32(data).toString(16).padStart(8, '0');

/** One bundle file's cache as read: the data only when it checks. */
export interface ReadCache {
  state: 'none' | 'stale' | 'corrupt';
  data?: Buffer;
  /** With the data: how many of the bundle's files the run that wrote it had compiled. */
  files?: number;
}

/** The code cache directory of this process's user. */
export interface CodeCacheStore {
  readonly dir: string;
  /** The cache of bundle file `name` (whose text is `source`) of the bundle `id`; `none` also when it cannot be read. */
  read(id: string, name: string, source: string): ReadCache;
  /** Writes it (silently nothing when that fails), then prunes the directory; `files`: see {@link ReadCache}. */
  write(id: string, name: string, source: string, data: Buffer, files: number): void;
}

/** Whether `dir` is safe to cache code in: a directory itself, this user's, writable by no one else. */
function safeDirectory(dir: string, uid: number): boolean {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  return stat?.isDirectory() === true && stat.uid === uid && (stat.mode & 0o022) === 0;
}

/**
 * The store for this process, or undefined when there is to be no code cache: turned off, no uid
 * (Windows), or a directory that is missing and cannot be made, or is not safe (see the header).
 */
export function openCodeCache(
  env: NodeJS.ProcessEnv = process.env,
  user: { uid?: number } = { uid: process.getuid?.() },
): CodeCacheStore | undefined {
  const uid = user.uid;
  if (uid === undefined || (env.NODE_DISABLE_COMPILE_CACHE ?? '') !== '') return undefined;
  const dir = cacheDirectory(env, uid);
  if (dir === undefined) return undefined;
  try {
    // Not recursive: only the directory itself is made, 0700; its parent must be there.
    if (lstatSync(dir, { throwIfNoEntry: false }) === undefined) mkdirSync(dir, { mode: 0o700 });
    if (!safeDirectory(dir, uid)) return undefined;
  } catch {
    return undefined;
  }
  return storeIn(dir, flagsKey(env));
}

/** Where the cache is (see the header): an absolute path, trailing separators gone; undefined in CI unless asked for, and for a relative one. */
function cacheDirectory(env: NodeJS.ProcessEnv, uid: number): string | undefined {
  const asked = env.PLATFORM_SYNC_CODE_CACHE_DIR ?? '';
  if (asked === '' && inCi(env)) return undefined;
  const dir = asked !== '' ? asked : join(tmpdir(), `platform-sync-code-cache-${uid}`);
  // resolve(): `dir/` would let lstat follow a symlink named `dir`.
  return isAbsolute(dir) ? resolve(dir) : undefined;
}

/** Whether this run is a CI job's (see the header): `CI` as most CI systems set it, or GitHub Actions. */
function inCi(env: NodeJS.ProcessEnv): boolean {
  const ci = (env.CI ?? '').toLowerCase();
  return (ci !== '' && ci !== 'false' && ci !== '0') || env.GITHUB_ACTIONS === 'true';
}

/** A hash of what V8 keys its cache to beyond Node's version: the flags Node was started with. */
function flagsKey(env: NodeJS.ProcessEnv): string {
  return crc32(JSON.stringify([process.execArgv, env.NODE_OPTIONS ?? '']));
}

function storeIn(dir: string, flags: string): CodeCacheStore {
  const fileOf = (id: string, name: string): string =>
    join(dir, `${id.slice(0, 16)}.${name}.${process.version}.${process.arch}.${flags}.v8cache`);
  const headerOf = (id: string, name: string, source: string): Buffer =>
    Buffer.from(`${HEADER_TEXT}${id} ${name} ${crc32(source)}\n`);
  return {
    dir,
    read(id, name, source) {
      let file: Buffer;
      try {
        file = readFileSyncBounded(fileOf(id, name), { maxBytes: MAX_CACHE_BYTES, within: dir });
      } catch {
        return { state: 'none' };
      }
      const header = headerOf(id, name, source);
      if (!file.subarray(0, header.length).equals(header))
        return { state: file.subarray(0, HEADER.length).equals(HEADER) ? 'stale' : 'corrupt' };
      const rest = file.subarray(header.length);
      const end = rest.indexOf(0x0a);
      const data = rest.subarray(end + 1);
      const check =
        end < 0 ? undefined : /^crc32:([0-9a-f]{8}) files:(\d{1,3})$/.exec(rest.subarray(0, end).toString('latin1'));
      if (check === undefined || check === null || check[1] !== crc32(data)) return { state: 'corrupt' };
      return { state: 'none', data, files: Number(check[2]) };
    },
    write(id, name, source, data, files) {
      const path = fileOf(id, name);
      const temp = join(dir, `.${basename(path)}.${process.pid}-${Date.now().toString(36)}.tmp`);
      try {
        const check = Buffer.from(`crc32:${crc32(data)} files:${files}\n`);
        writeFileSync(temp, Buffer.concat([headerOf(id, name, source), check, data]), {
          flag: 'wx',
          mode: 0o600,
        });
        renameSync(temp, path);
      } catch {
        rmSync(temp, { force: true });
      }
      prune(dir);
    },
  };
}

/** Removes this module's files older than {@link CACHE_MAX_AGE_MS}, and all but the newest {@link MAX_CACHE_FILES}. */
function prune(dir: string): void {
  try {
    const now = Date.now();
    const files = listDirectorySync(dir, { maxEntries: 4096 })
      .filter((name) => OWN_FILE.test(name))
      .flatMap((name) => {
        const stat = lstatSync(join(dir, name), { throwIfNoEntry: false });
        return stat?.isFile() ? [{ name, time: stat.mtimeMs }] : [];
      })
      .sort((a, b) => b.time - a.time);
    for (const [i, { name, time }] of files.entries())
      if (i >= MAX_CACHE_FILES || now - time > CACHE_MAX_AGE_MS) rmSync(join(dir, name), { force: true });
  } catch {
    // pruned next time
  }
}
