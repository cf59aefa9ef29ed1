/**
 * `platform-sync apply` end to end: the built CLI (bin/platform-sync, needs `npm run build`)
 * against an emulator this test runs on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/api/client.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ACME, applyManifests, BIN, makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';

const CHANGE_SET = join(REPO_ROOT, 'test', 'fixtures', 'apply-change-set');
const OWNER = 'e2e-apply-owner-token-7d1f0c';
const VIEWER = 'e2e-apply-viewer-token-2b8e44';
/** Resources examples/acme declares, the org included. */
const ACME_RESOURCES = 41;

let emulator: Emulator;
let temp: { dir: string; remove: () => void };

beforeAll(() => {
  temp = makeTempDir('apply');
});
afterAll(() => temp.remove());
beforeEach(async () => {
  emulator = await startEmulator({
    checkAnswers: true,
    port: 0,
    tokens: [
      { token: OWNER, role: 'owner' },
      { token: VIEWER, role: 'viewer' },
    ],
  });
});
afterEach(async () => {
  await emulator.close();
});

const env = (token = OWNER): Record<string, string> => ({ PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: token });
const writes = () => emulator.requestLog.filter((e) => e.method !== 'GET');

/** Spawns the CLI with a pipe for stdin, under `script` when a real terminal is wanted. */
function spawnCli(args: string[], options: { tty?: boolean; env: Record<string, string> }) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', ...options.env };
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = options.tty
    ? spawn('script', ['-qec', command, '/dev/null'], { cwd: temp.dir, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [BIN, ...args], { cwd: temp.dir, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { test: (s: string) => boolean; resolve: () => void }[] = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    for (const w of waiters.splice(0)) (w.test(stdout) ? w.resolve : () => waiters.push(w))();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    /** Resolves once stdout satisfies `test` (checked on every chunk). */
    waitForOutput: (test: (s: string) => boolean) =>
      new Promise<void>((resolve) => (test(stdout) ? resolve() : waiters.push({ test, resolve }))),
  };
}

describe('platform-sync apply', () => {
  it('refuses without a terminal unless --auto-approve, changing nothing', async () => {
    const run = await runCli(['apply', ACME, '--bootstrap'], { env: env(), cwd: temp.dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Plan: 41 to create, 0 to update, 0 to delete.');
    expect(run.stderr).toContain('pass --auto-approve');
    expect(writes()).toEqual([]);
  });

  it('refuses invalid manifests with file:line:col before any request, even with --auto-approve', async () => {
    const bad = join(REPO_ROOT, 'test', 'fixtures', 'bad-dangling-ref.yaml');
    const run = await runCli(['apply', bad, '--bootstrap', '--auto-approve'], { env: env(), cwd: temp.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /bad-dangling-ref\.yaml:7:17: unknown identity "relase-bot" in role binding of org "acme"/,
    );
    expect(run.stderr).toContain('did you mean "release-bot"?');
    expect(emulator.requestLog).toEqual([]); // not even a read: nothing can have been mutated
  });

  it('refuses an unsafe plan (a protected delete) after reading, writing nothing', async () => {
    await runCli(['apply', ACME, '--bootstrap', '--auto-approve'], { env: env(), cwd: temp.dir });
    const manifests = join(temp.dir, 'without-release-bot');
    cpSync(ACME, manifests, { recursive: true });
    const org = join(manifests, 'org.yaml');
    // Protect a repo, and drop it from the manifests.
    writeFileSync(
      org,
      readFileSync(org, 'utf8')
        .replace('protect: ["identity:release-bot"]', 'protect: ["identity:release-bot", "repo:base-images"]')
        .replace(/ {4}- name: base-images[\s\S]*?(?= {2}subscriptions:)/, ''),
    );
    emulator.clearRequestLog();
    const run = await runCli(['apply', manifests, '--bootstrap', '--auto-approve'], { env: env(), cwd: temp.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('repo:base-images is protected (settings.protect) and may not be deleted');
    expect(writes()).toEqual([]);
  });

  it('applies with --auto-approve, one plain line per step, then finds nothing to do', async () => {
    const run = await runCli(['apply', ACME, '--bootstrap', '--auto-approve'], { env: env(), cwd: temp.dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('✓ create '))).toHaveLength(ACME_RESOURCES);
    expect(lines).toContainEqual(expect.stringMatching(/^✓ create identity:engineering\/ci-bot \(\d+ ms\)$/));
    expect(run.stdout).not.toContain('\x1b'); // no colour and no cursor movement in a log
    expect(run.stdout.trimEnd().endsWith(`Apply complete: ${ACME_RESOURCES} done.`)).toBe(true);
    expect(emulator.resourceCount()).toBe(ACME_RESOURCES);

    const again = await runCli(['apply', ACME, '--bootstrap'], { env: env(), cwd: temp.dir });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes. The org matches the manifests.');
  });

  it('streams one JSON event per line with --format json', async () => {
    const run = await runCli(
      ['apply', ACME, '--bootstrap', '--auto-approve', '--format', 'json', '--concurrency', '4'],
      { env: env(), cwd: temp.dir },
    );
    expect(run.code).toBe(0);
    const events = run.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
    expect(events[0]!.type).toBe('plan');
    expect(events[1]).toEqual({ type: 'start', total: ACME_RESOURCES });
    expect(events.filter((e) => e.type === 'step-done')).toHaveLength(ACME_RESOURCES);
    expect(events.find((e) => e.type === 'step-start')).toEqual({
      type: 'step-start',
      step: { action: 'create', kind: 'group', address: 'org' },
    });
    expect(events.at(-1)).toMatchObject({ type: 'end', result: { ok: true, failed: [], skipped: [] } });
  });

  it('fails cleanly with a read-only token: the reason, the skipped steps, exit 1', async () => {
    const run = await runCli(['apply', ACME, '--bootstrap', '--auto-approve'], { env: env(VIEWER), cwd: temp.dir });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^✗ create org: .*POST \/iam\/v2\/groups failed: HTTP 403 PERMISSION_DENIED \(7\)/m);
    expect(run.stdout).toContain('- skipped create identity:release-bot (depends on failed org)');
    expect(run.stdout).toContain(`Apply failed: 0 done, 1 failed, ${ACME_RESOURCES - 1} skipped.`);
    expect(run.stdout).toContain(`  - ${ACME_RESOURCES - 1} steps skipped because they depend on a failed step: `);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(
      /^Next: the API refused the token; apply needs one that may write to this org/,
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain(VIEWER);
    expect(writes()).toHaveLength(1);
    expect(emulator.resourceCount()).toBe(0);
  });

  it('applies a saved plan exactly, and refuses a stale one without writing anything', async () => {
    expect((await runCli(['apply', ACME, '--bootstrap', '--auto-approve'], { env: env(), cwd: temp.dir })).code).toBe(
      0,
    );
    const planFile = join(temp.dir, 'change.plan.json');
    expect((await runCli(['plan', CHANGE_SET, '--out', planFile], { env: env(), cwd: temp.dir })).code).toBe(0);

    // Someone changes nginx after the plan was saved.
    const client = createClient({ baseUrl: emulator.url, token: OWNER });
    const nginx = (await client.list('repo', { name: 'nginx' })).items[0]!;
    await client.update('repo', nginx.uid, { description: 'changed by hand' }, ['description']);
    await client.close();

    emulator.clearRequestLog();
    const stale = await runCli(['apply', planFile, '--auto-approve'], { env: env(), cwd: temp.dir });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('the saved plan is stale');
    expect(stale.stderr).toMatch(/repo:engineering\/platform\/nginx: changed/);
    expect(writes()).toEqual([]);

    // A fresh plan applies exactly its steps and leaves nothing to do; a plan file is
    // recognised by what it is, not by its name (Terraform users write `plan.out`).
    const outFile = join(temp.dir, 'change.out');
    expect((await runCli(['plan', CHANGE_SET, '--out', outFile], { env: env(), cwd: temp.dir })).code).toBe(0);
    const fresh = await runCli(['apply', outFile, '--auto-approve'], { env: env(), cwd: temp.dir });
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toMatch(/Apply complete: \d+ done\./);
    const after = await runCli(['plan', CHANGE_SET, '--detailed-exitcode'], { env: env(), cwd: temp.dir });
    expect(after.code).toBe(0);
  });

  it('finishes on a re-run after the process is killed (SIGKILL) in the middle of an apply', async () => {
    emulator.setFaults({ latencyMs: 40 });
    const first = spawnCli(['apply', ACME, '--bootstrap', '--auto-approve', '--concurrency', '2'], { env: env() });
    await first.waitForOutput((s) => (s.match(/^✓ /gm) ?? []).length >= 6);
    first.child.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const doneBeforeKill = (first.output().stdout.match(/^✓ /gm) ?? []).length;
    expect(doneBeforeKill).toBeLessThan(ACME_RESOURCES);

    emulator.setFaults({});
    const rerun = await runCli(['apply', ACME, '--bootstrap', '--auto-approve'], { env: env(), cwd: temp.dir });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).not.toContain('create org'); // made by the killed run, not again
    const created = (rerun.stdout.match(/^✓ create /gm) ?? []).length;
    expect(created).toBeLessThanOrEqual(ACME_RESOURCES - doneBeforeKill);
    expect(emulator.resourceCount()).toBe(ACME_RESOURCES); // nothing made twice
    const check = await runCli(['plan', ACME, '--bootstrap', '--detailed-exitcode'], { env: env(), cwd: temp.dir });
    expect(check.code, check.stderr).toBe(0);
  });

  it('stops gracefully on SIGTERM (a CI cancel): steps in flight finish, the rest is reported, exit 1', async () => {
    emulator.setFaults({ latencyMs: 40 });
    const run = spawnCli(['apply', ACME, '--bootstrap', '--auto-approve', '--concurrency', '2'], { env: env() });
    await run.waitForOutput((s) => (s.match(/^✓ /gm) ?? []).length >= 4);
    run.child.kill('SIGTERM');
    const { code } = await run.exited;
    expect(code).toBe(1);
    const { stdout } = run.output();
    expect(stdout).toContain('Terminated: no new step starts; waiting for the steps in flight.');
    const summary = stdout.match(/^Apply interrupted: (\d+) done, 0 failed, (\d+) skipped\.$/m)!;
    expect(Number(summary[1]) + Number(summary[2])).toBe(ACME_RESOURCES);
    expect(stdout).toMatch(/^ {2}- \d+ steps not started because the apply was interrupted: /m);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe(
      'Next: run the same apply again: it does only what is left (`platform-sync plan` shows it).',
    );
    // What it reported done is exactly what exists.
    expect(emulator.resourceCount()).toBe(Number(summary[1]));
  });

  // An answer that is not "yes" ("y") is asked and refused in the singular case below; "yes" is
  // answered in the second Ctrl-C case at the end, which sees the apply start on the live line (a
  // process of its own that applied all 41 was dropped: issue 63; the live line to the summary
  // on a terminal is apply-progress.test.ts's, an apply to its end the cases above).
  it.runIf(existsSync('/usr/bin/script'))(
    'on a terminal asks first, and Ctrl-C at the question sends nothing',
    async () => {
      // Ctrl-C at the question is a "no" too: no stack trace, exit 1, nothing sent.
      const interrupted = spawnCli(['apply', ACME, '--bootstrap'], { tty: true, env: env() });
      await interrupted.waitForOutput((s) => s.includes("Only 'yes' will be accepted:"));
      expect(interrupted.output().stdout).toContain(
        `Apply these ${ACME_RESOURCES} changes? Only 'yes' will be accepted:`,
      );
      interrupted.child.stdin!.write('\x03');
      const { code } = await interrupted.exited;
      expect(code).toBe(1);
      expect(interrupted.output().stdout).toContain('Apply cancelled: nothing was changed.');
      expect(interrupted.output().stdout).not.toMatch(/internal error|AbortError/);
      expect(writes()).toEqual([]);
    },
  );

  it.runIf(existsSync('/usr/bin/script'))(
    'asks about one change in the singular, and takes only "yes" for yes',
    async () => {
      await applyManifests(emulator.url, OWNER, [ACME]);
      const client = createClient({ baseUrl: emulator.url, token: OWNER });
      try {
        const org = (await client.list('group', { name: 'acme' })).items[0]!;
        const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
        await client.update('repo', app.uid, { description: 'edited by hand' }, ['description']);
      } finally {
        await client.close();
      }
      emulator.clearRequestLog();
      const run = spawnCli(['apply', ACME, '--bootstrap'], { tty: true, env: env() });
      await run.waitForOutput((s) => s.includes("Only 'yes' will be accepted:"));
      run.child.stdin!.write('y\n');
      await run.exited;
      expect(run.output().stdout).toContain("Apply this change? Only 'yes' will be accepted:");
      // "y" is not "yes": nothing is sent.
      expect(run.output().stdout).toContain('Apply cancelled: nothing was changed.');
      expect(writes()).toEqual([]);
    },
  );

  it('keeps every step it reported done when an apply --emulator is quit at once (a second Ctrl-C exits without waiting; here: SIGKILL)', async () => {
    const cwd = join(temp.dir, 'quit-at-once');
    const manifests = join(cwd, 'manifests');
    mkdirSync(manifests, { recursive: true });
    writeFileSync(
      join(manifests, 'org.yaml'),
      `apiVersion: platform-sync/v1\norg:\n  name: many\n  repos:\n${Array.from({ length: 3000 }, (_, i) => `    - name: repo-${i}\n`).join('')}`,
    );
    const child = spawn(
      process.execPath,
      [BIN, 'apply', manifests, '--emulator', '--bootstrap', '--auto-approve', '--concurrency', '4'],
      {
        cwd,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('close', (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve) => {
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        stdout += d;
        if ((stdout.match(/^✓ /gm) ?? []).length >= 40) resolve();
      });
    });
    // No chance to write anything more: what was reported done must already be on disk.
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const reportedDone = (stdout.match(/^✓ /gm) ?? []).length;
    expect(reportedDone).toBeLessThan(3001);
    // What the state file holds, read by an emulator started on it (a plan of the 3,000 repos read
    // them back through the API and planned them again: issue 63); the killed holder's lock is gone.
    const kept = await startEmulator({ port: 0, statePath: join(cwd, '.platform-sync', 'emulator.json') });
    try {
      expect(kept.resourceCount()).toBeGreaterThanOrEqual(reportedDone);
      expect(kept.resourceCount()).toBeLessThanOrEqual(3001);
    } finally {
      await kept.close();
    }
  });

  it.runIf(existsSync('/usr/bin/script'))(
    'applies after "yes", and quits at once on a second Ctrl-C: the live line is ended and one line says what was done so far',
    async () => {
      const run = spawnCli(['apply', ACME, '--bootstrap', '--concurrency', '2'], { tty: true, env: env() });
      await run.waitForOutput((s) => s.includes("Only 'yes' will be accepted:"));
      // Slow writes from here on (the plan's reads are done): steps stay in flight while we press Ctrl-C, even on a loaded machine.
      emulator.setFaults({ latencyMs: 3000 });
      run.child.stdin!.write('yes\n');
      await run.waitForOutput((s) => /Applying 0\/41/.test(s));
      // Only after "yes": the live line, drawn in place.
      expect(run.output().stdout).toContain('\r\x1b[2KApplying ');
      run.child.stdin!.write('\x03');
      await run.waitForOutput((s) => s.includes('Interrupted: no new step starts'));
      run.child.stdin!.write('\x03');
      const { code } = await run.exited;
      expect(code).toBe(130);
      const { stdout } = run.output();
      // The Quit line starts a line of its own, whether the live line was drawn again after the
      // Interrupted line or not (a loaded machine may press the second Ctrl-C before its next tick).
      expect(stdout).toMatch(/Applying \d+\/41/);
      const quitLine = stdout.split('\n').find((line) => line.includes('Quit: '));
      expect(quitLine?.replace(/^\r/, '')).toMatch(
        /^Quit: \d+ of 41 steps finished \(\d+ done\); [12] steps? in flight may or may not have been applied\. Run the same apply again to finish/,
      );
    },
  );
});
