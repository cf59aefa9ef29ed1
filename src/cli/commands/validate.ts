import type { Command } from 'commander';
import { validateManifests } from '../../manifest/index.js';
import { renderValidationReport } from '../../views/validation.js';
import type { CliContext } from '../context.js';
import { parseByteCount } from '../parse-options.js';

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
    .option(
      '--max-manifest-bytes <bytes>',
      'refuse a manifest set larger than this, all files together (default 64 MiB)',
    )
    .action(async (paths: string[], options: { maxManifestBytes?: string }) => {
      const result = await validateManifests(
        paths,
        options.maxManifestBytes !== undefined
          ? { maxTotalBytes: parseByteCount(options.maxManifestBytes, '--max-manifest-bytes') }
          : {},
      );
      output.stdout.write(renderValidationReport(result, paths));
      ctx.exitCode = result.state ? 0 : 1;
    });
}
