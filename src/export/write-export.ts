/**
 * Writing an export to a directory (DESIGN.md §5): all files or none, and never through a link.
 * The files are staged in a fresh directory made for this export (nothing else can be in it,
 * so no write follows a planted symlink), then moved into place by rename — which replaces a
 * directory entry, never writes through it. An entry already at a file's name (a file, a
 * symlink even when dangling) is refused unless `force`.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../model/errors.js';
import type { ExportedFile } from './export-manifests.js';

export interface WriteExportOptions {
  /** Replace files (and links) already at the files' names. */
  force?: boolean;
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

function unwritable(path: string, err: unknown): UserError {
  const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  const hint = reason === 'EEXIST' || reason === 'ENOTDIR' ? ' (a file is in the way of the directory)' : '';
  return new UserError('EXPORT_UNWRITABLE', `cannot write the export to ${path}: ${reason}${hint}; nothing was written`, { cause: err });
}

/** Writes every file into `outDir` (created if missing), or none of them. */
export function writeExport(outDir: string, files: readonly ExportedFile[], options: WriteExportOptions = {}): void {
  for (const f of files) {
    if (f.file !== basename(f.file) || f.file.startsWith('.')) throw new UserError('EXPORT_UNWRITABLE', `refusing to write the export file name ${JSON.stringify(f.file)}`);
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

  // Stage next to the files' final place, so the moves below are renames within one file system.
  let stageParent = outDir;
  try {
    if (dirEntry === 'none') {
      stageParent = dirname(outDir);
      mkdirSync(stageParent, { recursive: true });
    }
  } catch (err) {
    throw unwritable(stageParent, err);
  }
  let stage: string;
  try {
    stage = mkdtempSync(join(stageParent, `.${basename(outDir)}.export-`));
  } catch (err) {
    throw unwritable(stageParent, err);
  }
  try {
    for (const f of files) writeFileSync(join(stage, f.file), f.text, { flag: 'wx', mode: 0o644 });
    if (dirEntry === 'none') {
      chmodSync(stage, 0o755); // mkdtemp makes it private; the export is an ordinary directory
      renameSync(stage, outDir);
      return;
    }
    for (const f of files) renameSync(join(stage, f.file), join(outDir, f.file));
  } catch (err) {
    throw unwritable(outDir, err);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
