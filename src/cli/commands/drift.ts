/**
 * `platform-sync drift <paths…>` (DESIGN.md §5): plan, reported as drift. Exit 0 in sync,
 * 2 drift, 1 error (set by main.ts). In GitHub Actions the markdown report is also appended
 * to `$GITHUB_STEP_SUMMARY`, so a nightly job shows it on its summary page.
 */
import { appendFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { describeDrift, describeRefusedDrift, DRIFT_REFUSAL_RULES, renderJsonDrift, renderMarkdownDrift, renderMarkdownDriftFailure, renderTextDrift, type DriftReport } from '../../drift/index.js';
import { loadManifests } from '../../manifest/index.js';
import { UnsafePlanError, UserError } from '../../model/errors.js';
import type { LiveState } from '../../model/resources.js';
import { roleRefAddress } from '../../plan/references.js';
import type { ApiClient } from '../../api/types.js';
import { planFromManifests } from '../../pipeline.js';
import { renderMarkdownPlan } from '../../render/index.js';
import { addConnectionOptions, shouldColor, withSession, type ConnectionOptions } from '../shared.js';
import type { Output } from '../output.js';

const DRIFT_FORMATS = ['text', 'json', 'markdown'] as const;
type DriftFormat = (typeof DRIFT_FORMATS)[number];

interface DriftCommandOptions extends ConnectionOptions {
  format: DriftFormat;
}

const DRIFT_EXIT = { inSync: 0, drift: 2 } as const;

export function registerDriftCommand(program: Command, output: Output): void {
  const command = program
    .command('drift')
    .description('Report how live state drifted from the manifests (exit 0 in sync, 2 drift, 1 error)')
    .argument('<paths...>', 'manifest files or directories')
    .addOption(new Option('--format <format>', 'output format').choices([...DRIFT_FORMATS]).default('text'));
  addConnectionOptions(command);
  command.action(async (paths: string[], options: DriftCommandOptions) => {
    let drift: Awaited<ReturnType<typeof readDrift>>;
    try {
      drift = await withSession(options, output, (session) => readDrift(paths, session.client));
    } catch (err) {
      // A failed nightly job still says why on its summary page; the error itself (and exit 1)
      // is main.ts's to report.
      appendStepSummary(renderMarkdownDriftFailure(describeFailure(err)), output);
      throw err;
    }
    const { report, planMarkdown } = drift;
    const rendered =
      options.format === 'json'
        ? renderJsonDrift(report)
        : options.format === 'markdown'
          ? renderMarkdownDrift(report, { planMarkdown })
          : renderTextDrift(report, { color: shouldColor(options, output.stdout) });
    output.stdout.write(rendered);
    appendStepSummary(renderMarkdownDrift(report, { planMarkdown }), output);
    process.exitCode = report.inSync ? DRIFT_EXIT.inSync : DRIFT_EXIT.drift;
  });
}

/** Why drift failed, in one line for the job summary (the full message goes to stderr). */
function describeFailure(err: unknown): string {
  const message = err instanceof UserError ? err.message : `internal error: ${(err as Error)?.message ?? String(err)}`;
  return message.split('\n').find((l) => l.trim() !== '') ?? 'unknown error';
}

/**
 * Plans and reads the plan as drift. Drift never applies, so the mass-delete rail is lifted
 * (a hundred identities created by hand is drift to report, not a plan to refuse); refusals
 * caused by the drift itself are reported as drift, the others stay errors.
 */
async function readDrift(paths: string[], client: ApiClient): Promise<{ report: DriftReport; planMarkdown?: string }> {
  try {
    const { plan, live } = await planFromManifests(paths, client, { allowMassDelete: true });
    return { report: describeDrift(plan, { addressOfUid: indexAddressesByUid(live) }), planMarkdown: renderMarkdownPlan(plan) };
  } catch (err) {
    if (err instanceof UnsafePlanError && err.refusals.every((r) => DRIFT_REFUSAL_RULES.has(r.rule))) {
      const desired = await loadManifests(paths);
      return { report: describeRefusedDrift({ name: desired.org.name }, err.refusals) };
    }
    throw err;
  }
}

/** Names what a uid in live state is: a resource of the org, or a built-in role. */
function indexAddressesByUid(live: LiveState): (uid: string) => string | undefined {
  const byUid = new Map(live.resources.map((r) => [r.uid, r.address]));
  for (const [name, uid] of Object.entries(live.builtinRoles)) byUid.set(uid, roleRefAddress({ builtin: name }));
  return (uid) => byUid.get(uid);
}

/**
 * Appends markdown to `$GITHUB_STEP_SUMMARY` when GitHub Actions set it, redacted like all
 * output. The job summary is a copy: when it cannot be written, a warning says so and the exit
 * code still tells drift from no drift (or failure), which is what a cron job acts on.
 */
function appendStepSummary(markdown: string, output: Output): void {
  const summaryPath = process.env.GITHUB_STEP_SUMMARY;
  if (!summaryPath) return;
  try {
    appendFileSync(summaryPath, `${output.redact(markdown)}\n`);
  } catch (err) {
    output.stderr.write(
      `Warning: cannot append the drift report to $GITHUB_STEP_SUMMARY (${summaryPath}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; the report above is complete.\n`,
    );
  }
}
