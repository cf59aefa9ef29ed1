/**
 * `platform-sync init [DIR] [--org NAME]` (DESIGN.md §5): a starter repository — an org manifest
 * with comments and the schema line, the GitHub workflow, a package.json that depends on this
 * exact version, `.gitignore`, and a README of the next commands — that never overwrites a file
 * and never writes through a symbolic link. And `platform-sync demo`: the guided tour,
 * from the installed package. Exit 0, or 1 on an error.
 */
import { escapeValue } from '../../io/escape.js';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { packageVersion } from '../../io/package-file.js';
import type { CliContext } from '../context.js';

export function registerInitCommand(program: Command, ctx: CliContext): void {
  program
    .command('init')
    .description(
      'Write a starter repository: an org manifest with comments, the GitHub workflow, a package.json pinning this platform-sync, ' +
        '.gitignore and a README of the next commands; never overwrites a file or writes through a link',
    )
    .argument('[dir]', 'where', '.')
    .option('--org <name>', "the org the manifest describes (default: the directory's name, else my-org)")
    .action(async (dir: string, options: { org?: string }) => {
      const { writeStarter } = await import('../../init/starter.js');
      const target = resolve(ctx.cwd, dir);
      const org = options.org ?? defaultOrg(target);
      const result = writeStarter(target, org, ctx.output.redact);
      const out = ctx.output.stdout;
      for (const file of result.written) out.write(`wrote  ${file}\n`);
      for (const file of result.updated)
        out.write(
          `added  ${file.added.join(', ')} to ${file.path} (invite codes, saved plans and emulator state stay out of git)\n`,
        );
      for (const file of result.kept) out.write(`kept   ${file} (it exists: never overwritten)\n`);
      // A link is never written through (DESIGN.md §8 rev 6): where it leads is not said, nor read.
      for (const { path, link } of result.links) {
        const which = link === path ? 'it is' : `${escapeValue(link)} is`;
        const yourself =
          path === '.gitignore'
            ? ' (add .platform-sync/, plan.json and invites*.jsonl to the file it names yourself)'
            : '';
        ctx.output.stderr.write(
          `left   ${escapeValue(path)} alone: ${which} a symbolic link, and init never writes through one${yourself}\n`,
        );
      }
      // A path is printed escaped like a name (a newline in it is one line), quoted when a shell needs it.
      const where = dir === '.' ? '' : `cd ${/^[\w./-]+$/.test(dir) ? dir : JSON.stringify(escapeValue(dir))} && `;
      const install = result.written.includes('package.json')
        ? 'npm install (platform-sync as package.json pins it; commit package-lock.json too)'
        : `npm install --save-exact platform-sync@${packageVersion()}`;
      const commands = [
        'validate manifests/',
        'plan manifests/ --emulator --bootstrap',
        'apply manifests/ --emulator --bootstrap --auto-approve',
      ];
      out.write(
        `\nNext: ${where}${install}, then\n${commands.map((c) => `  npx --no-install platform-sync ${c}\n`).join('')}`,
      );
    });
  program
    .command('demo')
    .description(
      'Run the guided tour: plan, apply, drift, export, renames, members and audit against an embedded emulator, in a temporary directory',
    )
    .action(async () => {
      const { demoMain } = await import('../demo.js');
      ctx.exitCode = await demoMain();
    });
}

/** The directory's name as an org name, when it is one; else my-org. */
function defaultOrg(dir: string): string {
  const name = basename(dir).toLowerCase();
  return /^[a-z0-9][a-z0-9._-]{0,62}$/.test(name) ? name : 'my-org';
}
