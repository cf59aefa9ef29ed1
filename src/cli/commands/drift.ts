/**
 * `platform-sync drift <paths…>` (DESIGN.md §5): plan, reported as drift. Exit 0 in sync,
 * 2 drift, 1 error (set by main.ts). In GitHub Actions the markdown report is also appended
 * to `$GITHUB_STEP_SUMMARY`, so a nightly job shows it on its summary page.
 */
import { Option, type Command } from 'commander';
import { detectDrift, type DriftResult } from '../../drift/index.js';
import {
  DRIFT_FORMATS,
  renderDrift,
  renderMarkdownDrift,
  renderMarkdownDriftFailure,
  type DriftFormat,
} from '../../views/drift.js';
import { UserError } from '../../model/errors.js';
import { renderMarkdownPlan } from '../../views/plan.js';
import {
  addConnectionOptions,
  appendStepSummary,
  shouldColor,
  withSession,
  type ConnectionOptions,
} from '../shared.js';
import type { CliContext } from '../context.js';

interface DriftCommandOptions extends ConnectionOptions {
  format: DriftFormat;
}

const DRIFT_EXIT = { inSync: 0, drift: 2 } as const;

export function registerDriftCommand(program: Command, ctx: CliContext): void {
  const { output } = ctx;
  const command = program
    .command('drift')
    .description('Report how live state drifted from the manifests (exit 0 in sync, 2 drift, 1 error)')
    .argument('<paths...>', 'manifest files or directories')
    .addOption(new Option('--format <format>', 'output format').choices([...DRIFT_FORMATS]).default('text'));
  addConnectionOptions(command);
  command.action(async (paths: string[], options: DriftCommandOptions) => {
    let drift: DriftResult;
    try {
      drift = await withSession(options, ctx, (session) => detectDrift(paths, session.client));
    } catch (err) {
      // A failed nightly job still says why on its summary page; the error itself (and exit 1)
      // is main.ts's to report.
      appendStepSummary(renderMarkdownDriftFailure(describeFailure(err)), ctx, 'the drift report');
      throw err;
    }
    const { report } = drift;
    const planMarkdown = renderMarkdownPlan(drift.plan);
    output.stdout.write(
      renderDrift(report, options.format, { color: shouldColor(options, output.stdout, ctx.env), planMarkdown }),
    );
    appendStepSummary(renderMarkdownDrift(report, { planMarkdown }), ctx, 'the drift report');
    ctx.exitCode = report.inSync ? DRIFT_EXIT.inSync : DRIFT_EXIT.drift;
  });
}

/** Why drift failed, whole (every problem of invalid manifests), for the job summary. */
function describeFailure(err: unknown): string {
  const message = err instanceof UserError ? err.message : `internal error: ${(err as Error)?.message ?? String(err)}`;
  return message.trim() === '' ? 'unknown error' : message.replace(/^\s*\n/, '');
}
