/** The view of `validate`: every diagnostic as `file:line:col: message (at /path)`, then one count line. */
import type { ValidationResult } from '../manifest/index.js';
import { countNoun } from '../manifest/diagnostics.js';
import { formatDiagnostic } from '../model/errors.js';
import { escapeControl } from './escape.js';

/**
 * The report: one line per diagnostic, then `N problems in M files (K files read)`, `ok: …`, or — when not one
 * file was read (a missing path, a directory without manifests) — `no manifest files found in …`.
 */
export function renderValidationReport(result: ValidationResult & { files: string[] }, paths: readonly string[]): string {
  const lines = [...result.diagnostics.map((d) => escapeControl(formatDiagnostic(d))), ...(result.warnings ?? []).map((d) => escapeControl(`warning: ${formatDiagnostic(d)}`))];
  const files = countNoun(result.files.length, 'file');
  if (result.files.length === 0) {
    lines.push(escapeControl(`no manifest files found in ${paths.join(', ')}`));
  } else if (result.state) {
    const members = result.state.members?.length ?? 0;
    lines.push(`ok: ${files}, ${countNoun(result.state.resources.length, 'resource')}${members > 0 ? `, ${countNoun(members, 'member')}` : ''}, org ${result.state.org.name}`);
  } else {
    const withProblems = new Set(result.diagnostics.map((d) => d.location.file)).size;
    lines.push(`${countNoun(result.diagnostics.length, 'problem')} in ${countNoun(withProblems, 'file')} (${files} read)`);
  }
  return `${lines.join('\n')}\n`;
}
