import type { Command } from 'commander';
import { validateManifests, type ValidationResult } from '../../manifest/index.js';
import { formatDiagnostic } from '../../model/errors.js';
import { countNoun } from '../../manifest/diagnostics.js';

/**
 * `platform-sync validate <paths…>`: offline schema and semantic checks (DESIGN.md §5).
 * Prints every diagnostic as `file:line:col: message (at /path)` and a count line; exit 0 when
 * valid, 1 otherwise. Reads files only: it never opens a network connection.
 */
export function registerValidateCommand(program: Command): void {
  program
    .command('validate')
    .description('Check manifests offline (schema, names, references, settings) and report every problem')
    .argument('<paths...>', 'manifest files or directories (read recursively for .yaml/.yml)')
    .action(async (paths: string[]) => {
      const result = await validateManifests(paths);
      process.stdout.write(renderValidationReport(result));
      process.exitCode = result.state ? 0 : 1;
    });
}

/** The report: one line per diagnostic, then `N problems in M files` or `ok: …`. */
function renderValidationReport(result: ValidationResult & { files: string[] }): string {
  const lines = result.diagnostics.map(formatDiagnostic);
  const files = countNoun(result.files.length, 'file');
  if (result.state) {
    lines.push(`ok: ${files}, ${countNoun(result.state.resources.length, 'resource')}, org ${result.state.org.name}`);
  } else {
    lines.push(`${countNoun(result.diagnostics.length, 'problem')} in ${files}`);
  }
  return `${lines.join('\n')}\n`;
}
