import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './cli-harness.js';

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
    for (const step of ['1. Validate', '2. Plan', '3. Apply', '4. Plan again', '6. Drift', '7. Export', '8. Plan on the export', '10. Rename a group', '11. Identities of every kind and SSO']) {
      expect(stdout).toContain(step);
    }
    expect(stdout).toContain('✓ exit 2: drift');
    expect(stdout).toContain('✓ exit 0: in sync');
    expect(stdout).toContain('Demo finished: every step behaved as expected');
    // What to read next, as paths the reader can open from where they ran it (here the checkout;
    // installed, node_modules/platform-sync/…).
    expect(stdout).toContain('Next: `platform-sync init` for a starter repository; the docs in docs/, and examples/github-actions/ for CI.');
  }, 60_000);
});
