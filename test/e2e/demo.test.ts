/**
 * The guided tour (`npm run demo`, `platform-sync demo`) runs to the end — in process (issue 47:
 * it drives the CLI in process itself, so a spawned node adds only a second start-up).
 */
import { describe, expect, it } from 'vitest';
import { demoMain } from '../../src/cli/demo.js';

/** Runs `fn` with what it writes to stdout and stderr captured. */
async function captured<T>(fn: () => Promise<T>): Promise<{ value: T; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string | Uint8Array) => (
    (stdout += String(chunk)), true
  )) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => (
    (stderr += String(chunk)), true
  )) as typeof process.stderr.write;
  try {
    return { value: await fn(), stdout, stderr };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
}

describe('npm run demo', () => {
  it('runs the guided tour to the end and exits 0', async () => {
    const { value: code, stdout, stderr } = await captured(() => demoMain());
    expect(stderr).toBe('');
    expect(code).toBe(0);
    for (const step of [
      '1. Validate',
      '2. Plan',
      '3. Apply',
      '4. Plan again',
      '6. Drift',
      '7. Export',
      '8. Plan on the export',
      '10. Rename a group',
      '11. Identities of every kind and SSO',
    ]) {
      expect(stdout).toContain(step);
    }
    expect(stdout).toContain('✓ exit 2: drift');
    expect(stdout).toContain('✓ exit 0: in sync');
    expect(stdout).toContain('Demo finished: every step behaved as expected');
    // What to read next, as paths the reader can open from where they ran it (here the checkout;
    // installed, node_modules/platform-sync/…).
    expect(stdout).toContain(
      'Next: `platform-sync init` for a starter repository; the docs in docs/, and examples/github-actions/ for CI.',
    );
  }, 180_000); // ~25 CLI runs in process: ≈2 s on a quiet machine, 3× load must not trip it (issue 47)
});
