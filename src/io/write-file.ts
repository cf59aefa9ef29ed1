/**
 * The one writer of files (DESIGN.md §8, issue 52): every file the product writes — saved plans,
 * exports, SARIF reports, the job summary, a starter, the embedded emulator's directory, invite
 * codes — is written here, and nowhere else (test/unit/doors.test.ts); its part for directories,
 * an export's, is src/io/write-directory.ts, re-exported here. Every writer takes the
 * redactor of the door out and applies it (the invite-codes file alone bypasses it: its lines are
 * the secrets); whole files are written atomically (a temporary file beside the target, then a
 * rename), so a crash never leaves half a file. A path that cannot be written is a clear error
 * naming it and why, never a stack trace (DESIGN.md §8 rev 4). (V8's code cache of the bundle is
 * written by src/io/code-cache.ts, the same way — 0600, a temporary name, renamed over — but not
 * through here: V8's bytes, no text of the product's to redact, a failure silent by design, and it
 * runs in the launcher outside the bundle, where importing this module and what it imports cost
 * every run ≈5 ms of CPU, measured when it was tried.)
 */
import { escapeValue } from './escape.js';
import { readLastByteSync } from './read-file.js';
import { crypto } from '../util/lazy-require.js';
import {
  appendFileSync,
  closeSync,
  constants,
  copyFileSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { UserError } from '../model/errors.js';

// The part for directories (an export's), in a file of its own.
export {
  EXPORT_AREA,
  OWN_MARK,
  recoverDirectory,
  recoverIntoDirectory,
  removeOwnDirectory,
  writeDirectory,
  writeIntoDirectory,
  type DirectoryFile,
  type DirectoryWriteOptions,
  type OwnFile,
} from './write-directory.js';

/** What every text passes through before it is written: the door out's redaction (Output.redact). */
export type Redactor = (text: string) => string;

/** Why a path cannot be written, in words. */
export function describeWriteError(err: unknown, path: string): string {
  switch ((err as NodeJS.ErrnoException)?.code) {
    case 'EISDIR':
      return `${path} is a directory; name a file`;
    case 'EBUSY':
      return `${path} is busy (a directory in use, a mount point); name a file`;
    case 'ENOENT':
      return `its directory ${dirname(path)} does not exist`;
    case 'ENOTDIR':
      return `a part of ${path} is a file, not a directory`;
    case 'EEXIST':
      return `${path} exists and is not a directory`;
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return (err as NodeJS.ErrnoException)?.code ?? 'it cannot be written';
  }
}

/**
 * Writes a whole text file, redacted, atomically: a temporary file beside it, renamed over it —
 * or, `exclusive`, linked to its name, so that a file that exists (even one made a moment ago) is
 * never replaced. A file replaced keeps its permission bits (a 0600 file stays 0600); a link at
 * the path is replaced, never written through. A failure is a UserError naming `what`, the path
 * and why; nothing is left behind.
 */
export function writeUserFile(
  path: string,
  text: string,
  what: string,
  options: { redact: Redactor; mode?: number; exclusive?: boolean },
): void {
  let temp: string | undefined;
  try {
    const redacted = options.redact(text);
    const mode = options.mode ?? (options.exclusive ? undefined : regularFileMode(path));
    temp = stageBeside(path, redacted, mode);
    if (options.exclusive) linkOrCreate(temp, path, redacted, mode ?? 0o644);
    else renameSync(temp, path);
  } catch (err) {
    throw new UserError('FILE_WRITE', `cannot write ${what} to ${path}: ${describeWriteError(err, path)}`, {
      cause: err,
    });
  } finally {
    if (temp !== undefined) removeQuietly(temp);
  }
}

/** The permission bits of the regular file at `path`, kept when it is replaced; undefined for none (or a link: what replaces it is a new file). */
function regularFileMode(path: string): number | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return stat?.isFile() ? stat.mode & 0o777 : undefined;
}

/** A name beside `path` that no one else's file has: hidden, with a random part, ending in `kind`. */
function besideName(path: string, kind: string): string {
  return join(dirname(path), `.${basename(path)}.${crypto().randomBytes(6).toString('hex')}.${kind}`);
}

/**
 * Writes `text` to a new temporary file beside `path` and returns its name: with `mode` exactly
 * (the bits of the file it replaces), else a new file's 0644 as the umask leaves it.
 */
function stageBeside(path: string, text: string, mode: number | undefined): string {
  const temp = besideName(path, 'tmp');
  const fd = openSync(temp, 'wx', mode ?? 0o644);
  try {
    writeFileSync(fd, text);
    if (mode !== undefined) fchmodSync(fd, mode);
  } catch (err) {
    closeSync(fd);
    removeQuietly(temp);
    throw err;
  }
  closeSync(fd);
  return temp;
}

/** One file of a set written all or none ({@link writeUserFiles}). */
export interface UserFile {
  path: string;
  text: string;
  /** What the file is, for errors: "the manifest", "the drift report". */
  what: string;
  /** A symbolic link at `path` is refused (a manifest: replacing the link leaves the file it leads to stale, writing through it may leave the repository). */
  refuseLink?: boolean;
}

/** What stood at a target before it was replaced, and how to put it back. */
type Before = { kind: 'none' } | { kind: 'file'; mode: number; kept?: string } | { kind: 'link'; to: string };

/**
 * Writes `files`, redacted, all of them or none (adopt --write's manifests and drift report).
 * Everything that can be checked is checked before the first write: no path twice, each target
 * a regular file or none (a symbolic link refused when `refuseLink`, else replaced, never written
 * through), each text staged in a temporary file beside its target (its directory exists and is
 * writable, the disk has room), each file replaced copied beside it. Only then is each staged
 * file renamed over its target; a rename that fails puts the files renamed before it back. A
 * replaced file keeps its permission bits. A failure is a UserError naming the file and why, and
 * saying that nothing was written — or, when putting back failed too, exactly which files were.
 */
export function writeUserFiles(files: readonly UserFile[], options: { redact: Redactor }): void {
  const befores = files.map((f, i) => checkTarget(f, files.slice(0, i)));
  const staged: string[] = [];
  let kept: string[] = [];
  const clean = () => [...staged, ...kept].forEach(removeQuietly);
  let at = 0;
  try {
    for (; at < files.length; at++) {
      const before = befores[at]!;
      staged.push(
        stageBeside(files[at]!.path, options.redact(files[at]!.text), before.kind === 'file' ? before.mode : undefined),
      );
      if (before.kind === 'file') {
        before.kept = keepBeside(files[at]!.path);
        kept.push(before.kept);
      }
    }
  } catch (err) {
    clean();
    throw refused(files[at]!, describeWriteError(err, files[at]!.path), err);
  }
  let renamed = 0;
  try {
    for (; renamed < files.length; renamed++) renameSync(staged[renamed]!, files[renamed]!.path);
  } catch (err) {
    const stuck = putBack(files.slice(0, renamed), befores);
    kept = kept.filter((k) => !stuck.some((s) => s.kept === k)); // the files not put back stay kept, named below
    clean();
    const failed = files[renamed]!;
    if (stuck.length === 0) throw refused(failed, describeWriteError(err, failed.path), err);
    const written = stuck.map(
      (s) => `${s.path}${s.kept === undefined ? '' : ` (the file it replaced kept as ${s.kept})`}`,
    );
    throw new UserError(
      'FILE_WRITE',
      `cannot write ${failed.what} to ${failed.path}: ${describeWriteError(err, failed.path)}; written and not put back: ${written.join(', ')}; every other file is as it was`,
      { cause: err },
    );
  }
  clean();
}

function refused(file: UserFile, why: string, cause?: unknown): UserError {
  return new UserError(
    'FILE_WRITE',
    `cannot write ${file.what} to ${file.path}: ${why}; nothing was written`,
    cause === undefined ? undefined : { cause },
  );
}

/** What stands at `file.path`, checked before any write: a regular file, a link (unless refused) or nothing. */
function checkTarget(file: UserFile, earlier: readonly UserFile[]): Before {
  const twice = earlier.find((e) => resolve(e.path) === resolve(file.path));
  if (twice !== undefined) throw refused(file, `${twice.what} is written there too`);
  let stat: Stats | undefined;
  try {
    stat = lstatSync(file.path, { throwIfNoEntry: false });
  } catch (err) {
    throw refused(file, describeWriteError(err, file.path), err);
  }
  if (stat === undefined) return { kind: 'none' };
  if (stat.isSymbolicLink()) {
    if (file.refuseLink)
      throw refused(
        file,
        'it is a symbolic link, which is neither replaced nor written through; name the file it leads to',
      );
    return { kind: 'link', to: readlinkSync(file.path) };
  }
  if (stat.isDirectory()) throw refused(file, `${file.path} is a directory; name a file`);
  if (!stat.isFile()) throw refused(file, 'it is not a regular file');
  return { kind: 'file', mode: stat.mode & 0o777 };
}

/**
 * A copy of the file at `path` beside it (its bits kept), to put it back by: a copy, not a hard
 * link, because a link to another user's file in a sticky directory (/tmp) cannot be removed again.
 */
function keepBeside(path: string): string {
  const kept = besideName(path, 'orig');
  copyFileSync(path, kept, constants.COPYFILE_EXCL);
  return kept;
}

/** Puts back what stood at each of `files` (renamed over already); returns those it could not, with where the replaced file is kept. */
function putBack(files: readonly UserFile[], befores: readonly Before[]): Array<{ path: string; kept?: string }> {
  const stuck: Array<{ path: string; kept?: string }> = [];
  files.forEach((file, i) => {
    const before = befores[i]!;
    try {
      if (before.kind === 'none') rmSync(file.path, { force: true });
      else if (before.kind === 'file') renameSync(before.kept!, file.path);
      else {
        const temp = besideName(file.path, 'tmp');
        symlinkSync(before.to, temp);
        renameSync(temp, file.path);
      }
    } catch {
      stuck.push(before.kind === 'file' ? { path: file.path, kept: before.kept! } : { path: file.path });
    }
  });
  return stuck;
}

/** Removes a temporary file of this run's if it is there; a path that cannot hold one (a file in the way: ENOTDIR) has none to remove. */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // nothing was made there
  }
}

/**
 * Gives `temp` the name `path` unless a file has it (EEXIST). A file system without hard links
 * (EPERM, ENOTSUP, ENOSYS) gets an exclusive create instead: the same guarantee, without the
 * atomic rename of the content.
 */
function linkOrCreate(temp: string, path: string, text: string, mode: number): void {
  try {
    linkSync(temp, path);
  } catch (err) {
    if (!['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    writeFileSync(path, text, { flag: 'wx', mode });
  }
}

/** Appends redacted text to a file (the job summary, the Action's outputs); a failure is a UserError naming `what`. */
export function appendUserFile(path: string, text: string, what: string, redact: Redactor): void {
  try {
    appendFileSync(path, redact(text));
  } catch (err) {
    throw new UserError('FILE_WRITE', `cannot append ${what} to ${path}: ${describeWriteError(err, path)}`, {
      cause: err,
    });
  }
}

/**
 * Appends redacted text to the end of a file that exists (init's lines at the end of a user's
 * .gitignore): the bytes already there are not read, decoded or rewritten. A symbolic link put at
 * the path is refused (O_NOFOLLOW: ELOOP), never written through. A failure is a UserError naming
 * `what`, the path and why.
 */
export function appendToExistingFile(path: string, text: string, what: string, redact: Redactor): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0));
    writeWhole(fd, Buffer.from(redact(text), 'utf8'));
  } catch (err) {
    const why =
      (err as NodeJS.ErrnoException).code === 'ELOOP' ? `${path} is a symbolic link` : describeWriteError(err, path);
    throw new UserError('FILE_WRITE', `cannot append ${what} to ${path}: ${why}`, { cause: err });
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Makes a directory (and its parents); a failure is a UserError naming `what`, the path and why. */
export function makeUserDirectory(dir: string, what: string): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new UserError('FILE_WRITE', `cannot make ${what} ${dir}: ${describeWriteError(err, dir)}`, { cause: err });
  }
}

/** Removes a directory this run made and left empty of anything worth keeping (best effort: it is never an error). */
export function removeUserDirectory(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    // left behind: harmless
  }
}

/** A file of secrets the operator asked for, appended to line by line (see openSecretFile). */
export interface SecretFile {
  /** Appends one line and makes it durable before returning: a secret written is a secret kept. */
  appendLine(line: string): void;
  close(): void;
}

/**
 * Writes all of `bytes`: a write the system cuts short without an error (a file-size limit, a
 * disk filling up) is written on, and one that writes nothing is an error, not a kept line.
 */
function writeWhole(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) {
    const written = writeSync(fd, bytes, at);
    if (written <= 0) throw Object.assign(new Error('the write was cut short'), { code: 'EIO' });
    at += written;
  }
}

/** Cuts the file back to `size` (what it held before a line that failed); whether that worked. */
function takeBack(fd: number, size: number): boolean {
  try {
    ftruncateSync(fd, size);
    return true;
  } catch {
    return false;
  }
}

/**
 * Opens the one file a secret may be written to (`apply --invite-codes FILE`, DESIGN.md §4): a
 * regular file, never followed through a symlink, created 0600 (an existing one is made 0600),
 * appended to a whole line at a time. Its lines bypass redaction on purpose — they are the
 * secrets — so nothing else may be written through it. Opened before the first request: a path that cannot be written is
 * a clear error and changes nothing.
 */
export function openSecretFile(path: string, what: string): SecretFile {
  // Opened before the first request: whatever goes wrong here, nothing was changed yet.
  const refuse = (why: string, cause?: unknown) =>
    new UserError(
      'FILE_WRITE',
      `cannot write ${what} to ${escapeValue(path)}: ${why}. Nothing was changed.`,
      cause === undefined ? undefined : { cause },
    );
  let fd: number;
  let cutShort = false;
  try {
    fd = openSync(
      path,
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o600,
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    throw refuse(code === 'ELOOP' ? 'it is a symbolic link; name the file itself' : describeWriteError(err, path), err);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw refuse('it is not a regular file');
    // Owned by whoever runs apply (DESIGN.md §8 rev 5): another user's file — one that user could
    // read, or a planted one — never receives a code.
    const uid = process.getuid?.();
    if (uid !== undefined && stat.uid !== uid)
      throw refuse(`it belongs to another user (uid ${stat.uid}, not ${uid}); name a file of your own`);
    fchmodSync(fd, 0o600);
    // A line an earlier run was killed in the middle of is ended with the first line written
    // (not before: an apply that keeps no code leaves the file as it was), so that line is one of
    // its own.
    cutShort = stat.size > 0 && readLastByteSync(fd, stat.size) !== 0x0a;
  } catch (err) {
    closeSync(fd);
    if (err instanceof UserError) throw err;
    throw refuse(describeWriteError(err, path), err);
  }
  return {
    appendLine(line) {
      const bytes = Buffer.from(`${cutShort ? '\n' : ''}${line}\n`, 'utf8');
      let before: number | undefined;
      try {
        before = fstatSync(fd).size;
        writeWhole(fd, bytes);
        fsyncSync(fd);
        cutShort = false;
      } catch (err) {
        // The file holds whole lines only (DESIGN.md §8 rev 5): a part of this one is taken back.
        const kept = before !== undefined && takeBack(fd, before);
        throw new UserError(
          'FILE_WRITE',
          `cannot write ${what} to ${escapeValue(path)}: ${describeWriteError(err, path)}${kept ? '' : '; a part of the line may be left at its end'}`,
          { cause: err },
        );
      }
    },
    close() {
      closeSync(fd);
    },
  };
}
