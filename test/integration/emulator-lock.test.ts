/**
 * The state lock (DESIGN.md §6) cannot be held twice, whatever the interleaving: three
 * contenders race for it round after round, and at no moment do two hold it. A command that
 * waits gives up after --lock-timeout, naming the real holder; --emulator leaves nothing behind
 * where it only reads, and keeps its state out of git where it writes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireStateLock } from '../../src/emulator/state-lock.js';
import { ACME, runCli } from '../e2e/cli-harness.js';
import { startTestEmulator } from './emulator-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'emulator-lock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the state lock', () => {
  it('is never held by two of three contenders racing for it, over 60 rounds', async () => {
    const state = join(dir, 'raced.json');
    let holders = 0;
    let most = 0;
    let acquired = 0;
    const contender = async (rounds: number) => {
      for (let i = 0; i < rounds; i++) {
        const lock = await acquireStateLock(state, { wait: { timeoutMs: 10_000 } });
        holders++;
        most = Math.max(most, holders);
        acquired++;
        await sleep(Math.floor(Math.random() * 3));
        holders--;
        lock.release();
        await sleep(Math.floor(Math.random() * 2));
      }
    };
    await Promise.all([contender(20), contender(20), contender(20)]);
    expect(acquired).toBe(60);
    expect(most).toBe(1);
  });

  it('is held across processes and released by the kernel when its holder is killed (nothing goes stale)', async () => {
    const state = join(dir, 'killed.json');
    const script = `import('${join(process.cwd(), 'dist/src/emulator/state-lock.js')}').then(async (m) => { await m.acquireStateLock(${JSON.stringify(state)}, { what: 'a test process' }); process.stdout.write('held\\n'); setInterval(() => {}, 1000); })`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    const refused = await acquireStateLock(state).then(
      () => 'acquired',
      (err: Error) => err.message,
    );
    expect(refused).toContain(`is in use by a test process (process ${child.pid} on`);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    const lock = await acquireStateLock(state, { wait: { timeoutMs: 2000 } });
    lock.release();
  });

  it('is taken, not refused as held by someone unknown, when its holder lets go while it cannot answer', async () => {
    // A holder that cannot answer who it is (stopped here; busy or closing in the field) and then
    // lets go: a command that asks in that moment must not fail naming "an unknown host" (seen once
    // in npm test's demo under load), but try again for a moment and take the lock.
    const state = join(dir, 'unanswered.json');
    const script = `import('${join(process.cwd(), 'dist/src/emulator/state-lock.js')}').then(async (m) => { await m.acquireStateLock(${JSON.stringify(state)}); process.stdout.write('held\\n'); setInterval(() => {}, 1000); })`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    child.kill('SIGSTOP');
    const taking = acquireStateLock(state).then(
      (lock) => (lock.release(), 'acquired'),
      (err: Error) => err.message,
    );
    // Past the one second a holder has to answer, then the holder goes.
    await sleep(1200);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect(await taking).toBe('acquired');
  });
});

describe('--emulator and its state', () => {
  it('gives up after --lock-timeout, naming the emulator server that holds the state', async () => {
    const cwd = join(dir, 'held');
    mkdirSync(join(cwd, '.platform-sync'), { recursive: true });
    const server = await startTestEmulator({
      statePath: join(cwd, '.platform-sync', 'emulator.json'),
      lockHolder: 'an emulator server (platform-sync emulator --state .platform-sync/emulator.json)',
    });
    try {
      const run = await runCli(['plan', ACME, '--emulator', '--bootstrap', '--lock-timeout', '0.5'], { cwd });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('is using it (giving up after 1 s, --lock-timeout)');
      expect(run.stderr).toContain(
        `is in use by an emulator server (platform-sync emulator --state .platform-sync/emulator.json) (process ${process.pid}`,
      );
    } finally {
      await server.close();
    }
  });

  it('drift, show, export and plan in a directory without state create nothing, and say the state is per directory', async () => {
    const cwd = join(dir, 'empty');
    mkdirSync(cwd);
    for (const args of [
      ['drift', ACME],
      ['show', ACME],
      ['export', '--org', 'acme'],
      ['plan', ACME],
    ]) {
      const run = await runCli([...args, '--emulator'], { cwd });
      expect(run.code, args[0]).toBe(1);
      expect(run.stderr, args[0]).toContain('there is no embedded emulator state in this directory');
      expect(run.stderr, args[0]).toContain('The state is kept per directory');
      expect(run.stderr, args[0]).not.toMatch(/a wrong base URL|127\.0\.0\.1:\d+/);
    }
    expect(existsSync(join(cwd, '.platform-sync'))).toBe(false);
  });

  it('apply makes .platform-sync/ with a .gitignore of everything, and keeps no secret in clear there', async () => {
    const cwd = join(dir, 'applied');
    mkdirSync(cwd);
    const run = await runCli(['apply', ACME, '--emulator', '--bootstrap', '--auto-approve'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(cwd, '.platform-sync', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    const files = ['emulator.json', 'emulator.json.journal'].filter((f) => existsSync(join(cwd, '.platform-sync', f)));
    const text = files.map((f) => readFileSync(join(cwd, '.platform-sync', f), 'utf8')).join('\n');
    expect(text).toContain('"clientSecret":"sha256:');
    expect(text).not.toContain('acme-okta-secret-made-up-for-tests');
  });
});
