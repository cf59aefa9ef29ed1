import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACME, makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';

describe('npm run demo', () => {
  it('runs the guided tour to the end and exits 0', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const name of ['PLATFORM_TOKEN', 'PLATFORM_API_URL', 'GITHUB_STEP_SUMMARY']) delete env[name];
      const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'src', 'demo.js')], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c ?? 1, stdout: out, stderr: err }));
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    for (const step of ['1. Validate', '2. Plan', '3. Apply', '4. Plan again', '6. Drift', '7. Export', '8. Plan on the export']) {
      expect(stdout).toContain(step);
    }
    expect(stdout).toContain('✓ exit 2: drift');
    expect(stdout).toContain('✓ exit 0: in sync');
    expect(stdout).toContain('Demo finished: every step behaved as expected');
  }, 60_000);
});

describe('the GitHub Actions example (examples/github-actions/platform-sync.yml)', () => {
  type Step = { name?: string; uses?: string; run?: string; env?: Record<string, string>; with?: Record<string, unknown>; if?: string };
  type Job = { if?: string; permissions?: Record<string, string>; concurrency?: { group: string; 'cancel-in-progress': boolean }; environment?: string; steps: Step[] };
  const workflow = parse(readFileSync(join(REPO_ROOT, 'examples', 'github-actions', 'platform-sync.yml'), 'utf8')) as {
    on: Record<string, unknown>;
    env: Record<string, string>;
    jobs: Record<string, Job>;
  };
  const jobs = workflow.jobs;

  it('plans on pull requests, applies on main one at a time, checks drift nightly, each with least privilege', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push', 'schedule', 'workflow_dispatch']);
    expect(jobs.plan!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(jobs.apply!.permissions).toEqual({ contents: 'read' });
    expect(jobs.drift!.permissions).toEqual({ contents: 'read' });
    expect(jobs.apply!.concurrency).toEqual({ group: 'platform-sync-apply', 'cancel-in-progress': false });
    expect(jobs.plan!.concurrency!['cancel-in-progress']).toBe(true);
    expect(jobs.apply!.environment).toBe('platform');
    // Every action pinned to a major version of the official actions.
    const uses = Object.values(jobs).flatMap((j) => j.steps.flatMap((s) => (s.uses ? [s.uses] : [])));
    expect(uses.length).toBeGreaterThan(0);
    for (const u of uses) expect(u).toMatch(/^actions\/(checkout|setup-node|github-script)@v\d+$/);
    // The PR comment is posted by github-script, updating one marked comment.
    const post = jobs.plan!.steps.find((s) => s.uses?.startsWith('actions/github-script@'))!;
    expect(String(post.with!.script)).toContain('updateComment');
  });

  it('hands tokens over only as PLATFORM_TOKEN, the write token to apply alone', () => {
    for (const [name, job] of Object.entries(jobs)) {
      for (const step of job.steps) {
        expect(step.run ?? '', `${name}: ${step.name}`).not.toMatch(/secrets\./);
        for (const [key, value] of Object.entries(step.env ?? {})) {
          if (!String(value).includes('secrets.')) continue;
          expect(key).toBe('PLATFORM_TOKEN');
          const secret = String(value).match(/secrets\.(\w+)/)![1];
          expect(secret, `${name}: ${step.name}`).toBe(name === 'apply' ? 'PLATFORM_TOKEN' : 'PLATFORM_TOKEN_READONLY');
        }
      }
    }
  });

  it('runs commands that work: each job\'s platform-sync lines, in order, against an embedded emulator', async () => {
    const temp = makeTempDir('workflow');
    try {
      /** `npx platform-sync …` lines of a job, with $MANIFESTS and shell redirections resolved. */
      const commandsOf = (job: Job): string[][] =>
        job.steps.flatMap((s) =>
          (s.run ?? '')
            .split('\n')
            .flatMap((line) => (line.match(/npx platform-sync (.*)$/)?.[1] ? [line.match(/npx platform-sync (.*)$/)![1]!] : []))
            .map((args) => args.replace(/\s*\d?>.*$/, '').replace(/"\$MANIFESTS"/g, ACME).split(/\s+/)),
        );
      // The workflow manages an org that exists (created once with `apply --bootstrap`): here an
      // empty root group, so the PR's plan has everything else to create.
      const bootstrap = join(temp.dir, 'bootstrap.yaml');
      writeFileSync(bootstrap, 'apiVersion: platform-sync/v1\norg:\n  name: acme\nsettings:\n  prune: false\n');
      expect((await runCli(['apply', bootstrap, '--bootstrap', '--auto-approve', '--emulator'], { cwd: temp.dir })).code).toBe(0);
      const expected: Record<string, number[]> = {
        plan: [0, 2], // validate; plan --detailed-exitcode: changes
        apply: [0, 0], // apply; plan --detailed-exitcode: nothing left
        drift: [0], // drift: in sync
      };
      for (const name of ['plan', 'apply', 'drift']) {
        const commands = commandsOf(jobs[name]!);
        expect(commands.length, name).toBe(expected[name]!.length);
        for (const [i, args] of commands.entries()) {
          const run = await runCli([...args, ...(args[0] === 'validate' ? [] : ['--emulator'])], { cwd: temp.dir, env: { NO_COLOR: workflow.env.NO_COLOR! } });
          expect(run.code, `${name}: platform-sync ${args.join(' ')}\n${run.stderr}`).toBe(expected[name]![i]);
        }
      }
    } finally {
      temp.remove();
    }
  }, 30_000);
});
