/** The view of `validate`: every diagnostic as `file:line:col: message (at /path)`, then one count line. */
import type { ValidationResult } from '../manifest/index.js';
import { countNoun } from '../manifest/diagnostics.js';
import { formatDiagnostic } from '../model/errors.js';
import { escapeControl, escapeValue } from './escape.js';

/**
 * The report: one line per diagnostic, then `N problems in M files (K files read)`, `ok: …`, or — when not one
 * file was read (a missing path, a directory without manifests) — `no manifest files found in …`.
 */
export function renderValidationReport(
  result: ValidationResult & { files: string[] },
  paths: readonly string[],
): string {
  // A path is printed escaped like a name (DESIGN.md §8 rev 5): a file name holding a newline is one line.
  const format = (d: (typeof result.diagnostics)[number]) =>
    formatDiagnostic({ ...d, location: { ...d.location, file: escapeValue(d.location.file) } });
  const lines = [
    ...result.diagnostics.map((d) => escapeControl(format(d))),
    ...(result.warnings ?? []).map((d) => escapeControl(`warning: ${format(d)}`)),
  ];
  const files = countNoun(result.files.length, 'file');
  if (result.files.length === 0) {
    lines.push(`no manifest files found in ${paths.map((p) => escapeValue(p)).join(', ')}`);
  } else if (result.state) {
    const members = result.state.members?.length ?? 0;
    lines.push(
      `ok: ${files}, ${countNoun(result.state.resources.length, 'resource')}${members > 0 ? `, ${countNoun(members, 'member')}` : ''}, org ${result.state.org.name}`,
    );
  } else {
    const withProblems = new Set(result.diagnostics.map((d) => d.location.file)).size;
    lines.push(
      `${countNoun(result.diagnostics.length, 'problem')} in ${countNoun(withProblems, 'file')} (${files} read)`,
    );
  }
  return `${lines.join('\n')}\n`;
}
