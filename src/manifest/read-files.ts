/**
 * The I/O edge of manifest loading: which files a set of paths names, and their text.
 * Directories are read recursively for `.yaml`/`.yml` files (hidden entries and `node_modules`
 * skipped — a project's dependencies carry YAML of their own —, symlinked directories followed
 * once); a file named explicitly is read whatever its extension.
 */
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import pLimit from 'p-limit';
import type { Diagnostic } from '../model/errors.js';
import { fileDiagnostic } from './diagnostics.js';
import { formatOversizeMessage } from './parse-documents.js';

export interface ManifestText {
  /** The path as the user gave it (joined with the path inside a given directory). */
  file: string;
  text: string;
}

const MANIFEST_EXTENSION = /\.ya?ml$/i;
/** Never manifests: installed packages (platform-sync's own test fixtures among them). */
const SKIPPED_DIRECTORY = 'node_modules';

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
      if (entry.name.startsWith('.') || entry.name === SKIPPED_DIRECTORY) continue;
      const full = join(dir, entry.name);
      // One bad entry (a broken link, a link loop, no permission) is reported on its own; the rest of the directory is still read.
      try {
        const isDir = entry.isDirectory() || (entry.isSymbolicLink() && (await stat(full).then((s) => s.isDirectory(), () => false)));
        if (isDir) found += await walk(full);
        else if (MANIFEST_EXTENSION.test(entry.name) && (entry.isFile() || entry.isSymbolicLink())) {
          await addFile(full);
          found++;
        }
      } catch (err) {
        diagnostics.push(fileDiagnostic(full, `cannot read: ${describeFsError(err, entry.isSymbolicLink())}`));
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
      diagnostics.push(fileDiagnostic(path, `cannot read: ${describeFsError(err, await isSymbolicLink(path))}`));
    }
  }
  const files = [...byRealPath.values()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { files, diagnostics };
}

/**
 * Reads the files, refusing any over `maxFileBytes` before reading it (so a huge file costs
 * nothing). Unreadable and oversized files become diagnostics.
 */
export async function readManifestFiles(files: readonly string[], maxFileBytes: number, maxTotalBytes = Infinity): Promise<{ texts: ManifestText[]; diagnostics: Diagnostic[] }> {
  // Several files at a time (a big org has hundreds); results keep the files' order.
  const limit = pLimit(READ_CONCURRENCY);
  // The whole set is bounded too (DESIGN.md §8: many files each under the limit add up): sized
  // before any is read, so an oversized set costs nothing but the stats.
  if (Number.isFinite(maxTotalBytes) && files.length > 0) {
    const sizes = await Promise.all(files.map((file) => limit(() => stat(file).then((s) => s.size, () => 0))));
    const total = sizes.reduce((a, b) => a + b, 0);
    if (total > maxTotalBytes) {
      return { texts: [], diagnostics: [fileDiagnostic(files[0]!, `the ${files.length} manifest files add up to ${total} bytes, over the limit of ${maxTotalBytes} bytes for a manifest set (--max-manifest-bytes); nothing was read`)] };
    }
  }
  const read = await Promise.all(files.map((file) => limit(() => readOne(file, maxFileBytes))));
  const texts: ManifestText[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const r of read) {
    if ('text' in r) texts.push(r);
    else diagnostics.push(r.diagnostic);
  }
  return { texts, diagnostics };
}

/** Manifest files read at once: enough to keep the disk busy, far below any open-file limit. */
const READ_CONCURRENCY = 16;

async function readOne(file: string, maxFileBytes: number): Promise<ManifestText | { diagnostic: Diagnostic }> {
  try {
    const { size } = await stat(file);
    if (size > maxFileBytes) return { diagnostic: fileDiagnostic(file, formatOversizeMessage(size, maxFileBytes)) };
    const decoded = decodeManifestBytes(file, await readFile(file));
    return 'text' in decoded ? { file, text: decoded.text } : decoded;
  } catch (err) {
    return { diagnostic: fileDiagnostic(file, `cannot read: ${describeFsError(err)}`) };
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A file's bytes as text, or a diagnostic at the first byte that is not UTF-8 (read loosely, a
 * Latin-1 "é" would become "\uFFFD" and surface later as a baffling "invalid name"). A leading
 * byte order mark is dropped. Pure.
 */
export function decodeManifestBytes(file: string, bytes: Uint8Array): { text: string } | { diagnostic: Diagnostic } {
  try {
    return { text: UTF8.decode(bytes) };
  } catch {
    const offset = Math.min(findInvalidUtf8(bytes), bytes.length - 1);
    const lineStart = bytes.lastIndexOf(0x0a, offset - 1) + 1;
    const line = bytes.subarray(0, lineStart).filter((b) => b === 0x0a).length + 1;
    const column = [...new TextDecoder('utf-8').decode(bytes.subarray(lineStart, offset))].length + 1;
    const byte = bytes[offset]!.toString(16).toUpperCase().padStart(2, '0');
    return {
      diagnostic: {
        location: { file, line, column },
        path: '',
        message: `file is not valid UTF-8 (byte 0x${byte} here is not part of a UTF-8 character; is it Latin-1 or UTF-16?); save it as UTF-8`,
      },
    };
  }
}

/** Index of the first byte that does not start a well-formed UTF-8 sequence (a cut-off sequence at the end included); bytes.length when there is none. */
function findInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const length = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (length === 0) return i;
    try {
      UTF8.decode(bytes.subarray(i, i + length));
    } catch {
      return i;
    }
    i += length;
  }
  return bytes.length;
}

async function isSymbolicLink(path: string): Promise<boolean> {
  return lstat(path).then((s) => s.isSymbolicLink(), () => false);
}

function describeFsError(err: unknown, isLink = false): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return isLink ? 'broken symbolic link (its target does not exist)' : 'no such file or directory';
    case 'ELOOP':
      return 'symbolic link loop (the link leads back to itself)';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return (err as Error)?.message ?? String(err);
  }
}
