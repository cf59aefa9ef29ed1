/**
 * `platform-sync show <paths…> [--format text|json]` (DESIGN.md §5): the uid of every declared
 * resource that exists live — after a bootstrap, what a CI workflow needs to log in as an
 * identity it declared. Read-only; a viewer token is enough. Exit 0, or 1 on any error.
 */
import { Option, type Command } from 'commander';
import { addConnectionOptions, withSession, type ConnectionOptions } from '../shared.js';
import type { CliContext } from '../context.js';

const SHOW_FORMATS = ['text', 'json'] as const;

interface ShowCommandOptions extends ConnectionOptions {
  format: (typeof SHOW_FORMATS)[number];
}

export function registerShowCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('show')
    .description('Print the uid of every declared resource that exists live (e.g. identity uids for CI logins)')
    .argument('<paths...>', 'manifest files or directories')
    .addOption(new Option('--format <format>', 'output format').choices([...SHOW_FORMATS]).default('text'));
  addConnectionOptions(command);
  command.action(async (paths: string[], options: ShowCommandOptions) => {
    const { showDeclared } = await import('../../show.js');
    const { renderShownJson, renderShownText } = await import('../../views/show.js');
    const shown = await withSession(options, ctx, (session) => showDeclared(paths, session.client));
    ctx.output.stdout.write(options.format === 'json' ? renderShownJson(shown) : renderShownText(shown));
  });
}
