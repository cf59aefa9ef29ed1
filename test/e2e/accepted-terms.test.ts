/**
 * The org's accepted terms (DESIGN.md §2, §3): declared documents are accepted by one POST
 * each, a re-plan is empty, a document left out stays accepted (a note in plan and drift, never
 * a step), and the export writes them back.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'terms-e2e-token-62b0';
const manifest = (ids: string[]) =>
  `apiVersion: platform-sync/v1\norg:\n  name: acme\n  acceptedTerms: [${ids.join(', ')}]\n`;

describe('accepted terms', () => {
  const suite = useSuiteEmulator(TOKEN, 'terms', () => mkdirSync(dir));
  const dir = join(suite.dir, 'm');

  it('accepts each declared document by a POST to the org, and a re-plan is empty', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest(['platform-tos-2026', 'dpa-2025']));
    const apply = await runCli(['apply', dir, '--bootstrap', '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stderr).toBe(0);
    const posts = suite.emulator.requestLog.filter((e) => e.method === 'POST' && e.path.startsWith('/iam/v2/terms/'));
    expect(posts).toHaveLength(2);
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('keeps a document left out: a note in plan and drift, never a step', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest(['dpa-2025']));
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env });
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      'terms:platform-tos-2026 stays: accepted terms documents are permanent, so leaving one out of the manifests changes nothing',
    );
    const drift = await runCli(['drift', dir], { env: suite.env });
    expect(drift.code).toBe(0);
    expect(drift.stdout).toContain('terms:platform-tos-2026 stays');
  });

  it('is exported and plans back to nothing', async () => {
    const out = join(suite.dir, 'exported');
    expect((await runCli(['export', '--org', 'acme', '--out', out], { env: suite.env })).code).toBe(0);
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toContain('acceptedTerms: [ dpa-2025, platform-tos-2026 ]');
    expect((await runCli(['plan', out, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });
});
