/**
 * The one writer's part for directories (src/io/write-file.ts re-exports it; DESIGN.md §8): an
 * export's files written as a new directory or into an existing one, all of them or none, and
 * what a write cut short left undone — only as far as it is provably the writer's own (a
 * directory holding its mark, and in it the files the caller vouches for), so that nothing of
 * the user's is deleted or moved, at any depth.
 */
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { escapeValue } from './escape.js';
import { listDirectorySync } from './read-file.js';
import { UserError } from '../model/errors.js';
import type { Redactor } from './write-file.js';

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
 * one rename. The stage holds {@link OWN_MARK} while it is written, so that a stage left by a
 * write cut short is told from a directory of the user's that is named like one.
 * `unwritable` makes the error for a path that cannot be written.
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
    writeFileSync(join(stage, OWN_MARK), '', { flag: 'wx', mode: 0o600 });
    for (const f of files) writeFileSync(join(stage, f.file), options.redact(f.text), { flag: 'wx', mode: 0o644 });
    rmSync(join(stage, OWN_MARK)); // not part of the result (cut short here, the stage is left, unmarked: harmless)
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
 * a staging directory of its name that holds its mark, and in it only the files `own` says it
 * wrote ({@link removeOwnDirectory}). Nothing else there is touched, whatever its name: a
 * directory the user named `.out.export-notes` stays, and so does a `.out.replaced-…` (what an
 * older version set aside to swap an export: kept, not put back — nothing in it says whose it is).
 */
export function recoverDirectory(outDir: string, entries: readonly string[], own: OwnFile): void {
  const prefix = `.${basename(outDir)}.export-`;
  for (const entry of entries) if (entry.startsWith(prefix)) removeOwnDirectory(join(dirname(outDir), entry), own);
}

/** Whether the regular file at `path` (named `name`) is one the caller wrote (for export: sealed as export wrote it). */
export type OwnFile = (path: string, name: string) => boolean;

/** The file that marks a directory as one this writer made to stage a write in: only a marked directory is ever cleared. */
export const OWN_MARK = '.platform-sync-own';

/**
 * Clears `dir`, a directory a write cut short left, as far as it is provably that write's own:
 * only when `dir` is a directory (not a link) holding {@link OWN_MARK}; then the files `own`
 * vouches for, at any depth (never through a link), and the writer's journal are removed, and
 * each directory left empty — the mark last, once nothing else is left. Anything else (a file of
 * the user's, planted or moved there) stays, and so do the directories holding it.
 */
export function removeOwnDirectory(dir: string, own: OwnFile): void {
  if (!isOwnDirectory(dir)) return;
  for (const name of list(dir)) if (name !== OWN_MARK) clearOwn(join(dir, name), name, own);
  if (list(dir).length === 1) {
    rmSync(join(dir, OWN_MARK));
    rmdirSync(dir);
  }
}

/** Whether `dir` is a directory (not a link) holding {@link OWN_MARK}: one this writer made. */
function isOwnDirectory(dir: string): boolean {
  const kind = (path: string) => lstatSync(path, { throwIfNoEntry: false });
  return kind(dir)?.isDirectory() === true && kind(join(dir, OWN_MARK))?.isFile() === true;
}

function list(dir: string): string[] {
  return listDirectorySync(dir, { maxEntries: 1_000_000 });
}

/** Removes the entry at `path` if it is the writer's own: a file `own` vouches for, its journal, or a directory of nothing else. */
function clearOwn(path: string, name: string, own: OwnFile): void {
  const stat = lstatSync(path);
  if (stat.isDirectory()) {
    for (const inner of list(path)) clearOwn(join(path, inner), inner, own);
    if (list(path).length === 0) rmdirSync(path);
  } else if (stat.isFile() && (name === JOURNAL || name === `${JOURNAL}.tmp` || own(path, name))) rmSync(path);
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
    writeFileSync(join(area, OWN_MARK), '', { flag: 'wx', mode: 0o600 }); // first: only a marked area is ever undone
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
 * set aside `asideEntries`; `journal` the names it was placing and replacing, undefined when it
 * has none) — only when the area holds its mark: a directory named like one is the user's and is
 * left whole. Without a journal it finished (or never moved anything); with one, the files it
 * placed — only those still its own (`own`) — are taken out and the ones set aside put back, never
 * over an entry there (one changed since the cut: an error naming it, nothing changed). Then the
 * area is cleared of what is its own ({@link removeOwnDirectory}).
 */
export function recoverIntoDirectory(
  outDir: string,
  areaName: string,
  journal: { place: readonly string[]; replace: readonly string[] } | undefined,
  asideEntries: readonly string[],
  own: OwnFile,
): void {
  const area = join(outDir, areaName);
  if (!isOwnDirectory(area)) return;
  if (journal !== undefined) {
    // A name it replaces holds its new file only once the old one is aside (the moves aside all come first).
    const placedMaybe = journal.place.filter((name) => !journal.replace.includes(name) || asideEntries.includes(name));
    const placed = placedMaybe.filter((name) => own(join(outDir, name), name));
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
  removeOwnDirectory(area, own);
}

/** Whether an entry (a file, a directory, a link even when dangling) has this name. */
function entryThere(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}
