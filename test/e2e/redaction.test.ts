/**
 * The token never leaves the CLI, even when the API hands it back inside data: someone set a
 * repo's description and readme to it, and named an identity after it. Every command that
 * reads live state prints, and every file it writes holds, `[REDACTED]` instead — but export, which
 * must describe live as it is, refuses and names where the token is.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACME, applyManifests, openClient, runCli, type CliRun, useSuiteEmulator } from './cli-harness.js';

/** Lowercase letters, digits and dashes: valid as a resource name too. */
const TOKEN = 'redaction-e2e-owner-token-4b7c19';

describe('the token planted in live data', () => {
  const suite = useSuiteEmulator(TOKEN, 'redaction', async (emulator) => {
    await applyManifests(emulator.url, TOKEN, [ACME]);
    const client = openClient(emulator.url, TOKEN);
    try {
      const org = (await client.list('group', { name: 'acme' })).items[0]!;
      const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { description: `leaked: ${TOKEN} (pasted by mistake)` }, ['description']);
      await client.create('identity', org.uid, { name: TOKEN, description: `also ${TOKEN}` });
    } finally {
      await client.close();
    }
  });

  /** Asserts the run shows the data (redacted) and never the token. */
  function expectRedacted(run: CliRun, label: string): void {
    expect(run.stdout + run.stderr, label).not.toContain(TOKEN);
    expect(run.stdout + run.stderr, label).toContain('[REDACTED]');
  }

  it('never appears in plan output (text, json, markdown) or in a saved plan', async () => {
    for (const format of ['text', 'json', 'markdown']) {
      const run = await runCli(['plan', ACME, '--bootstrap', '--format', format], { env: suite.env });
      expect(run.code, run.stderr).toBe(0);
      expectRedacted(run, `plan --format ${format}`);
    }
    const saved = join(suite.dir, 'p.json');
    const run = await runCli(['plan', ACME, '--bootstrap', '--out', saved], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    const file = readFileSync(saved, 'utf8');
    expect(file).not.toContain(TOKEN);
    expect(file).toContain('[REDACTED]');
  });

  it('never appears in drift output or in the job summary', async () => {
    const summary = join(suite.dir, 'summary.md');
    for (const format of ['text', 'json', 'markdown']) {
      const run = await runCli(['drift', ACME, '--format', format], {
        env: { ...suite.env, GITHUB_STEP_SUMMARY: summary },
      });
      expect(run.code, run.stderr).toBe(2);
      expectRedacted(run, `drift --format ${format}`);
    }
    const written = readFileSync(summary, 'utf8');
    expect(written).not.toContain(TOKEN);
    expect(written).toContain('[REDACTED]');
  });

  it('never appears in an export, nor a [REDACTED] in its place: export refuses, naming where it is, and writes nothing', async () => {
    const out = join(suite.dir, 'export');
    for (const args of [[], ['--out', out]]) {
      const run = await runCli(['export', '--org', 'acme', ...args], { env: suite.env });
      expect(run.code, run.stderr).toBe(1);
      expectRedacted(run, `export ${args.join(' ')}`);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('live values hold a secret this run holds');
      expect(run.stderr).toContain('description\n');
    }
    expect(existsSync(out)).toBe(false);
  });

  it('never appears in apply --format json (the plan and every event)', async () => {
    const run = await runCli(['apply', ACME, '--bootstrap', '--auto-approve', '--format', 'json'], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    expectRedacted(run, 'apply --format json');
    // The apply did what the plan said: the description is restored, the identity deleted.
    const check = await runCli(['plan', ACME, '--bootstrap', '--detailed-exitcode'], { env: suite.env });
    expect(check.code, check.stdout).toBe(0);
  });
});
