/**
 * The emulator's state through the door in (DESIGN.md §6, §8 rev 4, issue 35): the lock names the
 * file, not its spelling, and a state path that is no regular file is refused at once.
 */
import { spawnSync } from 'node:child_process';
import { linkSync, lstatSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestEmulator } from './emulator-helpers.js';
import { runCli } from '../e2e/cli-harness.js';
import { mkdirSync, writeFileSync } from 'node:fs';

const dir = mkdtempSync(join(tmpdir(), 'emulator-door-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = (work: Promise<{ close(): Promise<void> }>) =>
  work.then(
    async (emu) => {
      await emu.close();
      return 'started';
    },
    (err: Error) => err.message,
  );

describe('regression 10: the lock is the file, however it is spelled', () => {
  it('a second emulator on a symlink or a hard link to a held state is refused, and the link stays a link', async () => {
    const state = join(dir, 'held.json');
    const first = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'acme' }] } });
    try {
      const soft = join(dir, 'soft.json');
      symlinkSync(state, soft);
      const hard = join(dir, 'hard.json');
      linkSync(state, hard);
      for (const other of [soft, hard])
        expect(await refusal(startTestEmulator({ statePath: other }))).toContain('is in use by');
      expect(lstatSync(soft).isSymbolicLink()).toBe(true);
    } finally {
      await first.close();
    }
  });

  it('an emulator started on a symlink writes through it: the link is still a link after it closes', async () => {
    const state = join(dir, 'target.json');
    const seeded = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'acme' }] } });
    await seeded.close();
    const link = join(dir, 'via-link.json');
    symlinkSync(state, link);
    const emu = await startTestEmulator({ statePath: link });
    await emu.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });
});

describe('regression 11: a state path that is no regular file', () => {
  it('a state linked to /dev/zero or a FIFO is refused at once, naming the file', async () => {
    const zero = join(dir, 'zero.json');
    symlinkSync('/dev/zero', zero);
    expect(await refusal(startTestEmulator({ statePath: zero }))).toContain('is not a regular file');
    const fifo = join(dir, 'fifo.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(await refusal(startTestEmulator({ statePath: fifo }))).toContain('is not a regular file');
  });

  it('plan --emulator with a committed .platform-sync/emulator.json -> /dev/zero exits 1 with a clear error', async () => {
    const cwd = join(dir, 'committed');
    mkdirSync(join(cwd, '.platform-sync'), { recursive: true });
    symlinkSync('/dev/zero', join(cwd, '.platform-sync', 'emulator.json'));
    writeFileSync(join(cwd, 'org.yaml'), 'apiVersion: platform-sync/v1\norg:\n  name: acme\n');
    const run = await runCli(['plan', join(cwd, 'org.yaml'), '--emulator'], { cwd, env: {} });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not a regular file');
    expect(run.stderr).not.toContain('internal error');
  });
});
