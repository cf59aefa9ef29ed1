/**
 * `platform-sync plan <paths…>` (DESIGN.md §5): read live state, print the plan, optionally
 * save it for `apply plan.json`. Exit 0; with --detailed-exitcode 0 = no changes, 2 = changes;
 * 1 on any error (set by main.ts).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { planFromManifests, type PlanningOptions } from '../../pipeline.js';
import type { PlanBasis } from '../../model/plan.js';
import { assertSafe } from '../../plan/index.js';
import { planSecretWarnings } from '../../apply/secrets.js';
import { escapeControl, escapeValue } from '../../views/escape.js';
import { PLAN_FORMATS, renderPlan, type PlanFormat } from '../../views/plan.js';
import {
  addConnectionOptions,
  addPlanningOptions,
  planOptionsFrom,
  requirePaths,
  cliSecretSources,
  shouldColor,
  withSession,
  type ConnectionOptions,
  type PlanningCliOptions,
  readProgress,
} from '../shared.js';
import type { CliContext } from '../context.js';

interface PlanCommandOptions extends ConnectionOptions, PlanningCliOptions {
  out?: string;
  /** `--plan-ttl`: how long a saved plan is good for, in ms (default 72 hours). */
  planTtl?: number;
  format: PlanFormat;
  detailedExitcode?: boolean;
}

/** Parses `--plan-ttl`: a number of minutes, hours or days (30m, 72h, 3d), from a minute to 30 days. */
function parsePlanTtl(value: string): number {
  const m = /^(\d{1,6})(m|h|d)$/.exec(value.trim());
  const ms = m ? Number(m[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'm' | 'h' | 'd'] : Number.NaN;
  if (!(ms >= 60_000 && ms <= 30 * 86_400_000))
    throw new InvalidArgumentError('expected a duration such as 30m, 72h or 3d, from 1m to 30d.');
  return ms;
}

/** The planning options a saved plan records (the manifest-reading bounds are not planning). */
function basisOptions(o: PlanningOptions): PlanBasis['options'] {
  const out: PlanBasis['options'] = {};
  if (o.targets !== undefined) out.targets = o.targets;
  if (o.maxDeleteRatio !== undefined) out.maxDeleteRatio = o.maxDeleteRatio;
  if (o.allowMassDelete !== undefined) out.allowMassDelete = o.allowMassDelete;
  if (o.rotateSecrets !== undefined) out.rotateSecrets = o.rotateSecrets;
  if (o.bootstrap !== undefined) out.bootstrap = o.bootstrap;
  if (o.denyNewAccess !== undefined) out.denyNewAccess = o.denyNewAccess;
  if (o.reinvite !== undefined) out.reinvite = o.reinvite;
  return out;
}

/** Exit code of a successful plan: 2 means "there are changes" when the caller asked. */
function planExitCode(steps: number, detailed: boolean | undefined): number {
  return detailed && steps > 0 ? 2 : 0;
}

export function registerPlanCommand(program: Command, ctx: CliContext): void {
  const { output } = ctx;
  const command = program
    .command('plan')
    .description('Show what apply would change to make the org match the manifests')
    .argument('[paths...]', 'manifest files or directories')
    .usage('[options] <paths...>')
    .option('-o, --out <file>', 'save the plan (with fingerprints of what it read) for `apply <file>`')
    .option(
      '--plan-ttl <duration>',
      'with --out: how long the saved plan may be applied (30m, 72h, 3d; at most 30d; default 72h)',
      parsePlanTtl,
    )
    .addOption(new Option('--format <format>', 'output format').choices([...PLAN_FORMATS]).default('text'))
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when there are none');
  addPlanningOptions(command);
  addConnectionOptions(command);
  command.action(async (paths: string[], options: PlanCommandOptions) => {
    requirePaths(paths, options, 'plan');
    const progress = readProgress(ctx);
    const planning = {
      ...planOptionsFrom(options),
      ...(progress.onReadProgress ? { onReadProgress: progress.onReadProgress } : {}),
    };
    const { plan, live, desired, now } = await withSession(options, ctx, (session) =>
      planFromManifests(paths, session.client, planning),
    ).finally(progress.done);
    output.stdout.write(renderPlan(plan, options.format, { color: shouldColor(options, output.stdout, ctx.env) }));
    // A refused plan is shown whole above; the refusal is the error (exit 1), and it is not saved.
    assertSafe(plan);
    // A secret the plan would send is read at apply; plan only warns (DESIGN.md §3 rev 4: plan
    // runs on pull requests, which have no secrets), and never reads a value.
    for (const warning of planSecretWarnings(plan, cliSecretSources(options, ctx)))
      output.stderr.write(`Warning: ${escapeControl(warning)}\n`);
    if (options.out !== undefined) {
      const { savePlan } = await import('../../saved-plan/saved-plan.js'); // ajv, on use only (see main.ts)
      await savePlan(options.out, plan, live, {
        redact: output.redact,
        basis: {
          desired,
          options: {
            ...basisOptions(planning),
            now,
            ...(options.planTtl !== undefined ? { planTtlMs: options.planTtl } : {}),
          },
        },
      });
      // The hint says how to apply it where it was made (the embedded emulator's state is per directory).
      // With --manifests: apply then checks the manifests are still the ones the plan was made from (issue 49).
      const shell = (p: string) => (/^[\w./@:=-]+$/.test(p) ? p : JSON.stringify(escapeValue(p)));
      output.stderr.write(
        `Saved the plan to ${escapeValue(options.out)}; apply exactly this plan with: platform-sync apply ${shell(options.out)} --manifests ${paths.map(shell).join(' ')}${options.emulator ? ' --emulator' : ''}\n`,
      );
    }
    ctx.exitCode = planExitCode(plan.steps.length, options.detailedExitcode);
  });
}
