/**
 * Access you can see (issue 37, DESIGN.md §4, §5), end to end through the CLI in process against
 * the emulator: a plan shows what it changes in effective access first; --deny-new-access
 * refuses a plan that gains access and never one that only loses it; `access` answers what an
 * identity can do and who holds a capability, in the org as the manifests would make it, with
 * the bindings that grant it, in JSON that holds to schemas/access.schema.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import SERVICE from '../../src/service/capabilities.json' with { type: 'json' };
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { openClient, REPO_ROOT, runCli, useSuiteEmulator } from './cli-harness.js';
import { readLiveState } from '../../src/live/index.js';

const TOKEN = 'access-e2e-owner-token-0c3d';
const manifest = (extra: { ciRole?: string; releaseRole: string }) =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  identities:',
    '    - {name: release-bot, servicePrincipal: COSIGNED}',
    '  roleBindings:',
    `    - {identity: release-bot, role: ${extra.releaseRole}}`,
    '  groups:',
    '    - name: engineering',
    '      identities:',
    '        - name: ci-bot',
    '          claimMatch: {issuer: "https://token.actions.githubusercontent.com", subject: "repo:acme/app:ref:refs/heads/main"}',
    ...(extra.ciRole ? ['      roleBindings:', `        - {identity: ci-bot, role: ${extra.ciRole}}`] : []),
    '      groups:',
    '        - name: platform',
    '        - name: web',
  ].join('\n');

const PUSH = SERVICE.builtinRoles['registry.push'];

describe('access changes and platform-sync access', () => {
  const suite = useSuiteEmulator(TOKEN, 'access');
  const file = () => join(suite.dir, 'org.yaml');

  it('a plan says first that ci-bot can now push in engineering and the two groups below; --deny-new-access refuses it', async () => {
    writeFileSync(file(), manifest({ releaseRole: 'editor' }));
    expect((await runCli(['apply', file(), '--bootstrap', '--auto-approve'], { env: suite.env })).code).toBe(0);
    writeFileSync(file(), manifest({ ciRole: 'registry.push', releaseRole: 'editor' }));
    const plan = await runCli(['plan', file()], { env: suite.env });
    expect(plan.code, plan.stderr).toBe(0);
    const access = plan.stdout.indexOf('Access changes:');
    expect(access).toBeGreaterThan(0);
    expect(access).toBeLessThan(plan.stdout.indexOf('+ create roleBinding'));
    expect(plan.stdout).toContain(
      '+ identity:engineering/ci-bot gains all of registry.push (20 capabilities) on group:engineering and 2 groups below',
    );
    const json = JSON.parse((await runCli(['plan', file(), '--format', 'json'], { env: suite.env })).stdout) as {
      accessChanges: unknown[];
    };
    expect(json.accessChanges).toEqual([
      {
        principal: 'identity:engineering/ci-bot',
        identity: 'identity:engineering/ci-bot',
        scope: 'group:engineering',
        gained: [...PUSH].sort(),
        gainedRole: 'registry.push',
        lost: [],
        groups: 3,
        causes: ['roleBinding:engineering/ci-bot=registry.push'],
      },
    ]);
    const md = await runCli(['plan', file(), '--format', 'markdown'], { env: suite.env });
    expect(md.stdout).toContain(
      '| `identity:engineering/ci-bot` | `group:engineering` | 3 groups | ➕ all of registry.push (20 capabilities) |  |',
    );
    const denied = await runCli(['plan', file(), '--deny-new-access'], { env: suite.env });
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      'the plan gives new access (--deny-new-access): identity:engineering/ci-bot gains all of registry.push (20 capabilities) on group:engineering and 2 groups below (by roleBinding:engineering/ci-bot=registry.push)',
    );
    suite.emulator.clearRequestLog();
    expect((await runCli(['apply', file(), '--deny-new-access', '--auto-approve'], { env: suite.env })).code).toBe(1);
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('--deny-new-access never refuses a plan that only loses access', async () => {
    writeFileSync(file(), manifest({ releaseRole: 'viewer' }));
    const plan = await runCli(['plan', file(), '--deny-new-access'], { env: suite.env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/- identity:release-bot loses [^\n]*repo\.delete[^\n]* on org and 3 groups below/);
    expect(plan.stdout).not.toContain(' gains ');
  });

  it('access --identity and --scope --capability answer with the bindings that grant it, of the org as the manifests would make it', async () => {
    writeFileSync(file(), manifest({ ciRole: 'registry.push', releaseRole: 'editor' }));
    const ci = await runCli(['access', file(), '--identity', 'identity:engineering/ci-bot'], { env: suite.env });
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stdout).toContain(
      `group:engineering and 2 groups below: ${[...PUSH].sort().join(', ')}  (roleBinding:engineering/ci-bot=registry.push, role registry.push)`,
    );
    const who = await runCli(['access', file(), '--scope', 'group:engineering/web', '--capability', 'tag.create'], {
      env: suite.env,
    });
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toContain(
      'identity:engineering/ci-bot  (roleBinding:engineering/ci-bot=registry.push, role registry.push, on group:engineering and 2 groups below): tag.create',
    );
    // The service's editor creates repos and subscriptions, not tags (DESIGN.md §2 rev 6).
    expect(who.stdout).not.toContain('identity:release-bot');
    const repos = await runCli(['access', file(), '--scope', 'group:engineering/web', '--capability', 'repo.create'], {
      env: suite.env,
    });
    expect(repos.stdout).toContain(
      'identity:engineering/ci-bot  (roleBinding:engineering/ci-bot=registry.push, role registry.push, on group:engineering and 2 groups below): repo.create',
    );
    expect(repos.stdout).toContain(
      'identity:release-bot  (roleBinding:release-bot=editor, role editor, on org and 3 groups below): repo.create',
    );
    const groups = await runCli(['access', file(), '--capability', 'groups.create'], { env: suite.env });
    expect(groups.stdout).toContain('identity:engineering/ci-bot');
    expect(groups.stdout).not.toContain('identity:release-bot');
    const json = await runCli(['access', file(), '--identity', 'identity:engineering/ci-bot', '--format', 'json'], {
      env: suite.env,
    });
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'access.schema.json'), 'utf8')) as object;
    const validate = new Ajv2020({ strict: false }).compile(schema);
    const report = JSON.parse(json.stdout) as unknown;
    expect(validate(report), JSON.stringify(validate.errors)).toBe(true);
    const bad = await runCli(['access', file(), '--identity', 'identity:release-bot', '--email', 'a@acme.dev'], {
      env: suite.env,
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('ask about one principal at a time');
  });

  it('drift shows the access a hand edit added: a binding made by hand outside the manifests', async () => {
    writeFileSync(file(), manifest({ releaseRole: 'editor' }));
    expect((await runCli(['apply', file(), '--auto-approve'], { env: suite.env })).code).toBe(0);
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      const live = await readLiveState(client, { org: { name: 'acme' } });
      const engineering = live.resources.find((r) => r.address === 'group:engineering')!;
      const ci = live.resources.find((r) => r.address === 'identity:engineering/ci-bot')!;
      await client.create('roleBinding', engineering.uid, { identityUid: ci.uid, roleUid: live.builtinRoles.owner });
    } finally {
      await client.close();
    }
    const drift = await runCli(['drift', file()], { env: suite.env });
    expect(drift.code).toBe(2);
    expect(drift.stdout).toContain('Access differs from the manifests (changed by hand, or not applied yet):');
    // Said as a plan says it (views/access.ts): a whole built-in role by its name, never its 138 capabilities.
    expect(drift.stdout).toContain(
      '+ identity:engineering/ci-bot holds all of owner (138 capabilities) on group:engineering and 2 groups below, which the manifests do not grant',
    );
    const md = await runCli(['drift', file(), '--format', 'markdown'], { env: suite.env });
    expect(md.stdout).toContain('#### Access differs from the manifests — changed by hand, or not applied yet');
    // Read as the plan's access table reads: the reach in groups, each change signed.
    expect(md.stdout).toContain(
      '| `identity:engineering/ci-bot` | `group:engineering` | 3 groups | ➕ all of owner (138 capabilities) |  |',
    );
  });
});
