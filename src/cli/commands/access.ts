/**
 * `platform-sync access <paths…> (--identity ADDRESS | --scope GROUP --capability CAP)`
 * (DESIGN.md §5): effective access in the org as the manifests would make it, each answer with
 * the binding that grants it. Read-only; a viewer token is enough. Exit 0, or 1 on any error.
 */
import { Option, type Command } from 'commander';
import { addConnectionOptions, withSession, type ConnectionOptions } from '../shared.js';
import type { CliContext } from '../context.js';

const ACCESS_FORMATS = ['text', 'json'] as const;

interface AccessCommandOptions extends ConnectionOptions {
  identity?: string;
  scope?: string;
  capability?: string;
  format: (typeof ACCESS_FORMATS)[number];
}

export function registerAccessCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('access')
    .description('Show effective access as the manifests would make it: what an identity can do, or who holds a capability on a group')
    .argument('<paths...>', 'manifest files or directories')
    .option('--identity <address>', 'what this identity can do (identity:engineering/ci-bot), with the bindings that grant it')
    .option('--scope <group>', 'with --capability: who holds it on this group (group:engineering, org)')
    .option('--capability <capability>', 'with --scope: the capability asked about (tag.create)')
    .addOption(new Option('--format <format>', 'output format').choices([...ACCESS_FORMATS]).default('text'));
  addConnectionOptions(command);
  command.action(async (paths: string[], options: AccessCommandOptions) => {
    const { accessFromManifests, checkAccessQuery } = await import('../../access/index.js');
    const { renderJsonAccess, renderTextAccess } = await import('../../views/access-report.js');
    const query = { ...(options.identity ? { identity: options.identity } : {}), ...(options.scope ? { scope: options.scope } : {}), ...(options.capability ? { capability: options.capability } : {}) };
    checkAccessQuery(query);
    const report = await withSession(options, ctx, (session) => accessFromManifests(paths, session.client, query));
    ctx.output.stdout.write(options.format === 'json' ? renderJsonAccess(report) : renderTextAccess(report));
  });
}
