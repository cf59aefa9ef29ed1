/**
 * Writing an export to a directory (DESIGN.md §5, §8 rev 6): nothing of the user's lost. An
 * export writes its own files and touches nothing else there, at any depth — a checkout's `.git`,
 * sources, notes, a hand-made copy of an exported file. Each file it writes is sealed: a line
 * under its mark records a hash of the file's name and content, so that `--force` replaces or
 * removes a file of an earlier export only while it is what export wrote; an edited one, or a
 * copy under another name, is the user's (an error naming it, nothing written). An entry already
 * at a file's name (a file, a symlink even when dangling) is refused unless `--force` and sealed.
 * Its own files are replaced all or none (io/write-file.ts writeIntoDirectory), never through a link.
 */
import { createHash } from 'node:crypto';
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { listDirectorySync, readFileHeadSync, readTextSyncBounded } from '../io/read-file.js';
import { escapeValue } from '../io/escape.js';
import { environmentRedactor } from '../io/redact.js';
import {
  EXPORT_AREA,
  recoverDirectory,
  recoverIntoDirectory,
  writeDirectory,
  writeIntoDirectory,
  type Redactor,
} from '../io/write-file.js';
import { EXPORT_MARK } from './export-manifests.js';
import { basename, dirname, join } from 'node:path';
import { UserError } from '../model/errors.js';
import type { ExportedFile } from './export-manifests.js';

export interface WriteExportOptions {
  /** Replace (and remove) the files of an earlier export, while they are as export wrote them. */
  force?: boolean;
  /** The door out's redaction (the CLI's Output.redact); by default the secrets of the environment (io/redact.ts environmentRedactor). */
  redact?: Redactor;
}

/** The seal line under the mark: the hash of the file's name and of its text without this line. */
const SEAL_PREFIX = '# platform-sync export seal';
const SEAL_LINE = /^# platform-sync export seal ([0-9a-f]{64})[^\n]*\n/gm;
/** An export file larger than this is not read back to check its seal (nor is it one an export wrote). */
const MAX_SEALED_BYTES = 256 * 1024 * 1024;

function sealHash(file: string, unsealed: string): string {
  return createHash('sha256').update(`${file}\n`).update(unsealed).digest('hex');
}

/** `text` (already redacted) with its seal line added under the mark line. */
export function sealExportFile(file: string, text: string): string {
  // Under the mark's line (ended, when the text ends there), else on top.
  const mark = text.indexOf(EXPORT_MARK);
  const end = text.indexOf('\n', mark);
  const [head, rest] =
    mark === -1 ? ['', text] : end === -1 ? [`${text}\n`, ''] : [text.slice(0, end + 1), text.slice(end + 1)];
  const line = `${SEAL_PREFIX} ${sealHash(file, head + rest)} (SHA-256 of this file as export wrote it: export --force replaces it only unchanged)\n`;
  return `${head}${line}${rest}`;
}

/** Whether `text`, found under the name `file`, is a sealed export file just as export wrote it (a renamed copy is not). */
export function isSealedExportFile(file: string, text: string): boolean {
  const seals = [...text.matchAll(SEAL_LINE)];
  if (seals.length !== 1 || !text.includes(EXPORT_MARK)) return false;
  const seal = seals[0]!;
  const unsealed = text.slice(0, seal.index) + text.slice(seal.index + seal[0].length);
  return sealHash(file, unsealed) === seal[1];
}

type Entry = 'none' | 'directory' | 'link' | 'file';

function entryAt(path: string): Entry {
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
  const hint = reason === 'ENOTDIR' ? ' (a file is in the way of the directory)' : '';
  return new UserError(
    'EXPORT_UNWRITABLE',
    `cannot write the export to ${path}: ${reason}${hint}; nothing was written`,
    { cause: err },
  );
}

/** What a regular file in the directory is to an export: not marked (the user's), sealed (an export's own), or marked but not as export wrote it. */
function judge(path: string, file: string): 'unmarked' | 'sealed' | 'altered' {
  const head = readFileHeadSync(path, 4096)?.toString('utf8');
  if (head === undefined || !head.includes(EXPORT_MARK)) return 'unmarked';
  try {
    return isSealedExportFile(file, readTextSyncBounded(path, { maxBytes: MAX_SEALED_BYTES, label: path }))
      ? 'sealed'
      : 'altered';
  } catch {
    return 'altered';
  }
}

function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, 5).map((p) => escapeValue(p));
  return `${shown.join(', ')}${paths.length > 5 ? `, … ${paths.length} in all` : ''}`;
}

/** Writes every file into `outDir` (created if missing), or none of them; nothing else there is touched. */
export function writeExport(given: string, files: readonly ExportedFile[], options: WriteExportOptions = {}): void {
  // Through the target's real path (DESIGN.md §8 rev 4): a link given as --out leads to a directory.
  const outDir = realTarget(given);
  const names = new Set<string>();
  for (const f of files) {
    if (f.file !== basename(f.file) || f.file.startsWith('.'))
      throw new UserError('EXPORT_UNWRITABLE', `refusing to write the export file name ${JSON.stringify(f.file)}`);
    if (names.has(f.file))
      throw new UserError(
        'EXPORT_UNWRITABLE',
        `refusing to write the export file name ${JSON.stringify(f.file)} twice`,
      );
    names.add(f.file);
  }
  // A file the redaction would change is refused, not written redacted: it would no longer
  // describe live (DESIGN.md §4), and the seal must hold for the text on disk.
  const redact = options.redact ?? environmentRedactor();
  const holding = files.filter((f) => redact(f.text) !== f.text).map((f) => f.file);
  if (holding.length > 0)
    throw new UserError(
      'EXPORT_HOLDS_SECRET',
      `refusing to write the export: ${listed(holding)} would hold a secret this run holds, written only as [REDACTED]; nothing was written`,
    );
  const sealed = files.map((f) => ({ file: f.file, text: sealExportFile(f.file, f.text) }));
  // What an earlier export left when it was cut short is cleared (its own files put back) before anything is looked at.
  try {
    recoverInterrupted(outDir);
  } catch (err) {
    throw err instanceof UserError ? err : unwritable(outDir, err);
  }
  const dirEntry = entryAt(outDir);
  if (dirEntry === 'file') throw unwritable(outDir, Object.assign(new Error('not a directory'), { code: 'ENOTDIR' }));
  if (dirEntry === 'link') {
    // A link left here is a dangling one, or one to a file: not a directory to write into.
    throw new UserError(
      'EXPORT_UNWRITABLE',
      `cannot write the export to ${outDir}: it is a symbolic link that leads to no directory; nothing was written`,
    );
  }
  const keepAll: Redactor = (text) => text; // checked above: redaction changes nothing
  if (dirEntry === 'none') {
    writeDirectory(outDir, sealed, { redact: keepAll, unwritable });
    return;
  }

  const existing = files
    .map((f) => ({ file: f.file, path: join(outDir, f.file), entry: entryAt(join(outDir, f.file)) }))
    .filter((e) => e.entry !== 'none');
  const directories = existing.filter((e) => e.entry === 'directory').map((e) => e.path);
  if (directories.length > 0)
    throw new UserError(
      'EXPORT_WOULD_OVERWRITE',
      `${directories.join(', ')} ${directories.length === 1 ? 'is a directory' : 'are directories'}; export writes files there`,
    );
  if (existing.length > 0 && !options.force) {
    const named = existing.map((e) => `${e.path}${e.entry === 'link' ? ' (a symlink)' : ''}`);
    const verb = named.length === 1 ? 'exists' : 'exist';
    throw new UserError(
      'EXPORT_WOULD_OVERWRITE',
      `${named.join(', ')} already ${verb}; export does not overwrite files unless --force; nothing was written`,
    );
  }
  const replace: string[] = [];
  if (options.force) {
    // --force: the files of an earlier export go (replaced, or removed when this export has no such
    // file) only while they are as export wrote them; anything else at a name it writes, and any
    // marked file that was edited or copied, is the user's: refused, naming it, before any write.
    const notOurs = existing.filter((e) => e.entry === 'link').map((e) => `${e.path} (a symlink)`);
    const altered: string[] = [];
    for (const name of listDirectorySync(outDir, { maxEntries: 1_000_000 })) {
      const path = join(outDir, name);
      if (name.startsWith('.') || !/\.ya?ml$/i.test(name) || entryAt(path) !== 'file') continue;
      const verdict = judge(path, name);
      if (verdict === 'sealed') replace.push(name);
      else if (verdict === 'altered') altered.push(path);
      else if (names.has(name)) notOurs.push(path);
    }
    if (notOurs.length > 0) {
      const them = notOurs.length === 1 ? 'it' : 'them';
      const why = `not written by an export; export --force replaces only the files of an earlier export, so move ${them} away or export to another directory`;
      throw new UserError('EXPORT_WOULD_OVERWRITE', `${listed(notOurs)}: ${why}; nothing was written`);
    }
    if (altered.length > 0) {
      const [it, is] = altered.length === 1 ? ['it', 'is'] : ['them', 'are'];
      const why = `${is} marked as an export's but not as export wrote ${it} (edited, or copied under another name): yours, so export --force leaves ${it}`;
      throw new UserError(
        'EXPORT_WOULD_OVERWRITE',
        `${listed(altered)}: ${why}; move ${it} away or remove the mark; nothing was written`,
      );
    }
  }
  writeIntoDirectory(outDir, sealed, replace, { redact: keepAll, unwritable });
}

/** Clears what an interrupted export left beside `outDir` and inside it, as far as it is export's own (io/write-file.ts recoverDirectory, recoverIntoDirectory). */
function recoverInterrupted(outDir: string): void {
  let beside: string[] = [];
  try {
    beside = listDirectorySync(dirname(outDir), { maxEntries: 1_000_000 });
  } catch {
    // A parent that cannot be listed holds nothing an export left there.
  }
  recoverDirectory(outDir, beside, sealedFile);
  if (entryAt(outDir) !== 'directory') return;
  const inside = listDirectorySync(outDir, { maxEntries: 1_000_000 }).filter((n) => n.startsWith(EXPORT_AREA));
  for (const area of inside) {
    const path = join(outDir, area);
    if (entryAt(path) !== 'directory') continue;
    const journal = readJournal(join(path, '.journal'));
    // What it set aside is put back only while sealed: a file export replaced is always one.
    const aside =
      entryAt(join(path, 'aside')) === 'directory'
        ? listDirectorySync(join(path, 'aside'), { maxEntries: 1_000_000 }).filter((name) =>
            sealedFile(join(path, 'aside', name), name),
          )
        : [];
    recoverIntoDirectory(outDir, area, journal, aside, sealedFile);
  }
}

/** Whether the regular file at `path` is an export's file, sealed under `name` as export wrote it. */
function sealedFile(path: string, name: string): boolean {
  return entryAt(path) === 'file' && judge(path, name) === 'sealed';
}

/** The journal of an area: the names it was placing and replacing, each a plain name export writes; undefined when missing, garbled or naming anything else. */
function readJournal(path: string): { place: string[]; replace: string[] } | undefined {
  let parsed: { place?: unknown; replace?: unknown } | null;
  try {
    parsed = JSON.parse(readTextSyncBounded(path, { maxBytes: 64 * 1024 * 1024 }));
  } catch {
    return undefined; // none (the export finished, or never moved anything), or garbled: nothing to undo
  }
  const names = (list: unknown): list is string[] =>
    Array.isArray(list) && list.every((n) => typeof n === 'string' && n === basename(n) && !n.startsWith('.'));
  const place = parsed?.place;
  const replace = parsed?.replace;
  return names(place) && names(replace) ? { place, replace } : undefined;
}
