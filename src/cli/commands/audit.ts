/**
 * `platform-sync audit <paths…>` (DESIGN.md §7): an access review of the live org and the
 * manifests. Reads only. Exit 0 when no finding is at or above `--fail-on` (default high), 2
 * when one is, 1 on error (set by main.ts). In GitHub Actions the markdown report also goes to
 * `$GITHUB_STEP_SUMMARY`.
 */
import { Option, type Command } from 'commander';
import { UserError } from '../../model/errors.js';
import {
  addConnectionOptions,
  appendStepSummary,
  shouldColor,
  withSession,
  type ConnectionOptions,
} from '../shared.js';
import type { CliContext } from '../context.js';
import type { AuditFormat } from '../../views/audit.js';
import { packageVersion } from '../../io/package-file.js';
import { existsSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';

/** The formats of views/audit.ts (its registry), named here so that the CLI starts without loading it. */
const FORMAT_NAMES: Record<AuditFormat, true> = { text: true, json: true, markdown: true, sarif: true };
const FORMATS = Object.keys(FORMAT_NAMES) as AuditFormat[];
const FAIL_ON = ['low', 'medium', 'high'] as const;
/** Day limits are whole days, at most ten years: a stranger's value cannot overflow a date. */
const MAX_DAYS = 3650;

interface AuditCommandOptions extends ConnectionOptions {
  format: AuditFormat;
  staleDays: string;
  expiryDays: string;
  failOn: (typeof FAIL_ON)[number];
  sarif?: string;
}

function parseDays(value: string, option: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n > MAX_DAYS)
    throw new UserError(
      'OPTION_INVALID',
      `${option} must be a whole number of days from 0 to ${MAX_DAYS}, got "${value}"`,
    );
  return n;
}

export function registerAuditCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('audit')
    .description(
      'Review access: what the live org and the manifests grant that a security review would flag (exit 0 clean, 2 findings at or above --fail-on, 1 error)',
    )
    .argument('<paths...>', 'manifest files or directories')
    .addOption(new Option('--format <format>', 'output format').choices([...FORMATS]).default('text'))
    .option('--stale-days <days>', 'an identity unseen for longer is stale', '90')
    .option('--expiry-days <days>', 'report static keys that expire within this many days', '30')
    .addOption(
      new Option('--fail-on <severity>', 'exit 2 when a finding is at or above this severity')
        .choices([...FAIL_ON])
        .default('high'),
    )
    .option(
      '--sarif <file>',
      'also write the findings as SARIF 2.1.0 to FILE (for github/codeql-action/upload-sarif), whatever --format says',
    );
  addConnectionOptions(command);
  command.action(async (paths: string[], options: AuditCommandOptions) => {
    const staleDays = parseDays(options.staleDays, '--stale-days');
    const expiryDays = parseDays(options.expiryDays, '--expiry-days');
    const { auditFromManifests, failsAt } = await import('../../audit/index.js');
    const views = await import('../../views/audit.js');
    const { report, orgLocation } = await withSession(options, ctx, (session) =>
      auditFromManifests(paths, session.client, { now: Date.now(), staleDays, expiryDays }),
    );
    // Findings on what the manifests leave out point at the org's declaration (code scanning wants a place).
    const sarif = {
      version: packageVersion(),
      baseDir: views.findRepositoryRoot(ctx.cwd, ctx.env, (dir) => existsSync(join(dir, '.git'))),
      cwd: ctx.cwd,
      ...(orgLocation ? { orgLocation } : {}),
    };
    const rendered = views.renderAudit(report, options.format, {
      color: shouldColor(options, ctx.output.stdout, ctx.env),
      sarif,
    });
    if (options.sarif !== undefined)
      ctx.output.writeFile(
        resolvePath(ctx.cwd, options.sarif),
        views.renderAudit(report, 'sarif', { sarif }),
        'the SARIF report',
      );
    ctx.output.stdout.write(rendered);
    appendStepSummary(views.renderMarkdownAudit(report), ctx, 'the access review');
    ctx.exitCode = failsAt(report, options.failOn) ? 2 : 0;
  });
}
