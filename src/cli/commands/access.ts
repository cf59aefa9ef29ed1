/**
 * `platform-sync access <paths…> [--identity ADDR|UID] [--email E] [--as CLAIMS] [--scope GROUP]
 * [--capability CAP] [--live]` (DESIGN.md §5): effective access — of the org as the manifests
 * would make it, or as it is (`--live`) — each answer with the grant that gives it. A name that
 * does not exist is an error with did-you-mean, never an empty answer. Read-only. Exit 0, or 1.
 */
import { Option, type Command } from 'commander';
import { addConnectionOptions, withSession, type ConnectionOptions } from '../shared.js';
import type { CliContext } from '../context.js';
import type { AccessFormat } from '../../views/access-report.js';
import { UserError } from '../../model/errors.js';

/** The formats of views/access-report.ts (its registry), named here so that the CLI starts without loading it. */
const FORMAT_NAMES: Record<AccessFormat, true> = { text: true, json: true };
const ACCESS_FORMATS = Object.keys(FORMAT_NAMES) as AccessFormat[];

interface AccessCommandOptions extends ConnectionOptions {
  identity?: string;
  email?: string;
  as?: string;
  scope?: string;
  capability?: string;
  live?: boolean;
  format: AccessFormat;
}

export function registerAccessCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('access')
    .description(
      'Show effective access as the manifests would make it (--live: as it is): who can do what where, and the grant behind it',
    )
    .argument('<paths...>', 'manifest files or directories')
    .option('--identity <address-or-uid>', 'what this identity can do (identity:engineering/ci-bot, or its uid)')
    .option('--email <email>', 'what this person can do: invites to the e-mail and identities that signed in with it')
    .option(
      '--as <claims>',
      `what a token can do: the identities it can act as, and their grants ('{"iss":"…","sub":"…"}')`,
    )
    .option('--scope <group>', 'only grants that reach this group (group:engineering, org)')
    .option('--capability <capability>', 'only this capability (tag.create)')
    .option('--live', 'the org as it is now, not as the manifests would make it')
    .addOption(new Option('--format <format>', 'output format').choices([...ACCESS_FORMATS]).default('text'));
  addConnectionOptions(command);
  command.action(async (paths: string[], options: AccessCommandOptions) => {
    const { accessFromManifests } = await import('../../access-query.js');
    const { parseToken } = await import('../../access/index.js');
    const { renderAccess } = await import('../../views/access-report.js');
    const who = [options.identity, options.email, options.as].filter((x) => x !== undefined).length;
    if (who > 1) throw new UserError('USAGE', 'ask about one principal at a time: --identity, --email or --as');
    if (who === 0 && options.scope === undefined && options.capability === undefined) {
      throw new UserError(
        'USAGE',
        'ask about a principal (--identity, --email, --as) or a group and capability (--scope group:<path> --capability <capability>)',
      );
    }
    // Offline, before connecting: a token that is no JSON is a usage error.
    const token = options.as === undefined ? undefined : parseToken(options.as);
    const query = {
      ...(options.identity !== undefined ? { identity: options.identity } : {}),
      ...(options.email !== undefined ? { email: options.email } : {}),
      ...(token !== undefined ? { as: token } : {}),
      ...(options.scope !== undefined ? { scope: options.scope } : {}),
      ...(options.capability !== undefined ? { capability: options.capability } : {}),
      ...(options.live ? { live: true } : {}),
    };
    const report = await withSession(options, ctx, (session) => accessFromManifests(paths, session.client, query));
    ctx.output.stdout.write(renderAccess(report, options.format));
  });
}
