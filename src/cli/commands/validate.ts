import type { Command } from 'commander';
import { validateManifests, type ValidationResult } from '../../manifest/index.js';
import { formatDiagnostic } from '../../model/errors.js';
import { countNoun } from '../../manifest/diagnostics.js';
import type { Output } from '../output.js';
import type { CliContext } from '../context.js';

/**
 * `platform-sync validate <paths…>`: offline schema and semantic checks (DESIGN.md §5).
 * Prints every diagnostic as `file:line:col: message (at /path)` and a count line; exit 0 when
 * valid, 1 otherwise. Reads files only: it never opens a network connection.
 */
export function registerValidateCommand(program: Command, ctx: CliContext): void {
  const { output } = ctx;
  program
    .command('validate')
    .description('Check manifests offline (schema, names, references, settings) and report every problem')
    .argument('<paths...>', 'manifest files or directories (read recursively for .yaml/.yml)')
    .action(async (paths: string[]) => {
      const result = await validateManifests(paths);
      output.stdout.write(renderValidationReport(result, paths));
      ctx.exitCode = result.state ? 0 : 1;
    });
}

/**
 * The report: one line per diagnostic, then `N problems in M files`, `ok: …`, or — when not one
 * file was read (a missing path, a directory without manifests) — `no manifest files found in …`.
 */
function renderValidationReport(result: ValidationResult & { files: string[] }, paths: readonly string[]): string {
  const lines = result.diagnostics.map(formatDiagnostic);
  const files = countNoun(result.files.length, 'file');
  if (result.files.length === 0) {
    lines.push(`no manifest files found in ${paths.join(', ')}`);
  } else if (result.state) {
    lines.push(`ok: ${files}, ${countNoun(result.state.resources.length, 'resource')}, org ${result.state.org.name}`);
  } else {
    lines.push(`${countNoun(result.diagnostics.length, 'problem')} in ${files}`);
  }
  return `${lines.join('\n')}\n`;
}
