/**
 * The one door in (DESIGN.md §8 rev 4, STYLE.md 14): every file the product reads — manifests,
 * secrets, saved plans, the token file, the emulator's state, journal, lock, seed and tokens, the
 * Action's event file, and the package's own schemas — is read here and nowhere else (an
 * architecture test holds it).
 *
 * What the door guarantees, for every caller alike:
 * - **Confined.** With `within`, the file's real path (every symlink followed) must stay inside
 *   the real path of that directory; a link to `.git/config`, `~/.git-credentials`, `/proc/…` or
 *   `/` is refused naming the link, never its target.
 * - **Regular files only**, opened without blocking: a FIFO, a device (`/dev/zero`), a socket or a
 *   directory is refused at once, before a byte is read.
 * - **Bounded by the bytes actually read**, not by what `stat` says (a device says 0).
 * - **No content in errors.** A {@link FileReadError} names the path as given and the reason; it
 *   never quotes the file.
 * - Directory walks ({@link walkFiles}) stop at a bound of entries and never leave the root.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  statSync,
} from 'node:fs';
import { readdir, realpath, lstat, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/** A file the door would not read, or could not; `message` names the path and the reason only. */
export class FileReadError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    /** Stable: `outside` | `not-regular` | `too-large` | `missing` | `denied` | `loop` | `is-directory` | `unreadable` | `too-many-entries`. */
    readonly code: string,
  ) {
    super(`${path}: ${reason}`);
    this.name = 'FileReadError';
  }
}

export interface ReadLimits {
  /** Largest number of bytes accepted; one more byte read is an error. */
  maxBytes: number;
  /** A directory the file's real path must stay inside (its real path is taken). */
  within?: string;
  /** What to call the file in errors (default: the path as given). */
  label?: string;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);
const CHUNK = 64 * 1024;

/** Reads a regular file through the door; throws {@link FileReadError}. */
export function readFileSyncBounded(path: string, limits: ReadLimits): Buffer {
  const label = limits.label ?? path;
  const real = confine(path, limits.within, label);
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    throw fsError(label, err, path);
  }
  try {
    const stats = fstatSync(fd);
    checkRegular(label, stats);
    const chunks: Buffer[] = [];
    let total = 0;
    // The first read asks for what the file says it holds (one that grew, or a size of 0 that is
    // not true, reads on in chunks): most files arrive in one read, returned as it is, not copied.
    let size = Math.max(CHUNK, stats.size);
    for (;;) {
      const buffer = Buffer.allocUnsafe(Math.min(size, limits.maxBytes - total + 1));
      size = CHUNK;
      const n = readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) break;
      total += n;
      if (total > limits.maxBytes) throw tooLarge(label, limits.maxBytes);
      chunks.push(buffer.subarray(0, n));
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } catch (err) {
    if (err instanceof FileReadError) throw err;
    throw fsError(label, err, path);
  } finally {
    closeSync(fd);
  }
}

/**
 * {@link readFileSyncBounded} for async callers. Local files read in well under a millisecond
 * each, so one read path serves both (a second, async loop would be the same guards twice).
 */
export async function readFileBounded(path: string, limits: ReadLimits): Promise<Buffer> {
  return readFileSyncBounded(path, limits);
}

/**
 * Reads a stream (standard input, for an argument given as `-`) through the door: bounded by the
 * bytes read, never quoted in an error. `label` names it in errors (e.g. "standard input").
 */
export async function readStreamBounded(
  stream: NodeJS.ReadableStream,
  limits: { maxBytes: number; label: string },
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buffer.length;
    if (total > limits.maxBytes) throw tooLarge(limits.label, limits.maxBytes);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, total);
}

/** The first `bytes` bytes of a regular file (a peek: what kind of file it is), through the door; undefined when it cannot be read. */
export function readFileHeadSync(path: string, bytes: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(realpathSync(path), OPEN_FLAGS);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer, 0, bytes, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The last byte of the regular file open at `fd`, `size` bytes long (the invite-codes file's: does its last line end?); undefined when empty. */
export function readLastByteSync(fd: number, size: number): number | undefined {
  if (size <= 0) return undefined;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 ? last[0] : undefined;
}

/** Reads UTF-8 text through the door (a file of the product's own, or an operator's). */
export function readTextSyncBounded(path: string, limits: ReadLimits): string {
  return readFileSyncBounded(path, limits).toString('utf8');
}

/** The package's own files (schemas, package.json, the OpenAPI document) are far below this. */
const MAX_PACKAGE_FILE_BYTES = 64 * 1024 * 1024;

/** A file the package ships (found by src/io/package-file.ts), as text, through the door. */
export function readPackageText(path: string): string {
  return readTextSyncBounded(path, { maxBytes: MAX_PACKAGE_FILE_BYTES });
}

/** What a path is, without reading it: `missing` when nothing is there. Links are followed. */
export function pathKind(path: string): 'file' | 'directory' | 'other' | 'missing' {
  try {
    const s = statSync(path);
    return s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other';
  } catch {
    return 'missing';
  }
}

/** The names in a directory (sorted), through the door: bounded, confined like a file. */
export function listDirectorySync(dir: string, limits: { maxEntries: number; within?: string }): string[] {
  const real = confine(dir, limits.within, dir);
  let names: string[];
  try {
    names = readdirSync(real);
  } catch (err) {
    throw fsError(dir, err, dir);
  }
  if (names.length > limits.maxEntries)
    throw new FileReadError(dir, `holds more than ${limits.maxEntries} entries`, 'too-many-entries');
  return names.sort();
}

export interface WalkLimits {
  /** Entries (files and directories) visited before the walk stops with an error. */
  maxEntries: number;
  /** Which file names to return. */
  accept: (name: string) => boolean;
  /** Directory and file names never entered nor returned. */
  skip: (name: string) => boolean;
}

export interface WalkResult {
  /** Files found, as `join(root-as-given, inside)`, each real file once. */
  files: string[];
  /** Entries that could not be followed (a link out of the root, a loop, a device), one each. */
  problems: FileReadError[];
}

/**
 * Walks a directory tree for files, confined to the tree: a symlink (to a file or a directory)
 * is followed only when its real path stays inside the real path of `root`; anything else is a
 * problem naming the link. Each real directory is entered once; the walk stops at `maxEntries`.
 */
export async function walkFiles(root: string, limits: WalkLimits): Promise<WalkResult> {
  const realRoot = await realpath(root);
  const problems: FileReadError[] = [];
  const byReal = new Map<string, string>();
  const entered = new Set<string>();
  let visited = 0;
  const walk = async (dir: string, realDir: string): Promise<void> => {
    if (entered.has(realDir)) return;
    entered.add(realDir);
    const entries = await readdir(realDir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (limits.skip(entry.name)) continue;
      if (++visited > limits.maxEntries)
        throw new FileReadError(
          root,
          `holds more than ${limits.maxEntries} entries; name the manifest directory itself`,
          'too-many-entries',
        );
      const shown = join(dir, entry.name);
      try {
        let real = join(realDir, entry.name);
        let isDir = entry.isDirectory();
        let isFile = entry.isFile();
        if (entry.isSymbolicLink()) {
          real = await realpath(real);
          if (!inside(realRoot, real)) {
            // Said only of a link the walk would have followed: to a manifest name or a directory.
            if (
              limits.accept(entry.name) ||
              (await stat(real).then(
                (s) => s.isDirectory(),
                () => false,
              ))
            )
              problems.push(outside(shown));
            continue;
          }
          const s = await stat(real);
          isDir = s.isDirectory();
          isFile = s.isFile();
          if (!isDir && !isFile && limits.accept(entry.name)) {
            problems.push(notRegular(shown));
            continue;
          }
        }
        if (isDir) await walk(shown, real);
        else if (limits.accept(entry.name)) {
          if (!isFile) problems.push(notRegular(shown));
          else if (!byReal.has(real)) byReal.set(real, shown);
        }
      } catch (err) {
        if (err instanceof FileReadError) throw err;
        problems.push(fsError(shown, err, shown, entry.isSymbolicLink()));
      }
    }
  };
  await walk(root, realRoot);
  return { files: [...byReal.values()], problems };
}

/** Whether a path (as given) is a symbolic link itself. */
export async function isSymbolicLink(path: string): Promise<boolean> {
  return lstat(path).then(
    (s) => s.isSymbolicLink(),
    () => false,
  );
}

/** The real path of a file, after checking it stays inside `within` (when given). */
function confine(path: string, within: string | undefined, label: string): string {
  let resolved: string;
  try {
    resolved = realpathSync(path);
  } catch (err) {
    throw fsError(label, err, path);
  }
  if (within === undefined) return resolved;
  let root: string;
  try {
    root = realpathSync(within);
  } catch (err) {
    throw fsError(within, err, within);
  }
  if (!inside(root, resolved)) throw outside(label);
  return resolved;
}

/** Whether `real` is `root` itself or lies under it (both real paths). */
export function inside(root: string, real: string): boolean {
  if (real === root) return true;
  const rel = relative(root, real);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function outside(label: string): FileReadError {
  // Where it leads is not said: it is outside what was handed over.
  return new FileReadError(
    label,
    'is a symbolic link that leads outside the directory named on the command line; it is not read',
    'outside',
  );
}

function notRegular(label: string): FileReadError {
  return new FileReadError(
    label,
    'is not a regular file (a FIFO, a device, a socket or a directory is never read)',
    'not-regular',
  );
}

function tooLarge(label: string, maxBytes: number): FileReadError {
  return new FileReadError(label, `is larger than the limit of ${maxBytes} bytes; nothing of it was used`, 'too-large');
}

function checkRegular(label: string, s: { isFile(): boolean; isDirectory(): boolean }): void {
  if (s.isDirectory()) throw new FileReadError(label, 'is a directory; expected a file', 'is-directory');
  if (!s.isFile()) throw notRegular(label);
}

function fsError(label: string, err: unknown, path: string, isLink = false): FileReadError {
  const code = (err as NodeJS.ErrnoException)?.code;
  const link =
    isLink ||
    (() => {
      try {
        return lstatSync(path).isSymbolicLink();
      } catch {
        return false;
      }
    })();
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new FileReadError(
        label,
        link ? 'broken symbolic link (its target does not exist)' : 'no such file or directory',
        'missing',
      );
    case 'ELOOP':
      return new FileReadError(label, 'symbolic link loop (the link leads back to itself)', 'loop');
    case 'EACCES':
    case 'EPERM':
      return new FileReadError(label, 'permission denied', 'denied');
    case 'EISDIR':
      return new FileReadError(label, 'is a directory; expected a file', 'is-directory');
    case 'ENXIO':
    case 'EAGAIN':
      return notRegular(label);
    default:
      return new FileReadError(label, `cannot be read (${code ?? 'error'})`, 'unreadable');
  }
}
