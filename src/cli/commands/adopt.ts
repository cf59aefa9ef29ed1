/**
 * `platform-sync adopt <paths…> [--write] [--into FILE] [--format text|json]` (DESIGN.md §5):
 * drift's other answer — the manifests rewritten to describe live, every other byte kept.
 * It prints the diff and exits 2 when there is one (0 when live matches), and with --write writes
 * the files through the one writer (src/io/write-file.ts), all of them or none; --report FILE keeps
 * the drift report it answers as markdown (the nightly job's pull request body), written with them.
 * 1 on error (main.ts), nothing written.
 */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { addConnectionOptions, withSession, type ConnectionOptions } from '../shared.js';
import type { CliContext } from '../context.js';
import type { UserFile } from '../../io/write-file.js';

const ADOPT_FORMATS = ['text', 'json'] as const;

interface AdoptCommandOptions extends ConnectionOptions {
  format: (typeof ADOPT_FORMATS)[number];
  write?: boolean;
  into?: string;
  report?: string;
}

export function registerAdoptCommand(program: Command, ctx: CliContext): void {
  const { output } = ctx;
  const command = program
    .command('adopt')
    .description(
      "Rewrite the manifests to describe live (drift's other answer): prints the diff; --write writes it (exit 0 no drift, 2 a diff, 1 error)",
    )
    .argument('<paths...>', 'manifest files or directories')
    .option('--write', 'write the rewritten manifests (default: print the diff only)')
    .option(
      '--into <file>',
      'the manifest file (one of those read) that resources made by hand go into (default: the file describing their group)',
    )
    .option('--report <file>', 'also write the drift report this answers, as markdown, to FILE (a pull request body)')
    .addOption(new Option('--format <format>', 'output format').choices([...ADOPT_FORMATS]).default('text'));
  addConnectionOptions(command);
  command.action(async (paths: string[], options: AdoptCommandOptions) => {
    const { adoptDrift } = await import('../../adopt/index.js'); // yaml, on use only (see main.ts)
    const { renderJsonAdopt, renderTextAdopt } = await import('../../views/adopt.js');
    const { renderMarkdownDrift } = await import('../../views/drift.js');
    const { writeUserFiles } = await import('../../io/write-file.js');
    const absolute = paths.map((p) => resolve(ctx.cwd, p));
    const into = options.into === undefined ? undefined : resolve(ctx.cwd, options.into);
    const result = await withSession(options, ctx, (session) =>
      adoptDrift(absolute, session.client, into === undefined ? {} : { into }),
    );
    const written = options.write === true;
    // The manifests and the report all or none (DESIGN.md §5: "1 error, nothing written"): every
    // target is checked and staged before the first is replaced. A manifest that is a link is
    // refused: replacing it would leave the file it leads to stale, and writing through it could
    // reach outside the repository (manifests come from pull requests).
    const files: UserFile[] = written
      ? result.files.map((f) => ({ path: f.file, text: f.after, what: 'the manifest', refuseLink: true }))
      : [];
    if (options.report !== undefined)
      files.push({
        path: resolve(ctx.cwd, options.report),
        text: renderMarkdownDrift(result.drift),
        what: 'the drift report',
      });
    writeUserFiles(files, { redact: output.redact });
    const view = { cwd: ctx.cwd, written };
    output.stdout.write(options.format === 'json' ? renderJsonAdopt(result, view) : renderTextAdopt(result, view));
    ctx.exitCode = result.files.length === 0 ? 0 : 2;
  });
}
