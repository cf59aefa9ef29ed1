/**
 * The I/O edge of manifest loading: which files a set of paths names, and their text.
 * Directories are read recursively for `.yaml`/`.yml` files (hidden entries skipped, symlinked
 * directories followed once); a file named explicitly is read whatever its extension.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Diagnostic } from '../model/errors.js';
import { fileDiagnostic } from './diagnostics.js';
import { formatOversizeMessage } from './parse-documents.js';

export interface ManifestText {
  /** The path as the user gave it (joined with the path inside a given directory). */
  file: string;
  text: string;
}

const MANIFEST_EXTENSION = /\.ya?ml$/i;

/** Lists the manifest files the paths name: sorted by displayed name, each real file once. */
export async function listManifestFiles(paths: readonly string[]): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const byRealPath = new Map<string, string>();
  const visitedDirs = new Set<string>();

  const addFile = async (file: string) => {
    const real = await realpath(file);
    if (!byRealPath.has(real)) byRealPath.set(real, file);
  };
  const walk = async (dir: string): Promise<number> => {
    const real = await realpath(dir);
    if (visitedDirs.has(real)) return 0;
    visitedDirs.add(real);
    let found = 0;
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = join(dir, entry.name);
      const isDir = entry.isDirectory() || (entry.isSymbolicLink() && (await stat(full).then((s) => s.isDirectory(), () => false)));
      if (isDir) found += await walk(full);
      else if (MANIFEST_EXTENSION.test(entry.name) && (entry.isFile() || entry.isSymbolicLink())) {
        await addFile(full);
        found++;
      }
    }
    return found;
  };

  for (const path of paths) {
    try {
      const info = await stat(path);
      if (info.isDirectory()) {
        if ((await walk(path)) === 0) diagnostics.push(fileDiagnostic(path, 'no .yaml or .yml files in this directory; expected manifest files'));
      } else await addFile(path);
    } catch (err) {
      diagnostics.push(fileDiagnostic(path, `cannot read: ${describeFsError(err)}`));
    }
  }
  const files = [...byRealPath.values()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { files, diagnostics };
}

/**
 * Reads the files, refusing any over `maxFileBytes` before reading it (so a huge file costs
 * nothing). Unreadable and oversized files become diagnostics.
 */
export async function readManifestFiles(files: readonly string[], maxFileBytes: number): Promise<{ texts: ManifestText[]; diagnostics: Diagnostic[] }> {
  const texts: ManifestText[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const file of files) {
    try {
      const { size } = await stat(file);
      if (size > maxFileBytes) {
        diagnostics.push(fileDiagnostic(file, formatOversizeMessage(size, maxFileBytes)));
        continue;
      }
      texts.push({ file, text: await readFile(file, 'utf8') });
    } catch (err) {
      diagnostics.push(fileDiagnostic(file, `cannot read: ${describeFsError(err)}`));
    }
  }
  return { texts, diagnostics };
}

function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return (err as Error)?.message ?? String(err);
  }
}
