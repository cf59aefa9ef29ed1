/**
 * The one writer of files (DESIGN.md §8, issue 52): every file the product writes — saved plans,
 * exports, SARIF reports, the job summary, a starter, the embedded emulator's directory, invite
 * codes — is written here, and nowhere else (test/unit/doors.test.ts). Every writer takes the
 * redactor of the door out and applies it (the invite-codes file alone bypasses it: its lines are
 * the secrets); whole files are written atomically (a temporary file beside the target, then a
 * rename), so a crash never leaves half a file. A path that cannot be written is a clear error
 * naming it and why, never a stack trace (DESIGN.md §8 rev 4).
 */
import { randomBytes } from 'node:crypto';
import { escapeValue } from './escape.js';
import { appendFileSync, chmodSync, closeSync, constants, fchmodSync, fstatSync, fsyncSync, linkSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../model/errors.js';

/** What every text passes through before it is written: the door out's redaction (Output.redact). */
export type Redactor = (text: string) => string;

/** Why a path cannot be written, in words. */
export function describeWriteError(err: unknown, path: string): string {
  switch ((err as NodeJS.ErrnoException)?.code) {
    case 'EISDIR':
      return `${path} is a directory; name a file`;
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
 * never replaced. A failure is a UserError naming `what`, the path and why; nothing is left behind.
 */
export function writeUserFile(path: string, text: string, what: string, options: { redact: Redactor; mode?: number; exclusive?: boolean }): void {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const mode = options.mode ?? 0o644;
  try {
    const redacted = options.redact(text);
    writeFileSync(temp, redacted, { flag: 'wx', mode });
    if (options.exclusive) linkOrCreate(temp, path, redacted, mode);
    else renameSync(temp, path);
  } catch (err) {
    throw new UserError('FILE_WRITE', `cannot write ${what} to ${path}: ${describeWriteError(err, path)}`, { cause: err });
  } finally {
    rmSync(temp, { force: true });
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
    throw new UserError('FILE_WRITE', `cannot append ${what} to ${path}: ${describeWriteError(err, path)}`, { cause: err });
  }
}

/** One file of a directory written whole: its name (no directory part) and its text. */
export interface DirectoryFile {
  file: string;
  text: string;
}

/**
 * Writes `files`, redacted, as the directory `outDir` — all of them or none: they are staged in a
 * directory beside it (one file system, so the moves are renames), then `outDir` is made by one
 * rename (`into: 'new'`), swapped for the old one (`'replace'`: the old one set aside, the new
 * one renamed in, the old one removed), or — for a directory reached through a link — the files
 * are renamed into it (`'into'`). Leftovers of an interrupted write are cleared first, and a
 * directory set aside by a swap cut short is put back (see {@link recoverDirectory}).
 * `unwritable` makes the error for a path that cannot be written.
 */
export function writeDirectory(outDir: string, files: readonly DirectoryFile[], how: 'new' | 'replace' | 'into', options: { redact: Redactor; unwritable: (path: string, err: unknown) => Error }): void {
  const parent = how === 'into' ? outDir : dirname(outDir);
  try {
    mkdirSync(parent, { recursive: true });
  } catch (err) {
    throw options.unwritable(parent, err);
  }
  let stage: string;
  try {
    stage = mkdtempSync(join(parent, `.${basename(outDir)}.export-`));
  } catch (err) {
    throw options.unwritable(parent, err);
  }
  try {
    for (const f of files) writeFileSync(join(stage, f.file), options.redact(f.text), { flag: 'wx', mode: 0o644 });
    chmodSync(stage, 0o755); // mkdtemp makes it private; the result is an ordinary directory
    if (how === 'new') renameSync(stage, outDir);
    else if (how === 'replace') {
      // Cut short between the two renames, the next write puts the old one back (recoverDirectory).
      const aside = `${join(parent, `.${basename(outDir)}.replaced-`)}${process.pid}-${Date.now()}`;
      renameSync(outDir, aside);
      renameSync(stage, outDir);
      rmSync(aside, { recursive: true, force: true });
    } else for (const f of files) renameSync(join(stage, f.file), join(outDir, f.file));
  } catch (err) {
    throw options.unwritable(outDir, err);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Clears what an interrupted {@link writeDirectory} left beside `outDir` (its parent's `entries`):
 * staging directories are removed; a directory set aside by a swap that did not finish is put
 * back when `outDir` is missing (else, the swap finished, it is removed).
 */
export function recoverDirectory(outDir: string, entries: readonly string[], outDirMissing: () => boolean): void {
  const parent = dirname(outDir);
  const name = basename(outDir);
  for (const entry of entries) {
    if (entry.startsWith(`.${name}.replaced-`)) {
      if (outDirMissing()) renameSync(join(parent, entry), outDir);
      else rmSync(join(parent, entry), { recursive: true, force: true });
    }
  }
  for (const entry of entries) if (entry.startsWith(`.${name}.export-`)) rmSync(join(parent, entry), { recursive: true, force: true });
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
 * Opens the one file a secret may be written to (`apply --invite-codes FILE`, DESIGN.md §4): a
 * regular file, never followed through a symlink, created 0600 (an existing one is made 0600),
 * appended to. Its lines bypass redaction on purpose — they are the secrets — so nothing else
 * may be written through it. Opened before the first request: a path that cannot be written is
 * a clear error and changes nothing.
 */
export function openSecretFile(path: string, what: string): SecretFile {
  // Opened before the first request: whatever goes wrong here, nothing was changed yet.
  const refuse = (why: string, cause?: unknown) => new UserError('FILE_WRITE', `cannot write ${what} to ${escapeValue(path)}: ${why}. Nothing was changed.`, cause === undefined ? undefined : { cause });
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
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
    if (uid !== undefined && stat.uid !== uid) throw refuse(`it belongs to another user (uid ${stat.uid}, not ${uid}); name a file of your own`);
    fchmodSync(fd, 0o600);
  } catch (err) {
    closeSync(fd);
    if (err instanceof UserError) throw err;
    throw refuse(describeWriteError(err, path), err);
  }
  return {
    appendLine(line) {
      try {
        writeSync(fd, `${line}\n`);
        fsyncSync(fd);
      } catch (err) {
        throw new UserError('FILE_WRITE', `cannot write ${what} to ${path}: ${describeWriteError(err, path)}`, { cause: err });
      }
    },
    close() {
      closeSync(fd);
    },
  };
}
