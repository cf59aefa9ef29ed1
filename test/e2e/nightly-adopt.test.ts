/**
 * The starter's nightly adopt job (the `adopt` job of the workflow `init` writes, from
 * examples/github-actions/platform-sync.yml; DESIGN.md §4 "Drift both ways"), run as GitHub runs
 * it (test/support/workflow-runner.ts: `if:` evaluated as GitHub does, platform-sync installed by
 * `npm ci` and used as `./node_modules/platform-sync`, `run:` steps by bash) in a checkout whose
 * origin is a bare repository on disk, against an emulator for the org and a stand-in for the
 * GitHub REST API's pull requests on loopback.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { runJob, writeStandIn, type JobRecord, type RunnerWorld, type Workflow } from '../support/workflow-runner.js';
import { makeTempDir, openClient, REPO_ROOT, runCli } from './cli-harness.js';

const OWNER = 'nightly-adopt-owner-token-77c1';
const VIEWER = 'nightly-adopt-viewer-token-2d0e';
const GH_TOKEN = 'gh-token-for-test';
const TITLE = 'Adopt changes made outside platform-sync';
/** A job spawns platform-sync a few times: bounded for a loaded 2-core machine, not a sleep. */
const JOB_BOUND = 90_000;
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

interface Pull {
  number: number;
  title: string;
  head: string;
  base: string;
  body: string;
  state: 'open' | 'closed';
}

/** A stand-in for GitHub's pull requests API: list by head, create, update. */
class FakeGitHub {
  pulls: Pull[] = [];
  requests: string[] = [];
  url = '';
  private server: Server | undefined;
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        this.requests.push(
          `${req.method} ${url.pathname}${url.search} ${req.headers.authorization === `Bearer ${GH_TOKEN}` ? 'auth' : 'NO AUTH'}`,
        );
        res.setHeader('content-type', 'application/json');
        if (!/^\/repos\/acme\/manifests\/pulls(\/\d+)?$/.test(url.pathname))
          return ((res.statusCode = 404), res.end('{}'));
        if (req.method === 'GET') {
          const [owner, branch] = (url.searchParams.get('head') ?? '').split(':');
          return res.end(
            JSON.stringify(
              this.pulls.filter(
                (p) => p.state === url.searchParams.get('state') && owner === 'acme' && p.head === branch,
              ),
            ),
          );
        }
        const body = JSON.parse(text) as Partial<Pull>;
        if (req.method === 'POST') {
          const pull: Pull = {
            number: 40 + this.pulls.length,
            title: body.title!,
            head: body.head!,
            base: body.base!,
            body: body.body!,
            state: 'open',
          };
          this.pulls.push(pull);
          return ((res.statusCode = 201), res.end(JSON.stringify(pull)));
        }
        const pull = this.pulls.find((p) => url.pathname.endsWith(`/${p.number}`))!;
        Object.assign(pull, body);
        res.end(JSON.stringify(pull));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }
}

/**
 * `gc --auto` and `maintenance run --auto`, which git starts after a fetch, commit or push (a
 * process each, ≈8 ms of CPU): on a repository of a few commits they find nothing to do.
 */
const NO_HOUSEKEEPING = {
  GIT_CONFIG_COUNT: '2',
  GIT_CONFIG_KEY_0: 'gc.auto',
  GIT_CONFIG_VALUE_0: '0',
  GIT_CONFIG_KEY_1: 'maintenance.auto',
  GIT_CONFIG_VALUE_1: 'false',
};

/** The test's own git (setting up origin, reading what the job pushed), without git's housekeeping after each command. */
function git(cwd: string, ...args: string[]): string {
  const run = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', ...NO_HOUSEKEEPING },
  });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

describe('the nightly adopt job', () => {
  let emulator: Emulator;
  let workflow: Workflow;
  const temp = makeTempDir('nightly-adopt');
  const origin = join(temp.dir, 'origin.git');
  const checkout = join(temp.dir, 'repo');
  const standIns = join(temp.dir, 'stand-ins');
  const github = new FakeGitHub();
  let runs = 2000;

  beforeAll(async () => {
    emulator = await startEmulator({
      checkAnswers: true,
      port: 0,
      tokens: [
        { token: OWNER, role: 'owner' },
        { token: VIEWER, role: 'viewer' },
      ],
    });
    await github.start();
    // The starter, its manifests replaced by a hand-written org; committed and pushed to origin's main.
    const init = await runCli(['init', 'repo', '--org', 'adoptco'], { cwd: temp.dir });
    expect(init.code, init.stderr).toBe(0);
    workflow = parse(readFileSync(join(checkout, '.github', 'workflows', 'platform-sync.yml'), 'utf8')) as Workflow;
    rmSync(join(checkout, 'manifests'), { recursive: true, force: true });
    cpSync(join(REPO_ROOT, 'test', 'fixtures', 'adopt'), join(checkout, 'manifests'), { recursive: true });
    const lock = { lockfileVersion: 3, packages: { 'node_modules/platform-sync': { version: VERSION } } };
    writeFileSync(join(checkout, 'package-lock.json'), JSON.stringify(lock));
    const npm = [
      '[ "$1" = ci ] || exit 1',
      '[ -z "${PLATFORM_TOKEN:-}" ] || exit 1',
      'mkdir -p node_modules && ln -s "$TEST_PLATFORM_SYNC_PACKAGE" node_modules/platform-sync',
    ];
    writeStandIn(standIns, 'npm', npm.join('\n'));
    git(temp.dir, 'init', '--quiet', '--bare', '-b', 'main', origin);
    git(checkout, 'init', '--quiet', '-b', 'main');
    git(checkout, 'add', '-A');
    git(checkout, '-c', 'user.name=dev', '-c', 'user.email=dev@acme.dev', 'commit', '--quiet', '-m', 'manifests');
    git(checkout, 'remote', 'add', 'origin', origin);
    git(checkout, 'push', '--quiet', 'origin', 'main');
    const codes = join(temp.dir, 'codes.jsonl');
    const applied = await runCli(
      ['apply', join(checkout, 'manifests'), '--bootstrap', '--auto-approve', '--invite-codes', codes],
      { env: env() },
    );
    expect(applied.code, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    await emulator?.close();
    await github.close();
    temp.remove();
  });

  function env(): Record<string, string> {
    return { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: OWNER };
  }

  /** The nightly run: the adopt job on a fresh checkout of origin's main, as actions/checkout makes it. */
  async function nightly(): Promise<JobRecord> {
    git(checkout, 'fetch', '--quiet', 'origin');
    git(checkout, 'checkout', '--quiet', '-f', '-B', 'main', 'origin/main');
    const world: RunnerWorld = {
      repository: checkout,
      jobsRoot: temp.dir,
      actionRepository: REPO_ROOT,
      // The job's GITHUB_TOKEN is github.token, as a runner gives it.
      github: {
        event_name: 'schedule',
        ref: 'refs/heads/main',
        sha: git(checkout, 'rev-parse', 'HEAD'),
        repository: 'acme/manifests',
        run_id: String(++runs),
        run_attempt: '1',
        api_url: github.url,
        event: { repository: { default_branch: 'main' } },
        token: GH_TOKEN,
      } as RunnerWorld['github'],
      vars: { PLATFORM_API_URL: emulator.url },
      secrets: { PLATFORM_TOKEN: OWNER, PLATFORM_TOKEN_READONLY: VIEWER },
      inputs: {},
      path: [standIns],
      env: { TEST_PLATFORM_SYNC_PACKAGE: REPO_ROOT, GIT_CONFIG_NOSYSTEM: '1' },
      artifacts: new Map(),
      artifactStore: join(temp.dir, 'artifacts'),
    };
    const job = await runJob(workflow, 'adopt', world);
    expect(job.ran).toBe(true);
    expect(
      job.status,
      job.steps
        .filter((s) => s.outcome === 'failure')
        .map((s) => `${s.name}:\n${s.log}`)
        .join('\n'),
    ).toBe('success');
    return job;
  }

  it(
    'in sync: nothing is pushed and no pull request is opened',
    async () => {
      await nightly();
      expect(github.requests).toEqual([]);
      expect(git(checkout, 'ls-remote', '--heads', origin)).not.toContain('platform-sync/adopt');
    },
    JOB_BOUND,
  );

  it(
    'drift: one pull request from a branch of its own, with the drift report as its body; more drift updates it in place; never a push to main',
    async () => {
      const mainBefore = git(checkout, 'rev-parse', 'origin/main');
      const client = openClient(emulator.url, OWNER);
      const org = (await client.list('group', { name: 'adoptco' })).items[0]!;
      const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { description: 'Edited in the console' }, ['description']);
      await nightly();
      expect(github.pulls).toHaveLength(1);
      const pull = github.pulls[0]!;
      expect(pull).toMatchObject({ title: TITLE, head: 'platform-sync/adopt', base: 'main', state: 'open' });
      expect(pull.body).toContain('### platform-sync drift: org `adoptco`');
      expect(pull.body).toContain('`repo:app`');
      expect(pull.body).toContain('**Revert them**: close it, then run this workflow by hand with `plan-and-apply`.');
      expect(github.requests.every((r) => r.endsWith(' auth'))).toBe(true);
      // The branch holds the adopted manifests; main is where it was.
      git(checkout, 'fetch', '--quiet', 'origin');
      expect(git(checkout, 'rev-parse', 'origin/main')).toBe(mainBefore);
      expect(git(checkout, 'show', 'origin/platform-sync/adopt:manifests/org.yaml')).toContain(
        'description: Edited in the console   # the customer-facing one',
      );
      expect(git(checkout, 'diff', '--stat', 'origin/main', 'origin/platform-sync/adopt')).toMatch(
        /manifests\/org\.yaml \| 2 \+-/,
      );

      // More drift the next night: the same pull request, its body and branch updated in place.
      await client.create('group', org.uid, { name: 'sandbox', description: 'Made by hand' });
      await client.close();
      github.requests = [];
      await nightly();
      expect(github.pulls).toHaveLength(1);
      expect(github.requests.filter((r) => r.startsWith('POST'))).toEqual([]);
      expect(github.requests.filter((r) => r.startsWith('PATCH'))).toEqual([
        `PATCH /repos/acme/manifests/pulls/${pull.number} auth`,
      ]);
      expect(github.pulls[0]!.body).toContain('`group:sandbox`');
      git(checkout, 'fetch', '--quiet', '--force', 'origin');
      expect(git(checkout, 'rev-parse', 'origin/main')).toBe(mainBefore);
      expect(git(checkout, 'show', 'origin/platform-sync/adopt:manifests/org.yaml')).toContain('- name: sandbox');
      expect(git(checkout, 'rev-list', '--count', 'origin/main..origin/platform-sync/adopt')).toBe('1');
    },
    2 * JOB_BOUND,
  );

  it(
    'merging adopts: the merged manifests plan to nothing; closing and plan-and-apply reverts: the next night is in sync',
    async () => {
      const merged = join(temp.dir, 'merged');
      git(temp.dir, 'clone', '--quiet', '-b', 'platform-sync/adopt', origin, merged);
      const plan = await runCli(['plan', join(merged, 'manifests'), '--detailed-exitcode'], { env: env() });
      expect(plan.code, plan.stdout).toBe(0);
      // Closed instead: the dispatched plan-and-apply applies main's manifests, which reverts live.
      github.pulls[0]!.state = 'closed';
      const main = join(temp.dir, 'main');
      git(temp.dir, 'clone', '--quiet', '-b', 'main', origin, main);
      const revert = await runCli(
        ['apply', join(main, 'manifests'), '--auto-approve', '--invite-codes', join(temp.dir, 'codes.jsonl')],
        { env: env() },
      );
      expect(revert.code, revert.stderr).toBe(0);
      github.requests = [];
      await nightly();
      expect(github.requests).toEqual([]);
      expect(github.pulls.filter((p) => p.state === 'open')).toEqual([]);
    },
    JOB_BOUND,
  );
});
