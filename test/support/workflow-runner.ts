/**
 * A job of a GitHub Actions workflow, run as a runner runs it (for tests of the starter's and
 * the example's workflow): each step's `if:` evaluated as GitHub does (status functions,
 * `hashFiles` seeing only GITHUB_WORKSPACE), `${{ }}` in `with:`, `env:` and `run:`
 * interpolated, `run:` steps executed by bash in the workspace with GITHUB_OUTPUT, RUNNER_TEMP
 * and the other variables a runner sets, step outputs and outcomes kept for later steps.
 *
 * Actions: `actions/checkout` (the workspace is the checkout) and `actions/setup-node` (this
 * Node) do nothing; `actions/upload-artifact` and `actions/download-artifact` copy files to and
 * from the run's artifact store; a local action (`uses: ./path`) is read from its action.yml in
 * the workspace and its step `id: run` (platform-sync's own) runs by bash as the composite
 * would, with `inputs` from `with:` and action.yml's defaults; `<owner>/platform-sync@<sha>` (the
 * old starter's address) is this repository's action.yml. Commands a workflow calls that reach
 * the network (`npm`, `gh`) are stand-ins on PATH that the test provides.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { interpolate, shouldRun, toText, type ExpressionScope, type Value } from './github-expressions.js';
import { CODE_CACHE_ENV } from './own-temp-dir.js';

export interface WorkflowStep {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  env?: Record<string, unknown>;
  with?: Record<string, unknown>;
  if?: string;
}
export interface WorkflowJob {
  if?: string;
  needs?: string | string[];
  env?: Record<string, unknown>;
  steps: WorkflowStep[];
}
export interface Workflow {
  env?: Record<string, unknown>;
  jobs: Record<string, WorkflowJob>;
}

export interface RunnerWorld {
  /** What `actions/checkout` checks out: the repository's files. */
  repository: string;
  /** Where each job's workspace (GITHUB_WORKSPACE, fresh for every job) is made. */
  jobsRoot: string;
  /** The repository platform-sync's action.yml lives in (what `<owner>/platform-sync@<sha>` resolves to). */
  actionRepository: string;
  github: {
    event_name: string;
    ref: string;
    sha: string;
    repository: string;
    run_id: string;
    run_attempt: string;
    event: Value;
    api_url: string;
  };
  vars: Record<string, string>;
  secrets: Record<string, string>;
  /** workflow_dispatch inputs. */
  inputs: Record<string, string>;
  /** Directories put first on PATH (the test's stand-ins for npm and gh). */
  path: string[];
  /** More environment for every process (e.g. what the stand-ins read). */
  env: Record<string, string>;
  /** The run's artifacts: name → directory holding the files uploaded. */
  artifacts: Map<string, string>;
  /** Where artifacts are kept (made by the test, removed by it). */
  artifactStore: string;
}

export interface StepRecord {
  name: string;
  ran: boolean;
  outcome: 'success' | 'failure' | 'skipped';
  outputs: Record<string, string>;
  log: string;
}

export interface JobRecord {
  ran: boolean;
  /** The job's GITHUB_WORKSPACE, left for the test to look at. */
  workspace: string;
  status: 'success' | 'failure';
  steps: StepRecord[];
  outputsOf(id: string): Record<string, string>;
}

type JobWorld = RunnerWorld & { workspace: string };

const PLATFORM_SYNC_REMOTE = /^[\w.-]+\/platform-sync@[0-9a-f]{40}$/;

/** Reads GITHUB_OUTPUT's `name=value` lines and `name<<DELIM … DELIM` blocks. */
function readOutputs(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]!);
      out[heredoc[1]!] = body.join('\n');
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}

function textOf(value: unknown): string {
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : String(value);
}

/** Runs `job` of `workflow` in `world`; `needs` are the records of the jobs it needs. */
export async function runJob(
  workflow: Workflow,
  jobName: string,
  runWorld: RunnerWorld,
  needs: Record<string, JobRecord> = {},
): Promise<JobRecord> {
  const job = workflow.jobs[jobName];
  if (!job) throw new Error(`no job ${jobName}`);
  // Every job runs on a fresh machine: an empty workspace (until checkout) and its own RUNNER_TEMP.
  const world: JobWorld = { ...runWorld, workspace: mkdtempSync(join(runWorld.jobsRoot, `${jobName}-workspace-`)) };
  const temp = mkdtempSync(join(tmpdir(), 'platform-sync-runner-temp-'));
  const steps: StepRecord[] = [];
  const byId: Record<string, StepRecord> = {};
  let status: 'success' | 'failure' = 'success';
  const contexts = (): Record<string, Value> => ({
    github: { ...world.github, workspace: world.workspace, event: world.github.event },
    vars: world.vars,
    secrets: world.secrets,
    inputs: world.inputs,
    env: env(),
    runner: { temp, os: 'Linux', arch: 'X64' },
    steps: Object.fromEntries(
      Object.entries(byId).map(([id, s]) => [id, { outputs: s.outputs, outcome: s.outcome, conclusion: s.outcome }]),
    ),
    needs: Object.fromEntries(Object.entries(needs).map(([n, r]) => [n, { result: r.status }])),
    job: { status },
  });
  const scope = (): ExpressionScope => ({ contexts: contexts(), status, workspace: world.workspace });
  let envCache: Record<string, string> = {};
  const env = (): Record<string, string> => envCache;
  // Workflow then job env, each interpolated once with what is known before the steps.
  for (const block of [workflow.env ?? {}, job.env ?? {}]) {
    for (const [k, v] of Object.entries(block)) envCache = { ...envCache, [k]: interpolate(textOf(v), scope()) };
  }
  try {
    const jobRuns = Object.values(needs).every((r) => r.status === 'success') && shouldRun(job.if, scope());
    if (!jobRuns) return { ran: false, workspace: world.workspace, status: 'success', steps, outputsOf: () => ({}) };
    for (const step of job.steps) {
      const name = step.name ?? step.uses ?? (step.run ?? '').split('\n')[0]!;
      const record: StepRecord = { name, ran: false, outcome: 'skipped', outputs: {}, log: '' };
      steps.push(record);
      if (step.id) byId[step.id] = record;
      if (!shouldRun(step.if, scope())) continue;
      record.ran = true;
      const stepEnv: Record<string, string> = { ...env() };
      for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = interpolate(textOf(v), scope());
      const inputs = Object.fromEntries(
        Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(textOf(v), scope())]),
      );
      let ok: boolean;
      try {
        ok =
          step.run !== undefined
            ? await runScript(interpolate(step.run, scope()), stepEnv, world, temp, record)
            : await runUses(step.uses ?? '', inputs, stepEnv, world, temp, record);
      } catch (err) {
        record.log += `\n${(err as Error).stack ?? String(err)}`;
        ok = false;
      }
      record.outcome = ok ? 'success' : 'failure';
      if (!ok) status = 'failure';
    }
    return { ran: true, workspace: world.workspace, status, steps, outputsOf: (id) => byId[id]?.outputs ?? {} };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** The environment a runner gives every process of a step. */
function processEnv(
  stepEnv: Record<string, string>,
  world: JobWorld,
  temp: string,
  outputFile: string,
): Record<string, string> {
  return {
    PATH: [...world.path, process.env.PATH ?? ''].join(':'),
    HOME: process.env.HOME ?? temp,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: world.workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: join(temp, 'step-summary.md'),
    GITHUB_EVENT_NAME: world.github.event_name,
    GITHUB_EVENT_PATH: join(temp, 'event.json'),
    GITHUB_REF: world.github.ref,
    GITHUB_REF_NAME: world.github.ref.replace(/^refs\/(heads|tags)\//, ''),
    GITHUB_SHA: world.github.sha,
    GITHUB_REPOSITORY: world.github.repository,
    GITHUB_RUN_ID: world.github.run_id,
    GITHUB_RUN_ATTEMPT: world.github.run_attempt,
    GITHUB_API_URL: world.github.api_url,
    RUNNER_TEMP: temp,
    ...CODE_CACHE_ENV,
    ...world.env,
    ...stepEnv,
  };
}

/** Runs a script as the runner's default shell does (bash -e -o pipefail), without blocking this process (an in-process emulator answers meanwhile). */
function bash(script: string, env: Record<string, string>, cwd: string, record: StepRecord): Promise<boolean> {
  return new Promise((resolveRun) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (c: Buffer) => (record.log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (record.log += c.toString()));
    child.on('error', (err) => {
      record.log += String(err);
      resolveRun(false);
    });
    child.on('close', (code) => resolveRun(code === 0));
  });
}

async function runScript(
  script: string,
  stepEnv: Record<string, string>,
  world: JobWorld,
  temp: string,
  record: StepRecord,
): Promise<boolean> {
  const outputFile = join(temp, `output-${record.name.replace(/\W+/g, '-')}`);
  writeFileSync(outputFile, '');
  writeFileSync(join(temp, 'event.json'), JSON.stringify(world.github.event));
  const ok = await bash(script, processEnv(stepEnv, world, temp, outputFile), world.workspace, record);
  record.outputs = readOutputs(outputFile);
  return ok;
}

type Env = Record<string, string>;

async function runUses(
  uses: string,
  inputs: Env,
  stepEnv: Env,
  world: JobWorld,
  temp: string,
  record: StepRecord,
): Promise<boolean> {
  if (/^actions\/checkout@[0-9a-f]{40}$/.test(uses)) {
    cpSync(world.repository, world.workspace, { recursive: true });
    return true;
  }
  if (/^actions\/setup-node@[0-9a-f]{40}$/.test(uses)) return true;
  if (/^actions\/upload-artifact@[0-9a-f]{40}$/.test(uses)) {
    const name = inputs.name ?? 'artifact';
    const path = resolve(world.workspace, inputs.path ?? '');
    if (world.artifacts.has(name)) throw new Error(`an artifact named ${name} exists in this run already`);
    if (inputs.path === undefined || inputs.path === '' || !existsSync(path)) {
      record.log += `No files were found with the provided path: ${inputs.path ?? ''}.`;
      return (inputs['if-no-files-found'] ?? 'warn') !== 'error';
    }
    const dir = join(world.artifactStore, name);
    mkdirSync(dir, { recursive: true });
    cpSync(path, join(dir, basename(path)), { recursive: true });
    world.artifacts.set(name, dir);
    return true;
  }
  if (/^actions\/download-artifact@[0-9a-f]{40}$/.test(uses)) {
    const dir = world.artifacts.get(inputs.name ?? '');
    if (dir === undefined) {
      record.log += `Artifact not found: ${inputs.name ?? ''}`;
      return false;
    }
    const into = resolve(world.workspace, inputs.path ?? '.');
    mkdirSync(into, { recursive: true });
    cpSync(dir, into, { recursive: true });
    return true;
  }
  const actionDir = uses.startsWith('./')
    ? join(world.workspace, uses)
    : PLATFORM_SYNC_REMOTE.test(uses)
      ? world.actionRepository
      : undefined;
  if (actionDir === undefined) throw new Error(`the runner stand-in cannot run ${uses}`);
  if (!existsSync(join(actionDir, 'action.yml'))) {
    record.log += `Can't find 'action.yml' under '${actionDir}'. Did you forget to run actions/checkout (or npm ci)?`;
    return false;
  }
  return runPlatformSyncAction(actionDir, inputs, stepEnv, world, temp, record);
}

/** platform-sync's composite action: its `id: run` step, with the inputs it declares. */
async function runPlatformSyncAction(
  actionDir: string,
  given: Env,
  stepEnv: Env,
  world: JobWorld,
  temp: string,
  record: StepRecord,
): Promise<boolean> {
  const action = parse(readFileSync(join(actionDir, 'action.yml'), 'utf8')) as {
    inputs: Record<string, { default?: string }>;
    outputs: Record<string, { value: string }>;
    runs: { steps: WorkflowStep[] };
  };
  for (const name of Object.keys(given))
    if (!(name in action.inputs)) throw new Error(`the action has no input ${name}`);
  const outputFile = join(temp, `output-${record.name.replace(/\W+/g, '-')}`);
  writeFileSync(outputFile, '');
  writeFileSync(join(temp, 'event.json'), JSON.stringify(world.github.event));
  const base: ExpressionScope = {
    contexts: {
      github: { ...world.github, token: 'gh-token-for-test', workspace: world.workspace },
      runner: { temp },
      inputs: {},
    },
    status: 'success',
    workspace: world.workspace,
  };
  const inputs: Record<string, Value> = {};
  for (const [name, spec] of Object.entries(action.inputs))
    inputs[name] = given[name] ?? interpolate(spec.default ?? '', base);
  const scope: ExpressionScope = { ...base, contexts: { ...base.contexts, inputs } };
  const run = action.runs.steps.find((s) => s.id === 'run');
  if (!run?.run) throw new Error('the action has no step with id run');
  const env: Record<string, string> = { ...stepEnv };
  for (const [k, v] of Object.entries(run.env ?? {})) env[k] = interpolate(textOf(v), scope);
  const ok = await bash(
    interpolate(run.run, scope),
    { ...processEnv(env, world, temp, outputFile), GITHUB_ACTION_PATH: actionDir },
    world.workspace,
    record,
  );
  const stepOutputs = readOutputs(outputFile);
  const outScope: ExpressionScope = {
    ...scope,
    contexts: { ...scope.contexts, steps: { run: { outputs: stepOutputs } } },
  };
  record.outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, spec]) => [name, toText(interpolate(spec.value, outScope))]),
  );
  return ok;
}

/** A file a stand-in command (npm, gh) can be: an executable bash script. */
export function writeStandIn(dir: string, name: string, script: string): void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/bash\nset -eo pipefail\n${script}\n`, { mode: 0o755 });
  if ((statSync(path).mode & 0o111) === 0) throw new Error(`${path} is not executable`);
}
