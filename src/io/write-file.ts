/**
 * The one writer of files (DESIGN.md §8, issue 52): every file the product writes — saved plans,
 * exports, SARIF reports, the job summary, a starter, the embedded emulator's directory, invite
 * codes — is written here, and nowhere else (test/unit/doors.test.ts). Every writer takes the
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
import { crypto } from '../util/lazy-require.js';
import {
  appendFileSync,
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../model/errors.js';

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
 * never replaced. A failure is a UserError naming `what`, the path and why; nothing is left behind.
 */
export function writeUserFile(
  path: string,
  text: string,
  what: string,
  options: { redact: Redactor; mode?: number; exclusive?: boolean },
): void {
  const temp = join(dirname(path), `.${basename(path)}.${crypto().randomBytes(6).toString('hex')}.tmp`);
  const mode = options.mode ?? 0o644;
  try {
    const redacted = options.redact(text);
    writeFileSync(temp, redacted, { flag: 'wx', mode });
    if (options.exclusive) linkOrCreate(temp, path, redacted, mode);
    else renameSync(temp, path);
  } catch (err) {
    throw new UserError('FILE_WRITE', `cannot write ${what} to ${path}: ${describeWriteError(err, path)}`, {
      cause: err,
    });
  } finally {
    removeQuietly(temp);
  }
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

/** One file of a directory written whole: its name (no directory part) and its text. */
export interface DirectoryFile {
  file: string;
  text: string;
}

/** How a directory is written: the door's redaction, and the error for a path that cannot be written. */
export interface DirectoryWriteOptions {
  redact: Redactor;
  unwritable: (path: string, err: unknown) => Error;
}

/**
 * Writes `files`, redacted, as the new directory `outDir` — all of them or none: they are staged
 * in a directory beside it (one file system, so the move is a rename), then `outDir` is made by
 * one rename. `unwritable` makes the error for a path that cannot be written.
 */
export function writeDirectory(outDir: string, files: readonly DirectoryFile[], options: DirectoryWriteOptions): void {
  const parent = dirname(outDir);
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
    renameSync(stage, outDir);
  } catch (err) {
    throw options.unwritable(outDir, err);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

/**
 * Clears what an interrupted {@link writeDirectory} left beside `outDir` (its parent's `entries`):
 * staging directories are removed; a directory an older version set aside to swap it for a new
 * export is put back when `outDir` is missing (else, the swap finished, it is removed).
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
  for (const entry of entries)
    if (entry.startsWith(`.${name}.export-`)) rmSync(join(parent, entry), { recursive: true, force: true });
}

/** The prefix of the directories a write into a directory keeps inside it while it runs (its stage, and the old files set aside). */
export const EXPORT_AREA = '.platform-sync-export-';
const JOURNAL = '.journal';

/**
 * Writes `files`, redacted, into the existing directory `outDir`, replacing the entries named in
 * `replace` (the caller's own files: those not among `files` are removed) and touching nothing
 * else — all or none. The files are staged in a directory inside `outDir`; a journal (the names
 * about to be placed) is written before any move; the files to replace are moved aside, the new
 * ones linked in (never over an entry that appeared meanwhile); removing the journal is the
 * commit. Cut short, {@link recoverIntoDirectory} undoes it; failing, it is undone here.
 */
export function writeIntoDirectory(
  outDir: string,
  files: readonly DirectoryFile[],
  replace: readonly string[],
  options: DirectoryWriteOptions,
): void {
  let area: string;
  try {
    area = mkdtempSync(join(outDir, EXPORT_AREA));
  } catch (err) {
    throw options.unwritable(outDir, err);
  }
  const stage = join(area, 'stage');
  const aside = join(area, 'aside');
  const moved: string[] = [];
  const placed: string[] = [];
  try {
    mkdirSync(stage);
    mkdirSync(aside);
    for (const f of files) writeFileSync(join(stage, f.file), options.redact(f.text), { flag: 'wx', mode: 0o644 });
    writeFileSync(join(area, `${JOURNAL}.tmp`), JSON.stringify({ place: files.map((f) => f.file), replace }), {
      flag: 'wx',
      mode: 0o600,
    });
    renameSync(join(area, `${JOURNAL}.tmp`), join(area, JOURNAL));
    for (const name of replace) {
      renameSync(join(outDir, name), join(aside, name));
      moved.push(name);
    }
    for (const f of files) {
      linkOrRename(join(stage, f.file), join(outDir, f.file));
      placed.push(f.file);
    }
    rmSync(join(area, JOURNAL)); // the commit
  } catch (err) {
    // Undone: the files placed taken out, the ones set aside put back.
    for (const name of placed) rmSync(join(outDir, name), { force: true });
    for (const name of moved) renameSync(join(aside, name), join(outDir, name));
    rmSync(area, { recursive: true, force: true });
    throw options.unwritable(outDir, err);
  }
  rmSync(area, { recursive: true, force: true });
}

/** Gives `from` the name `to` unless an entry has it (EEXIST); a file system without hard links gets a rename after the check. */
function linkOrRename(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (err) {
    if (!['EPERM', 'ENOTSUP', 'ENOSYS', 'EOPNOTSUPP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
    renameSync(from, to);
  }
}

/**
 * Undoes a {@link writeIntoDirectory} of `outDir` cut short (its area `areaName`, the files it
 * set aside `asideEntries`; `journal` the names it was placing and replacing, undefined when it has none): without a
 * journal it finished (or never moved anything) and the area is removed; with one, the files it
 * placed — only those still its own (`own`) — are taken out and the ones set aside put back, never
 * over an entry there (one changed since the cut: an error naming it, nothing changed).
 */
export function recoverIntoDirectory(
  outDir: string,
  areaName: string,
  journal: { place: readonly string[]; replace: readonly string[] } | undefined,
  asideEntries: readonly string[],
  own: (name: string) => boolean,
): void {
  const area = join(outDir, areaName);
  if (journal !== undefined) {
    // A name it replaces holds its new file only once the old one is aside (the moves aside all come first).
    const placedMaybe = journal.place.filter((name) => !journal.replace.includes(name) || asideEntries.includes(name));
    const placed = placedMaybe.filter(own);
    const changed = asideEntries.find((name) => !placed.includes(name) && entryThere(join(outDir, name)));
    if (changed !== undefined) {
      const kept = `kept as ${escapeValue(join(area, 'aside', changed))}`;
      const why = `changed since an export into ${escapeValue(outDir)} was cut short, which had set aside the file it replaced there (${kept})`;
      throw new UserError(
        'EXPORT_WOULD_OVERWRITE',
        `${escapeValue(join(outDir, changed))}: ${why}; move one of them away and export again; nothing was changed`,
      );
    }
    for (const name of placed) rmSync(join(outDir, name), { force: true });
    for (const name of asideEntries) linkOrRename(join(area, 'aside', name), join(outDir, name));
  }
  rmSync(area, { recursive: true, force: true });
}

/** Whether an entry (a file, a directory, a link even when dangling) has this name. */
function entryThere(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
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
  const refuse = (why: string, cause?: unknown) =>
    new UserError(
      'FILE_WRITE',
      `cannot write ${what} to ${escapeValue(path)}: ${why}. Nothing was changed.`,
      cause === undefined ? undefined : { cause },
    );
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
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
        throw new UserError('FILE_WRITE', `cannot write ${what} to ${path}: ${describeWriteError(err, path)}`, {
          cause: err,
        });
      }
    },
    close() {
      closeSync(fd);
    },
  };
}
