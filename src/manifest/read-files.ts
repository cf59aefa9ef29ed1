/**
 * The I/O edge of manifest loading: which files a set of paths names, and their text.
 * Directories are read recursively for `.yaml`/`.yml` files (hidden entries and `node_modules`
 * skipped — a project's dependencies carry YAML of their own —, symlinked directories followed
 * once); a file named explicitly is read whatever its extension.
 */
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import pLimit from 'p-limit';
import type { Diagnostic } from '../model/errors.js';
import { FileReadError, isSymbolicLink, pathKind, readFileBounded, walkFiles } from '../io/read-file.js';
import { fileDiagnostic } from './diagnostics.js';
import { formatOversizeMessage } from './parse-documents.js';

export interface ManifestText {
  /** The path as the user gave it (joined with the path inside a given directory). */
  file: string;
  text: string;
}

/** The manifest files of a set of paths, each with the directory named on the command line that confines it. */
export interface ManifestFileList {
  files: string[];
  /** For each file: the directory it must stay inside (DESIGN.md §8 rev 4). */
  roots: ReadonlyMap<string, string>;
  diagnostics: Diagnostic[];
}

const MANIFEST_EXTENSION = /\.ya?ml$/i;
/** Never manifests: installed packages (platform-sync's own test fixtures among them). */
const SKIPPED_DIRECTORY = 'node_modules';
/** Entries a manifest walk visits before it stops: far above any org, far below a whole file system. */
export const MAX_WALK_ENTRIES = 200_000;

/**
 * Lists the manifest files the paths name: sorted by displayed name, each real file once. A
 * directory is walked through the door in (src/io/read-file.ts): a symlink is followed only when
 * it stays inside the directory named; a file named itself is confined to its own directory.
 */
export async function listManifestFiles(paths: readonly string[]): Promise<ManifestFileList> {
  const diagnostics: Diagnostic[] = [];
  const roots = new Map<string, string>();
  const seen = new Set<string>();
  const add = (file: string, root: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    roots.set(file, root);
  };
  for (const path of paths) {
    const kind = pathKind(path);
    if (kind === 'directory') {
      try {
        const walked = await walkFiles(path, {
          maxEntries: MAX_WALK_ENTRIES,
          accept: (name) => MANIFEST_EXTENSION.test(name),
          skip: (name) => name.startsWith('.') || name === SKIPPED_DIRECTORY,
        });
        for (const problem of walked.problems)
          diagnostics.push(fileDiagnostic(problem.path, describeReadError(problem)));
        for (const file of walked.files) add(file, path);
        if (walked.files.length === 0 && walked.problems.length === 0)
          diagnostics.push(fileDiagnostic(path, 'no .yaml or .yml files in this directory; expected manifest files'));
      } catch (err) {
        diagnostics.push(
          fileDiagnostic(
            path,
            err instanceof FileReadError
              ? err.reason
              : `cannot read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
          ),
        );
      }
    } else if (kind === 'missing') {
      diagnostics.push(
        fileDiagnostic(
          path,
          `cannot read: ${(await isSymbolicLink(path)) ? 'broken symbolic link (its target does not exist)' : 'no such file or directory'}`,
        ),
      );
    } else add(path, dirname(path));
  }
  const files = [...roots.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { files, roots, diagnostics };
}

/**
 * Reads the files through the door in, each bounded by the bytes it really holds (a device or a
 * FIFO is refused before a byte is read), the set bounded by the bytes read in all. Unreadable,
 * oversized and confined-out files become diagnostics that never quote the file.
 */
export async function readManifestFiles(
  listed: Pick<ManifestFileList, 'files' | 'roots'>,
  maxFileBytes: number,
  maxTotalBytes = Infinity,
): Promise<{ texts: ManifestText[]; diagnostics: Diagnostic[] }> {
  // Several files at a time (a big org has hundreds); results keep the files' order.
  const limit = pLimit(READ_CONCURRENCY);
  const overSet = (what: string) => ({
    texts: [],
    diagnostics: [
      fileDiagnostic(
        listed.files[0]!,
        `the ${listed.files.length} manifest files add up to ${what}, over the limit of ${maxTotalBytes} bytes for a manifest set (--max-manifest-bytes); nothing was read`,
      ),
    ],
  });
  // Sized before any is read, so an ordinary oversized set costs nothing but the stats; the
  // bytes really read are counted too (a device says 0).
  if (Number.isFinite(maxTotalBytes) && listed.files.length > 0) {
    const sizes = await Promise.all(
      listed.files.map((file) =>
        limit(() =>
          stat(file).then(
            (s) => s.size,
            () => 0,
          ),
        ),
      ),
    );
    const sized = sizes.reduce((a, b) => a + b, 0);
    if (sized > maxTotalBytes) return overSet(`${sized} bytes`);
  }
  let total = 0;
  let overTotal = false;
  const read = await Promise.all(
    listed.files.map((file) =>
      limit(async () => {
        if (overTotal) return undefined;
        const r = await readOne(file, listed.roots.get(file) ?? dirname(file), maxFileBytes);
        if ('text' in r) {
          total += r.bytes;
          if (total > maxTotalBytes) overTotal = true;
        }
        return r;
      }),
    ),
  );
  if (overTotal) return overSet('more bytes than that');
  const texts: ManifestText[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const r of read) {
    if (r === undefined) continue;
    if ('text' in r) texts.push({ file: r.file, text: r.text });
    else diagnostics.push(r.diagnostic);
  }
  return { texts, diagnostics };
}

/** Manifest files read at once: enough to keep the disk busy, far below any open-file limit. */
const READ_CONCURRENCY = 16;

async function readOne(
  file: string,
  root: string,
  maxFileBytes: number,
): Promise<(ManifestText & { bytes: number }) | { diagnostic: Diagnostic }> {
  try {
    const bytes = await readFileBounded(file, { maxBytes: maxFileBytes, within: root });
    const decoded = decodeManifestBytes(file, bytes);
    return 'text' in decoded ? { file, text: decoded.text, bytes: bytes.length } : decoded;
  } catch (err) {
    if (err instanceof FileReadError) {
      return {
        diagnostic: fileDiagnostic(
          file,
          err.code === 'too-large' ? await oversizeMessage(file, maxFileBytes) : describeReadError(err),
        ),
      };
    }
    throw err;
  }
}

/** A refusal of the door says what it refused; a file system error says it could not read. */
function describeReadError(err: FileReadError): string {
  return err.code === 'outside' || err.code === 'not-regular' || err.code === 'too-many-entries'
    ? err.reason
    : `cannot read: ${err.reason}`;
}

/** The size of a regular file over the limit, as its stat says (a device never gets here). */
async function oversizeMessage(file: string, maxFileBytes: number): Promise<string> {
  const size = await stat(file).then(
    (s) => s.size,
    () => 0,
  );
  return size > maxFileBytes
    ? formatOversizeMessage(size, maxFileBytes)
    : `file is over the limit of ${maxFileBytes} bytes; split it into several manifest files`;
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
    const length =
      b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
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
