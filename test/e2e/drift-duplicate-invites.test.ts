/**
 * Two invites made by hand for one e-mail and role share one address (DESIGN.md §2: "live state
 * with two siblings of one name is reported as an ambiguity, never guessed at"). Found by the
 * review: when no members line declared that address, plan said "No changes" and drift "No
 * drift" (exit 0) — two invites that grant a role, unreported and never pruned.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'drift-duplicate-invites-token-3e1a';
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('duplicate invites nothing declares', () => {
  const suite = useSuiteEmulator(TOKEN, 'drift-dup-invites', (emulator) => {
    mkdirSync(dir);
    emulator.seed({
      orgs: [
        {
          name: 'acme',
          groupInvites: [
            { role: 'viewer', email: 'eve@acme.dev', expirationTime: iso(Date.now() + 3 * DAY) },
            { role: 'viewer', email: 'Eve@acme.dev', expirationTime: iso(Date.now() + 4 * DAY) },
          ],
        },
      ],
    });
  });
  const dir = join(suite.dir, 'm');
  const org = (settings: string[] = []) =>
    ['apiVersion: platform-sync/v1', ...settings, 'org:', '  name: acme', ''].join('\n');

  it('drift is an error naming both invites, never "No drift"', async () => {
    writeFileSync(join(dir, 'org.yaml'), org());
    const drift = await runCli(['drift', dir], { env: suite.env });
    expect(drift.stdout).not.toContain('No drift');
    expect(drift.code, drift.stdout).toBe(1);
    expect(drift.stderr).toMatch(/groupInvite:eve@acme\.dev=viewer matches 2 live resources \(\S+, \S+\)/);
  });

  it('plan is refused, naming them', async () => {
    writeFileSync(join(dir, 'org.yaml'), org());
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env });
    expect(plan.code, plan.stdout).toBe(1);
    expect(`${plan.stdout}${plan.stderr}`).toContain('groupInvite:eve@acme.dev=viewer matches 2 live resources');
  });

  it('left alone when ignored, or when invites are not pruned', async () => {
    for (const settings of [
      ['settings:', '  ignore: ["groupInvite:eve@acme.dev=*"]'],
      ['settings:', '  prune: {groupInvites: false}'],
    ]) {
      writeFileSync(join(dir, 'org.yaml'), org(settings));
      const drift = await runCli(['drift', dir], { env: suite.env });
      expect(drift.code, `${settings.join('\n')}\n${drift.stdout}${drift.stderr}`).toBe(0);
    }
  });
});
