/**
 * `platform-sync show` (DESIGN.md §5): after a bootstrap, the uid of every declared resource that
 * exists live — read-only, matched as the planner matches, so a workflow can log in as an
 * identity it declared.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/live/index.js';
import type { ShownResources } from '../../src/show.js';
import { startEmulator } from '../../src/emulator/index.js';
import { ACME, applyManifests, openClient, runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'show-e2e-owner-token-5b21';

describe('show on a bootstrapped org', () => {
  const suite = useSuiteEmulator(TOKEN, 'show', async (emulator) => {
    await applyManifests(emulator.url, TOKEN, [ACME]);
  });

  it('prints, as JSON, the live uid of every declared resource with zero writes', async () => {
    const before = suite.emulator.requestLog.length;
    const run = await runCli(['show', ACME, '--format', 'json'], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    const shown = JSON.parse(run.stdout) as ShownResources;
    const client = openClient(suite.emulator.url, TOKEN);
    const live = await readLiveState(client, { org: { name: 'acme' } }).finally(() => client.close());
    expect(shown.formatVersion).toBe(1);
    expect(shown.org).toEqual({ name: 'acme', uid: live.org!.uid });
    // Everything declared was applied, so every live resource the manifests own is listed, with its own uid.
    const liveUids = new Map(live.resources.map((r) => [r.uid, r]));
    expect(shown.resources.length).toBeGreaterThan(20);
    for (const r of shown.resources) expect(liveUids.get(r.uid)?.kind, r.address).toBe(r.kind);
    const ciBot = live.resources.find((r) => r.address === 'identity:engineering/ci-bot')!;
    expect(shown.resources).toContainEqual({
      address: 'identity:engineering/ci-bot',
      kind: 'identity',
      uid: ciBot.uid,
    });
    expect(shown.resources.map((r) => r.address)).toEqual([...shown.resources.map((r) => r.address)].sort());
    expect(suite.emulator.requestLog.slice(before).filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('prints address and uid per line as text, and leaves out what is declared but not live yet', async () => {
    const dir = join(suite.dir, 'manifests');
    cpSync(ACME, dir, { recursive: true });
    writeFileSync(
      join(dir, 'new.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - name: not-yet-applied\n      claimMatch: {issuer: "https://issuer.example.com", subject: "x"}\n',
    );
    const run = await runCli(['show', dir], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^org acme \([0-9a-f]{40}\):\n/);
    expect(run.stdout).toMatch(/\n {2}identity:engineering\/ci-bot +[0-9a-f/]+\n/);
    expect(run.stdout).not.toContain('not-yet-applied');
  });

  it('finds a resource renamed in the manifests but not yet applied under its new address, with its old uid', async () => {
    const dir = join(suite.dir, 'renamed');
    cpSync(ACME, dir, { recursive: true });
    const file = join(dir, 'engineering.yaml');
    const renamed = readFileSync(file, 'utf8')
      .replaceAll('ci-bot', 'ci-runner')
      .replace('- name: ci-runner\n', '- name: ci-runner\n          renamedFrom: ci-bot\n');
    writeFileSync(file, renamed);
    const before = (
      JSON.parse((await runCli(['show', ACME, '--format', 'json'], { env: suite.env })).stdout) as ShownResources
    ).resources;
    const after = (
      JSON.parse((await runCli(['show', dir, '--format', 'json'], { env: suite.env })).stdout) as ShownResources
    ).resources;
    const oldUid = before.find((r) => r.address === 'identity:engineering/ci-bot')!.uid;
    expect(after).toContainEqual({ address: 'identity:engineering/ci-runner', kind: 'identity', uid: oldUid });
  });

  it('exits 1 naming the org when it is not visible', async () => {
    const empty = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    try {
      const run = await runCli(['show', ACME], { env: { PLATFORM_API_URL: empty.url, PLATFORM_TOKEN: TOKEN } });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('org "acme" is not visible');
      expect(run.stdout).toBe('');
    } finally {
      await empty.close();
    }
  });
});
