/**
 * The invite-codes file holds whole lines only (DESIGN.md §4, §8 rev 5: appended, written
 * atomically; a code that cannot be kept deletes its invite again). A write the system cuts short
 * without an error (a file-size limit, a disk filling up) is not a kept code: the line is finished
 * or taken back, never left half-written for the next reader, with the invite left open. A real
 * process, because the limit is one (`ulimit -f`).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'invite-codes-short-write-token-7c2e';

describe('the invite-codes file when a write is cut short', () => {
  const suite = useSuiteEmulator(TOKEN, 'invite-codes-short-write', (emulator) => {
    emulator.seed({ orgs: [{ name: 'cut' }] });
  });

  it('takes the partial line back and deletes the invite again: the file holds what it held, whole lines', async () => {
    const manifest = join(suite.dir, 'cut.yaml');
    writeFileSync(
      manifest,
      'apiVersion: platform-sync/v1\norg:\n  name: cut\n  members:\n    - {email: a@example.com, role: viewer}\n',
    );
    // 1000 bytes of an earlier apply's lines: under the 1024-byte limit, with no room for another line.
    const codes = join(suite.dir, 'codes.jsonl');
    const earlier = `${JSON.stringify({ group: '', email: 'old@example.com', role: 'viewer', code: 'x'.repeat(935) })}\n`;
    expect(earlier.length).toBe(1000);
    writeFileSync(codes, earlier, { mode: 0o600 });
    const quoted = [process.execPath, BIN, 'apply', manifest, '--auto-approve', '--invite-codes', codes].map(
      (a) => `'${a.replace(/'/g, `'\\''`)}'`,
    );
    // Async: the emulator answers from this process while the child runs.
    const run = await promisify(execFile)('bash', ['-c', `ulimit -f 1; exec ${quoted.join(' ')}`], {
      env: { ...process.env, ...suite.env, NO_COLOR: '1' },
      encoding: 'utf8',
    }).then(
      (done) => ({ status: 0, ...done }),
      (failed: { code: number; stdout: string; stderr: string }) => ({ status: failed.code, ...failed }),
    );
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.stdout + run.stderr).toContain('its code could not be kept');
    expect(readFileSync(codes, 'utf8')).toBe(earlier);
    // The invite whose code was not kept is gone again: the next apply invites anew.
    const plan = await runCli(['plan', manifest, '--detailed-exitcode'], { env: suite.env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(2);
    expect(plan.stdout).toContain('a@example.com');
  });
});
