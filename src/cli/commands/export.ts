/**
 * `platform-sync export --org NAME|UID [--out DIR]` (DESIGN.md §5): the live org written as
 * manifests that plan to zero changes — how an existing org is adopted. Exit 0, or 1 on any
 * error (set by main.ts). Without --out the files go to stdout as one multi-document stream.
 */
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import type { ExportedFile } from '../../export/index.js';
import { findManifestSchemaPath } from '../../manifest/index.js';
import { addConnectionOptions, withSession, type ConnectionOptions } from '../shared.js';
import { escapeControl } from '../../views/escape.js';
import type { CliContext } from '../context.js';

interface ExportCommandOptions extends ConnectionOptions {
  org: string;
  out?: string;
  force?: boolean;
  schemaRef?: string;
}

export function registerExportCommand(program: Command, ctx: CliContext): void {
  const { output } = ctx;
  const command = program
    .command('export')
    .description('Write the live org as manifests that plan to zero changes (to adopt an existing org)')
    .requiredOption('--org <name|uid>', 'the org: its root group name, or its 40-hex uid')
    .option(
      '-o, --out <dir>',
      'write org.yaml and one file per top-level group here (default: stdout, one multi-document stream)',
    )
    .option(
      '--force',
      'replace the files of an earlier export in --out (only while unedited; nothing else there is touched)',
    )
    .option(
      '--schema-ref <ref>',
      "what the files' `# yaml-language-server: $schema=` comment points at (default: the project's node_modules/platform-sync schema, else this install's)",
    );
  addConnectionOptions(command);
  command.action(async (options: ExportCommandOptions) => {
    const { exportManifests, readOrgForExport, refuseHeldSecrets, writeExport } = await import('../../export/index.js'); // yaml, on use only (see main.ts)
    const live = await withSession(options, ctx, (session) => readOrgForExport(session.client, options.org));
    const outDir = options.out === undefined ? undefined : resolve(ctx.cwd, options.out);
    const schemaRef = options.schemaRef ?? schemaReferenceFrom(outDir ?? ctx.cwd);
    const files = exportManifests(live, { schemaRef });
    // A secret in a live value is refused, not redacted: a redacted export would not describe the org.
    refuseHeldSecrets(live, files, output.redact);
    if (outDir === undefined) {
      output.stdout.write(joinAsStream(files));
      return;
    }
    writeExport(outDir, files, { force: options.force === true, redact: output.redact });
    for (const f of files) output.stdout.write(`Wrote ${escapeControl(join(options.out!, f.file))}\n`);
    // The hint runs against where the export came from: the embedded emulator too.
    output.stdout.write(
      `Check it: platform-sync plan ${options.out}${options.emulator ? ' --emulator' : ''} (expect no changes)\n`,
    );
  });
}

/** Where a project that installed platform-sync (npm) keeps its schema, from the project root. */
const PROJECT_SCHEMA = join('node_modules', 'platform-sync', 'schemas', 'manifest.schema.json');

/**
 * `$schema` of the exported files, relative to where they go. The files are meant to be
 * committed, so the reference must hold in every checkout: the schema of the project's own
 * `node_modules/platform-sync` when `dir` lies in such a project (nearest one up), else — a
 * global or npx install — the schema of the running install (`--schema-ref` overrides both).
 */
function schemaReferenceFrom(dir: string): string {
  const target = findProjectSchema(dir) ?? findManifestSchemaPath();
  return relative(dir, target).split(sep).join('/');
}

/** The nearest `node_modules/platform-sync` schema at or above `dir` (which need not exist yet). */
function findProjectSchema(dir: string): string | undefined {
  for (let d = resolve(dir); ; d = dirname(d)) {
    const candidate = join(d, PROJECT_SCHEMA);
    if (existsSync(candidate)) return candidate;
    if (dirname(d) === d) return undefined;
  }
}

/** Several files as one YAML stream; the manifest loader reads multi-document files. */
function joinAsStream(files: readonly ExportedFile[]): string {
  return files.map((f, i) => (i === 0 ? f.text : `---\n${f.text}`)).join('');
}
