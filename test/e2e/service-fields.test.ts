/**
 * Fields the real service sends that platform-sync does not manage (DESIGN.md §2: groups'
 * `resourceLimits`, `verified`; identities' `email`, `company`) are ignored: never planned,
 * drifted or exported. The emulator behind a proxy that adds them to every resource it returns.
 * (A repo's `catalogTier`, `aliases` and `activeTags` are managed since rev 5: repo-bundles-sync.test.ts.)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { startRewritingProxy, type RewritingProxy } from '../support/rewriting-proxy.js';
import { ACME, applyManifests, runCli } from './cli-harness.js';

const TOKEN = 'service-fields-owner-token-8f2c';
const EXTRA: Record<string, Record<string, unknown>> = {
  groups: { resourceLimits: { repos: 100 }, verified: true },
  // Not `email`: the service reports it for people, and a person bound to a role is exported as a
  // members line (DESIGN.md §2, §4) — see members-seeded.test.ts.
  identities: { company: 'Acme' },
};

function withServiceFields(body: unknown): unknown {
  if (body === null || typeof body !== 'object') return body;
  const out = { ...(body as Record<string, unknown>) };
  for (const [plural, extra] of Object.entries(EXTRA)) {
    if (Array.isArray(out[plural]))
      out[plural] = (out[plural] as Record<string, unknown>[]).map((item) => ({ ...item, ...extra }));
  }
  return out;
}

describe('fields of the service that platform-sync does not manage', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    await applyManifests(emulator.url, TOKEN, [ACME]);
    proxy = await startRewritingProxy(emulator.url, (_request, body) => withServiceFields(body));
    env = { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: TOKEN };
  });
  afterAll(async () => {
    await proxy?.close();
    await emulator?.close();
  });

  it('are never planned or drifted', async () => {
    const listed = proxy.seen.length;
    const plan = await runCli(['plan', ACME, '--detailed-exitcode'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(proxy.seen.length).toBeGreaterThan(listed); // the proxy really answered
    expect((await runCli(['drift', ACME], { env })).code).toBe(0);
  });

  it('are never exported', async () => {
    const out = mkdtempSync(join(tmpdir(), 'service-fields-'));
    try {
      expect((await runCli(['export', '--org', 'acme', '--out', join(out, 'x')], { env })).code).toBe(0);
      const text = readdirSync(join(out, 'x'))
        .map((f) => readFileSync(join(out, 'x', f), 'utf8'))
        .join('\n');
      for (const field of Object.values(EXTRA).flatMap((e) => Object.keys(e)))
        expect(text).not.toMatch(new RegExp(`\\b${field}:`));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
