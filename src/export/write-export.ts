/**
 * Writing an export to a directory (DESIGN.md §5): all files or none, and never through a link.
 * The files are staged in a fresh directory made for this export (nothing else can be in it,
 * so no write follows a planted symlink), then moved into place by rename — which replaces a
 * directory entry, never writes through it. An entry already at a file's name (a file, a
 * symlink even when dangling) is refused unless `force`.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { listDirectorySync, readFileHeadSync } from '../io/read-file.js';
import { escapeValue } from '../io/escape.js';
import { environmentRedactor } from '../io/redact.js';
import { recoverDirectory, writeDirectory, type Redactor } from '../io/write-file.js';
import { EXPORT_MARK } from './export-manifests.js';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../model/errors.js';
import type { ExportedFile } from './export-manifests.js';

export interface WriteExportOptions {
  /** Replace files (and links) already at the files' names. */
  force?: boolean;
  /** The door out's redaction (the CLI's Output.redact); by default the secrets of the environment (io/redact.ts environmentRedactor). */
  redact?: Redactor;
}

function entryAt(path: string): 'none' | 'directory' | 'link' | 'file' {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'directory' : 'file';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw unwritable(path, err);
  }
}

/** The real path of a link to a directory, else the path as given. */
function realTarget(path: string): string {
  try {
    if (lstatSync(path).isSymbolicLink() && statSync(path).isDirectory()) return realpathSync(path);
  } catch {
    // Missing, or a dangling link: judged below as it is.
  }
  return path;
}

function unwritable(path: string, err: unknown): UserError {
  const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  const hint = reason === 'EEXIST' || reason === 'ENOTDIR' ? ' (a file is in the way of the directory)' : '';
  return new UserError('EXPORT_UNWRITABLE', `cannot write the export to ${path}: ${reason}${hint}; nothing was written`, { cause: err });
}

/** Whether a directory entry is a file an export wrote: a YAML file whose head carries the export's mark. */
function writtenByExport(path: string): boolean {
  if (!/\.ya?ml$/i.test(path) || entryAt(path) !== 'file') return false;
  return readFileHeadSync(path, 4096)?.toString('utf8').includes(EXPORT_MARK) === true;
}

/** Writes every file into `outDir` (created if missing), or none of them. */
export function writeExport(given: string, files: readonly ExportedFile[], options: WriteExportOptions = {}): void {
  // Through the target's real path (DESIGN.md §8 rev 4): a link given as --out leads to a
  // directory, which is then replaced whole like any other, never file by file.
  const outDir = realTarget(given);
  for (const f of files) {
    if (f.file !== basename(f.file) || f.file.startsWith('.')) throw new UserError('EXPORT_UNWRITABLE', `refusing to write the export file name ${JSON.stringify(f.file)}`);
  }
  // What an earlier export left when it was cut short is cleared (and a replaced export put
  // back) before anything is looked at.
  try {
    recoverInterrupted(outDir);
  } catch (err) {
    throw unwritable(outDir, err);
  }
  const dirEntry = entryAt(outDir);
  if (dirEntry === 'file') throw unwritable(outDir, Object.assign(new Error('not a directory'), { code: 'ENOTDIR' }));
  if (dirEntry === 'link') {
    // A link given as --out is the user's own choice; it must lead to a directory.
    try {
      if (!statSync(outDir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    } catch (err) {
      throw unwritable(outDir, err);
    }
  }
  const existing = dirEntry === 'none' ? [] : files.map((f) => ({ path: join(outDir, f.file), entry: entryAt(join(outDir, f.file)) })).filter((e) => e.entry !== 'none');
  const directories = existing.filter((e) => e.entry === 'directory').map((e) => e.path);
  if (directories.length > 0) throw new UserError('EXPORT_WOULD_OVERWRITE', `${directories.join(', ')} ${directories.length === 1 ? 'is a directory' : 'are directories'}; export writes files there`);
  if (existing.length > 0 && !options.force) {
    const named = existing.map((e) => `${e.path}${e.entry === 'link' ? ' (a symlink)' : ''}`);
    throw new UserError('EXPORT_WOULD_OVERWRITE', `${named.join(', ')} already exist${named.length === 1 ? 's' : ''}; export does not overwrite files unless --force`);
  }

  // Over an existing export (--force): the whole directory is replaced, or nothing is. It must
  // hold nothing but what an export wrote (files carrying its header, DESIGN.md §8 rev 5), or the
  // replacement would take someone's other files with it: a hand-written manifest, a values.yml.
  if (dirEntry === 'directory' && options.force) {
    const foreign = listDirectorySync(outDir, { maxEntries: 1_000_000 }).filter((name) => !writtenByExport(join(outDir, name)));
    if (foreign.length > 0) {
      const shown = foreign.slice(0, 5).map((n) => escapeValue(n));
      throw new UserError(
        'EXPORT_WOULD_OVERWRITE',
        `${escapeValue(outDir)} holds files an export did not write (${shown.join(', ')}${foreign.length > 5 ? `, … ${foreign.length} in all` : ''}); export --force replaces only an earlier export, so move them away or export to another directory; nothing was written`,
      );
    }
  }

  // Staged beside the final place, then moved in by renames (the one writer, io/write-file.ts).
  writeDirectory(outDir, files, dirEntry === 'none' ? 'new' : dirEntry === 'directory' ? 'replace' : 'into', { redact: options.redact ?? environmentRedactor(), unwritable });
}

/** Clears what an interrupted export left beside `outDir` (io/write-file.ts recoverDirectory). */
function recoverInterrupted(outDir: string): void {
  let entries: string[];
  try {
    entries = listDirectorySync(dirname(outDir), { maxEntries: 1_000_000 });
  } catch {
    return;
  }
  recoverDirectory(outDir, entries, () => entryAt(outDir) === 'none');
}
