/**
 * The starter `init` writes, run as GitHub runs it (issue 60): its workflow's jobs, step by step,
 * with every `if:` evaluated as GitHub does (`always()`, `hashFiles` seeing only the workspace),
 * platform-sync installed by `npm ci` from the starter's package.json and used as
 * `./node_modules/platform-sync`, against an emulator and a stand-in for GitHub's API. A member
 * added by a merged pull request, and one added and applied by the dispatched plan-and-apply,
 * each end with a code the inviter opens with their private key — and the person accepts. A key
 * that cannot encrypt stops the apply with nothing changed live.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';
import { decryptWith, makeKeyPair, type TestKeyPair } from '../support/openpgp-keys.js';
import { runJob, writeStandIn, type JobRecord, type RunnerWorld, type Workflow } from '../support/workflow-runner.js';

const OWNER = 'starter-workflow-owner-token-4c1e';
const VIEWER = 'starter-workflow-viewer-token-8b2a';
const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** GitHub's REST API as the workflow and the action use it: merged pulls, branch heads, comments. */
class GitHubStandIn {
  heads: Record<string, string> = {};
  comments: { id: number; body: string; user: { login: string } }[] = [];
  url = '';
  private server: Server | undefined;
  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        const url = req.url ?? '';
        const branch = /\/branches\/([^/?]+)$/.exec(url);
        if (req.method === 'GET' && branch)
          return res.end(
            JSON.stringify({ commit: { sha: this.heads[decodeURIComponent(branch[1]!)] ?? '0'.repeat(40) } }),
          );
        if (req.method === 'GET' && /\/commits\/[^/]+\/pulls$/.test(url))
          return res.end(JSON.stringify([{ number: 7, merged_at: '2026-12-04T10:00:00Z' }]));
        if (req.method === 'GET') return res.end(JSON.stringify(this.comments));
        const body = (JSON.parse(text) as { body: string }).body;
        if (req.method === 'POST')
          this.comments.push({ id: this.comments.length + 1, body, user: { login: 'github-actions[bot]' } });
        if (req.method === 'PATCH') this.comments.find((c) => url.endsWith(`/comments/${c.id}`))!.body = body;
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe("the starter's workflow, run as a runner runs it (issue 60)", () => {
  const temp = makeTempDir('starter-workflow');
  const repo = join(temp.dir, 'repo');
  const standIns = join(temp.dir, 'bin');
  let emulator: Emulator;
  const github = new GitHubStandIn();
  let inviter: TestKeyPair;
  let workflow: Workflow;
  let runs = 1000;

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
    inviter = await makeKeyPair('inviter@acme.dev');
    const init = await runCli(['init', 'repo', '--org', 'acme'], { cwd: temp.dir });
    expect(init.code, init.stderr).toBe(0);
    workflow = parse(readFileSync(join(repo, '.github', 'workflows', 'platform-sync.yml'), 'utf8')) as Workflow;
    // What `npm install` leaves for the commit: the lockfile `npm ci` installs from.
    const lock = { lockfileVersion: 3, packages: { 'node_modules/platform-sync': { version: VERSION } } };
    if (existsSync(join(repo, 'package.json'))) writeFileSync(join(repo, 'package-lock.json'), JSON.stringify(lock));
    // npm and gh as the jobs call them: npm ci installs this very package, gh finds the merged pull request's plan run.
    writeStandIn(
      standIns,
      'npm',
      [
        '[ "$1" = ci ] || { echo "npm stand-in: only npm ci" >&2; exit 1; }',
        '[ -z "${PLATFORM_TOKEN:-}" ] || { echo "npm ci ran with PLATFORM_TOKEN in its environment" >&2; exit 1; }',
        '[ -f package.json ] && [ -f package-lock.json ] || { echo "npm ci needs package.json and package-lock.json" >&2; exit 1; }',
        `grep -q '"platform-sync": "${VERSION}"' package.json || { echo "package.json does not pin platform-sync ${VERSION}" >&2; exit 1; }`,
        'mkdir -p node_modules && ln -s "$TEST_PLATFORM_SYNC_PACKAGE" node_modules/platform-sync',
      ].join('\n'),
    );
    writeStandIn(
      standIns,
      'gh',
      'case "$1" in api) echo "$TEST_PR_HEAD" ;; run) echo "$TEST_PR_RUN" ;; *) exit 1 ;; esac',
    );
    // The org exists (the workflow says: create it once with apply --bootstrap).
    const bootstrap = join(temp.dir, 'bootstrap.yaml');
    writeFileSync(bootstrap, 'apiVersion: platform-sync/v1\norg:\n  name: acme\nsettings:\n  prune: false\n');
    const created = await runCli(['apply', bootstrap, '--bootstrap', '--auto-approve'], {
      env: { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: OWNER },
    });
    expect(created.code, created.stderr).toBe(0);
  });
  afterAll(async () => {
    await github.close();
    await emulator?.close();
    temp.remove();
  });

  const members = (emails: string[]) => {
    const path = join(repo, 'manifests', 'org.yaml');
    const lines = emails.map((e) => `    - {email: ${e}, role: viewer}\n`).join('');
    const text = readFileSync(path, 'utf8').replace(
      /^ {2}#? ?members:\n(?: {2}#? {3}- .*\n|\s{4}- \{email.*\n)+/m,
      `  members:\n${lines}`,
    );
    expect(text).toContain(`- {email: ${emails[0]}, role: viewer}`);
    writeFileSync(path, text);
  };
  type Event = Pick<RunnerWorld['github'], 'event_name' | 'ref' | 'sha' | 'event'>;
  const world = (
    event: Event,
    extra: { inputs?: Record<string, string>; key?: string; pr?: { head: string; run: string } } = {},
  ): RunnerWorld => ({
    repository: repo,
    jobsRoot: temp.dir,
    actionRepository: REPO_ROOT,
    github: { ...event, repository: 'acme/manifests', run_id: String(++runs), run_attempt: '1', api_url: github.url },
    vars: {
      PLATFORM_API_URL: emulator.url,
      ...(extra.key !== undefined ? { INVITE_CODES_PUBLIC_KEY: extra.key } : {}),
    },
    secrets: { PLATFORM_TOKEN: OWNER, PLATFORM_TOKEN_READONLY: VIEWER },
    inputs: extra.inputs ?? {},
    path: [standIns],
    env: {
      TEST_PLATFORM_SYNC_PACKAGE: REPO_ROOT,
      TEST_PR_HEAD: extra.pr?.head ?? '',
      TEST_PR_RUN: extra.pr?.run ?? '',
    },
    artifacts: artifacts,
    artifactStore: join(temp.dir, 'artifacts'),
  });
  const artifacts = new Map<string, string>();
  const failed = (job: JobRecord) =>
    job.steps
      .filter((s) => s.outcome === 'failure')
      .map((s) => `${s.name}:\n${s.log}`)
      .join('\n');
  const accept = (code: string, email: string) =>
    fetch(`${emulator.url}/_emulator/groupInvites:accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, email, issuer: 'https://accounts.acme.dev', subject: email }),
    });
  /** The one invite-codes artifact `job` kept, its codes opened with the inviter's private key. */
  const codesKeptBy = async (
    job: JobRecord,
    before: ReadonlySet<string>,
  ): Promise<{ email: string; code: string }[]> => {
    const kept = [...artifacts.keys()].filter((n) => !before.has(n) && /invite-codes/.test(n));
    const why = job.steps.map((s) => `${s.name}: ${s.outcome}`).join('\n');
    expect(kept, `the invite codes are kept as an artifact; the job's steps:\n${why}`).toHaveLength(1);
    const dir = artifacts.get(kept[0]!)!;
    const files = readdirSync(dir);
    expect(files).toEqual(['invites.jsonl']);
    const text = readFileSync(join(dir, files[0]!), 'utf8');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { email: string; code: string; encryptedTo: string });
    const opened = await Promise.all(
      lines.map(async (l) => ({ email: l.email, code: await decryptWith(inviter, l.code) })),
    );
    for (const line of lines) expect(line.encryptedTo).toBe(inviter.fingerprint);
    for (const { code } of opened) expect(text).not.toContain(code); // the file never held a plain code
    return opened;
  };

  it('installs platform-sync with npm ci (package.json, lockfile) in a step without secrets, then uses ./node_modules/platform-sync; no owner/repo', () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      private: boolean;
    };
    expect(pkg.dependencies).toEqual({ 'platform-sync': VERSION });
    expect(pkg.private).toBe(true);
    for (const [name, job] of Object.entries(workflow.jobs)) {
      const ours = job.steps.filter((s) => (s.uses ?? '').includes('platform-sync'));
      for (const step of ours) expect(step.uses, name).toBe('./node_modules/platform-sync');
      if (ours.length === 0) continue;
      const install = job.steps.findIndex((s) => /^npm ci\b/.test(s.run ?? ''));
      expect(install, name).toBeGreaterThan(0);
      expect(install, name).toBeLessThan(job.steps.indexOf(ours[0]!));
      expect(JSON.stringify(job.steps[install]), name).not.toMatch(/secrets\.|PLATFORM_TOKEN/);
    }
    for (const file of ['.github/workflows/platform-sync.yml', 'README.md', 'manifests/org.yaml']) {
      const text = readFileSync(join(repo, file), 'utf8');
      expect(text, file).not.toMatch(/your-org|@0{40}|[\w-]+\/platform-sync@/);
    }
  });

  it('merge: the plan job keeps the reviewed plan; the apply job applies it and keeps the invite code, encrypted, for the inviter', async () => {
    members(['erin@acme.dev']);
    const head = 'a1'.repeat(20);
    const pullRequest = { number: 7, head: { sha: head, repo: { full_name: 'acme/manifests' } }, labels: [] };
    const opened = {
      event_name: 'pull_request',
      ref: 'refs/pull/7/merge',
      sha: head,
      event: { pull_request: pullRequest },
    };
    const plan = await runJob(workflow, 'plan', world(opened));
    expect(plan.ran).toBe(true);
    expect(plan.status, failed(plan)).toBe('success');
    expect(artifacts.has(`platform-sync-plan-${head}`)).toBe(true);
    const planRun = String(runs);

    const merge = 'b2'.repeat(20);
    github.heads.main = merge;
    const before = new Set(artifacts.keys());
    const pushed = { event_name: 'push', ref: 'refs/heads/main', sha: merge, event: {} };
    const apply = await runJob(
      workflow,
      'apply',
      world(pushed, { key: inviter.publicKey, pr: { head, run: planRun } }),
    );
    expect(apply.ran).toBe(true);
    expect(apply.status, failed(apply)).toBe('success');
    const [erin, ...more] = await codesKeptBy(apply, before);
    expect(more).toEqual([]);
    expect(erin!.email).toBe('erin@acme.dev');
    expect((await accept(erin!.code, 'erin@acme.dev')).status).toBe(200);
  }, 180_000);

  // A key that cannot encrypt is refused on the same approved plan first (it was a case of its own,
  // which ran a replan job of its own: issue 63): the apply stops before any change, then the
  // inviter's key applies that very plan.
  it('dispatch: plan-and-apply hands the codes of the approved plan over the same way; a key that cannot encrypt stops that apply before any change: nothing live, no artifact', async () => {
    members(['erin@acme.dev', 'bob@acme.dev']);
    const sha = 'c3'.repeat(20);
    github.heads.main = sha;
    const dispatched = {
      event_name: 'workflow_dispatch',
      ref: 'refs/heads/main',
      sha,
      event: { inputs: { action: 'plan-and-apply' } },
    };
    const replanWorld = world(dispatched, { inputs: { action: 'plan-and-apply' }, key: inviter.publicKey });
    const replan = await runJob(workflow, 'replan', replanWorld);
    expect(replan.ran).toBe(true);
    expect(replan.status, failed(replan)).toBe('success');

    // The approved job with a signing-only key: refused before any write, no artifact kept.
    const signingOnly = await makeKeyPair('signing@acme.dev', { signingOnly: true });
    const bad = { ...replanWorld, vars: { ...replanWorld.vars, INVITE_CODES_PUBLIC_KEY: signingOnly.publicKey } };
    emulator.clearRequestLog();
    const beforeRefused = new Set(artifacts.keys());
    const refused = await runJob(workflow, 'apply-replanned', bad, { replan });
    expect(refused.status).toBe('failure');
    expect(failed(refused)).toContain(`cannot encrypt: it has no valid encryption key`);
    expect(emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
    expect([...artifacts.keys()].filter((n) => !beforeRefused.has(n))).toEqual([]);

    // The approved job runs in the same workflow run (same run id) once the environment's reviewers approve.
    const before = new Set(artifacts.keys());
    const approved = await runJob(
      workflow,
      'apply-replanned',
      { ...replanWorld, github: { ...replanWorld.github } },
      { replan },
    );
    expect(approved.ran).toBe(true);
    expect(approved.status, failed(approved)).toBe('success');
    const codes = await codesKeptBy(approved, before);
    expect(codes.map((c) => c.email)).toEqual(['bob@acme.dev']);
    expect((await accept(codes[0]!.code, 'bob@acme.dev')).status).toBe(200);
    const after = await runCli(['plan', join(repo, 'manifests'), '--detailed-exitcode'], {
      env: { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: VIEWER },
    });
    expect(after.code, after.stdout).toBe(0);
  }, 180_000);
});
