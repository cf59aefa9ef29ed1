import type { Command } from 'commander';
import { validateManifests } from '../../manifest/index.js';
import { renderValidationReport } from '../../views/validation.js';
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
