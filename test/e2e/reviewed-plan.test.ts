/**
 * Apply what was reviewed (DESIGN.md §5, issue 40 item 2): `apply plan.json --manifests <paths>`
 * applies a saved plan only when the merged manifests are the ones it was made from and live has
 * not changed since; otherwise it fails naming why and changes nothing. The GitHub Action's
 * `reviewed-plan` input runs exactly that on the merge.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'reviewed-plan-token-4e1a';
const org = (repos: string[]) =>
  `apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n${repos.map((r) => `    - {name: ${r}}`).join('\n')}\n`;

describe('apply what was reviewed', () => {
  const suite = useSuiteEmulator(TOKEN, 'reviewed', () => mkdirSync(dir));
  const dir = join(suite.dir, 'manifests');
  const planFile = join(suite.dir, 'plan.json');
  const writes = () => suite.emulator.requestLog.filter((e) => e.method !== 'GET').length;

  it('applies the reviewed plan when the merged manifests are the ones it was made from', async () => {
    writeFileSync(join(dir, 'org.yaml'), org(['app']));
    expect((await runCli(['plan', dir, '--bootstrap', '--out', planFile], { env: suite.env })).code).toBe(0);
    const apply = await runCli(['apply', planFile, '--manifests', dir, '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('✓ create repo:app');
  });

  it('refuses, before any request, a plan whose manifests changed after it was reviewed', async () => {
    writeFileSync(join(dir, 'org.yaml'), org(['app', 'web']));
    expect((await runCli(['plan', dir, '--out', planFile], { env: suite.env })).code).toBe(0);
    // The merge brings one more change nobody saw in this plan.
    writeFileSync(join(dir, 'org.yaml'), org(['app', 'web', 'unreviewed']));
    suite.emulator.clearRequestLog();
    const apply = await runCli(['apply', planFile, '--manifests', dir, '--auto-approve'], { env: suite.env });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('are not the ones this plan was made from');
    expect(apply.stderr).toContain('what was merged is not what was reviewed');
    expect(suite.emulator.requestLog).toEqual([]);
    expect(writes()).toBe(0);
  });

  it('refuses a reviewed plan when live changed since it was made', async () => {
    writeFileSync(join(dir, 'org.yaml'), org(['app', 'web']));
    expect((await runCli(['plan', dir, '--out', planFile], { env: suite.env })).code).toBe(0);
    // Someone changes the org by hand between the review and the merge.
    const root = (await (
      await fetch(`${suite.emulator.url}/iam/v2/groups?name=acme`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { groups: { uid: string }[] };
    const repos = (await (
      await fetch(`${suite.emulator.url}/registry/v2/repos?name=app`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { repos: { uid: string }[] };
    await fetch(`${suite.emulator.url}/registry/v2/repos/${repos.repos[0]!.uid}?updateMask=description`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: '{"description":"by hand"}',
    });
    expect(root.groups).toHaveLength(1);
    const apply = await runCli(['apply', planFile, '--manifests', dir, '--auto-approve'], { env: suite.env });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/stale|changed since/i);
  });

  it('--manifests goes with a saved plan only', async () => {
    const r = await runCli(['apply', dir, '--manifests', dir, '--auto-approve'], { env: suite.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--manifests goes with a saved plan');
  });

  it('refuses a saved plan older than its --plan-ttl, or made in the future, naming its age, before any request (issue 49)', async () => {
    const { readFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'org.yaml'), org(['app', 'web', 'aged']));
    expect((await runCli(['plan', dir, '--out', planFile, '--plan-ttl', '2h'], { env: suite.env })).code).toBe(0);
    const saved = JSON.parse(readFileSync(planFile, 'utf8')) as {
      basis: { options: { now: number; planTtlMs: number } };
    };
    expect(saved.basis.options.planTtlMs).toBe(2 * 3_600_000);
    // Made three hours ago, as a re-run of an old apply job would find it.
    saved.basis.options.now -= 3 * 3_600_000;
    writeFileSync(planFile, JSON.stringify(saved));
    suite.emulator.clearRequestLog();
    const apply = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      'the saved plan was made 3 hours ago, and plans are good for 2 hours (plan --plan-ttl); plan again and review that plan; nothing was changed',
    );
    expect(suite.emulator.requestLog).toEqual([]);
    // Made "in the future" (an edited time), it would never expire: refused beyond five minutes
    // of clock skew (found by the review).
    saved.basis.options.now += 3 * 3_600_000 + 365 * 86_400_000;
    writeFileSync(planFile, JSON.stringify(saved));
    const future = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(future.code).toBe(1);
    expect(future.stderr).toContain(
      'the saved plan says it was made 365 days from now, in the future (clocks may differ by at most 5 minutes), so its age cannot be known; plan again and review that plan; nothing was changed',
    );
    // Within the skew it is as fresh as a plan made now.
    saved.basis.options.now = Date.now() + 4 * 60_000;
    writeFileSync(planFile, JSON.stringify(saved));
    const skewed = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(skewed.code, skewed.stderr).toBe(0);
    expect(skewed.stdout).toContain('✓ create repo:aged');
    const bad = await runCli(['plan', dir, '--out', planFile, '--plan-ttl', 'forever'], { env: suite.env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('expected a duration such as 30m, 72h or 3d');
  });
});
