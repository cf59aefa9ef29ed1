/**
 * A reader that closes the pipe early (`plan | head`, `validate --help | head -1`): the process
 * ends quietly with the exit code it would have had, never an EPIPE stack trace (DESIGN.md §5).
 * A real process and a real pipe: that is what this is about.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ACME, BIN, CODE_CACHE_ENV, makeTempDir } from './cli-harness.js';

/** Runs the bin, reads the first chunk of stdout, then closes the pipe; resolves with the exit code and stderr. */
function runAndCloseEarly(
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stderr: string; first: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        NO_COLOR: '1',
        PLATFORM_SYNC_SECRET_ACME_OKTA: 'acme-okta-secret-made-up-for-tests',
        ...CODE_CACHE_ENV,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let first = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.once('data', (c: Buffer) => {
      first = c.toString().split('\n')[0]!;
      child.stdout.destroy();
    });
    child.on('exit', (code) => resolve({ code, stderr, first }));
  });
}

describe('a pipe closed by its reader', () => {
  const temp = makeTempDir('closed-pipe');
  afterAll(() => temp.remove());

  it('validate --help | head -1 exits 0 without a trace', async () => {
    const run = await runAndCloseEarly(['validate', '--help'], temp.dir);
    expect(run.first).toContain('Usage: platform-sync validate');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('plan | head exits as the plan would have, without a trace', async () => {
    const run = await runAndCloseEarly(['plan', ACME, '--emulator', '--bootstrap'], temp.dir);
    expect(run.first).toContain('platform-sync will make these changes');
    expect(run.stderr).not.toMatch(/EPIPE|node:events|at /);
    expect(run.code).toBe(0);
  });
});
