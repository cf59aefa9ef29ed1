/**
 * Building, ordering and counting diagnostics (STYLE.md §4: report everything, with locations).
 */
import type { Diagnostic } from '../model/errors.js';
import type { SourceLocation } from '../model/resources.js';

/** A path inside a document: object keys and array indexes, outermost first. */
export type Pointer = readonly (string | number)[];

/** `['org', 'groups', 0]` → `/org/groups/0` (JSON Pointer, RFC 6901 escaping). */
export function formatPointer(pointer: Pointer): string {
  return pointer.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** `/org/groups/0` → `['org', 'groups', '0']` (indexes stay strings; the YAML walk reads them). */
export function parsePointer(path: string): string[] {
  if (path === '') return [];
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** `file:line:col`, the way a location appears inside a message ("also declared at …"). */
export function formatLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}:${location.column}`;
}

/** A diagnostic for a whole file (unreadable, too large, empty): it points at 1:1. */
/** A problem of a path as a whole (unreadable, an empty directory): no line or column (0, 0). */
export function fileDiagnostic(file: string, message: string): Diagnostic {
  return { location: { file, line: 0, column: 0 }, path: '', message };
}

/**
 * Orders diagnostics by file (in the given file order), then line, column and message, so that
 * output is stable whatever order the checks ran in. Exact duplicates are dropped.
 */
export function sortDiagnostics(diagnostics: readonly Diagnostic[], fileOrder: readonly string[]): Diagnostic[] {
  const rank = new Map(fileOrder.map((f, i) => [f, i]));
  const fileRank = (f: string) => rank.get(f) ?? fileOrder.length;
  const sorted = [...diagnostics].sort(
    (a, b) =>
      fileRank(a.location.file) - fileRank(b.location.file) ||
      (a.location.file < b.location.file ? -1 : a.location.file > b.location.file ? 1 : 0) ||
      a.location.line - b.location.line ||
      a.location.column - b.location.column ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
  return sorted.filter(
    (d, i) =>
      i === 0 ||
      d.message !== sorted[i - 1]!.message ||
      d.path !== sorted[i - 1]!.path ||
      d.location.line !== sorted[i - 1]!.location.line ||
      d.location.column !== sorted[i - 1]!.location.column ||
      d.location.file !== sorted[i - 1]!.location.file,
  );
}

/** `1 problem` / `3 problems`. */
export function countNoun(n: number, singular: string, plural = `${singular}s`): string {
  return `${n} ${n === 1 ? singular : plural}`;
}
