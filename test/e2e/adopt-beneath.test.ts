/**
 * adopt where one edit lies beneath another (DESIGN.md §4 "Drift both ways"; found by the
 * review): a group deleted by hand that holds other declared resources, one that holds a
 * protected resource, and a secret reference inside a field changed by hand.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { REPO_ROOT, makeTempDir, openClient, runCli } from './cli-harness.js';

const OWNER = 'adopt-beneath-owner-token-6c2e';
const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'adopt');

/** The `create`/`delete`/`update` steps `plan` shows for `dir`, as `action address`. */
async function planSteps(dir: string, env: Record<string, string>): Promise<string[]> {
  const plan = await runCli(['plan', dir, '--format', 'json'], { env });
  expect(plan.stderr).toBe('');
  return JSON.parse(plan.stdout).steps.map((s: { action: string; address: string }) => `${s.action} ${s.address}`);
}

describe('adopt: edits beneath edits', () => {
  /** One emulator per test: each applies the fixture to an org of its own. */
  let emulator: Emulator;
  let env: Record<string, string>;
  const temp = makeTempDir('adopt-beneath');

  beforeEach(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: OWNER };
  });
  afterEach(async () => {
    await emulator?.close();
  });
  afterAll(() => temp.remove());

  /** The adopt fixture in a directory of its own, `edit`ed, applied. */
  async function applied(name: string, edit: (dir: string) => void, ...flags: string[]): Promise<string> {
    const dir = join(temp.dir, name);
    cpSync(FIXTURE, dir, { recursive: true });
    edit(dir);
    const codes = join(temp.dir, `${name}-codes.jsonl`);
    const run = await runCli(['apply', dir, '--bootstrap', '--auto-approve', '--invite-codes', codes, ...flags], {
      env,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    return dir;
  }

  /** Deletes a group made by the fixture and everything beneath it, children first. */
  async function deleteLive(path: string[]): Promise<void> {
    const client = openClient(emulator.url, OWNER);
    try {
      let group = (await client.list('group', { name: 'adoptco' })).items[0]!;
      for (const name of path) group = (await client.list('group', { childrenOf: group.uid, name })).items[0]!;
      for (const kind of ['roleBinding', 'repo', 'identity'] as const)
        for (const r of (await client.list(kind, { childrenOf: group.uid })).items) await client.delete(kind, r.uid);
      await client.delete('group', group.uid);
    } finally {
      await client.close();
    }
  }

  it('removes a group deleted by hand together with the resources declared in it, and plan is then empty', async () => {
    const dir = await applied('whole-group', () => undefined);
    await deleteLive(['engineering']);
    const run = await runCli(['adopt', dir, '--write'], { env, cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('group:engineering removed');
    const eng = readFileSync(join(dir, 'engineering.yaml'), 'utf8');
    expect(eng).not.toContain('engineering');
    expect(eng).toContain("# Engineering's own lists.\napiVersion: platform-sync/v1\norg:\n  name: adoptco\n");
    const org = readFileSync(join(dir, 'org.yaml'), 'utf8');
    expect(org).not.toContain('- name: engineering');
    expect(org).toContain('    - name: legacy\n');
    expect(await planSteps(dir, env)).toEqual([]);
  });

  it('keeps a group deleted by hand that holds a protected resource: said left, and its declaration stays byte for byte', async () => {
    const vault = [
      '# The crown jewels: protected, recreated by apply if anyone deletes them.',
      'apiVersion: platform-sync/v1',
      'org:',
      '  name: adoptco',
      '  groups:',
      '    - name: vault   # keep',
      '      repos:',
      '        - name: crown-jewels',
      '          readme: |',
      '            # Crown jewels',
      '            Never delete.',
      '',
    ].join('\n');
    const dir = await applied('protected', (d) => {
      writeFileSync(join(d, 'vault.yaml'), vault);
      const orgFile = join(d, 'org.yaml');
      const ignore = '  ignore: ["identity:*/human-*"]\n';
      writeFileSync(orgFile, readFileSync(orgFile, 'utf8').replace(ignore, `${ignore}  protect: ["repo:vault/*"]\n`));
    });
    await deleteLive(['vault']);
    const run = await runCli(['adopt', dir, '--write'], { env, cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/! repo:vault\/crown-jewels left: protected/);
    expect(run.stdout).toMatch(/! group:vault left: it holds protected repo:vault\/crown-jewels/);
    expect(readFileSync(join(dir, 'vault.yaml'), 'utf8')).toBe(vault);
    // Apply creates them again: adopt left them on purpose.
    expect(await planSteps(dir, env)).toEqual(['create group:vault', 'create repo:vault/crown-jewels']);
  });

  it('keeps an identity provider deleted by hand that holds a protected group mapping', async () => {
    const provider = [
      '  identityProviders:',
      '    - name: sso',
      '      defaultRole: viewer',
      '      oidc: {issuer: "https://sso.adoptco.dev", clientId: sso-1, clientSecret: {fromFile: sso.txt}}',
      '      groupMappings:',
      '        - {externalGroup: admins, role: viewer}   # the break-glass mapping',
      '',
    ].join('\n');
    writeFileSync(join(temp.dir, 'sso.txt'), 'a-secret-the-api-never-returns-9012\n');
    const dir = await applied(
      'protected-mapping',
      (d) => {
        const orgFile = join(d, 'org.yaml');
        const ignore = '  ignore: ["identity:*/human-*"]\n';
        const text = readFileSync(orgFile, 'utf8')
          .replace('  repos:\n', `${provider}\n  repos:\n`)
          .replace(ignore, `${ignore}  protect: ["groupMapping:*"]\n`);
        writeFileSync(orgFile, text);
      },
      '--secrets-dir',
      temp.dir,
    );
    const before = readFileSync(join(dir, 'org.yaml'), 'utf8');
    const client = openClient(emulator.url, OWNER);
    try {
      const org = (await client.list('group', { name: 'adoptco' })).items[0]!;
      const sso = (await client.list('identityProvider', { childrenOf: org.uid, name: 'sso' })).items[0]!;
      for (const m of (await client.list('groupMapping', { childrenOf: sso.uid })).items)
        await client.delete('groupMapping', m.uid);
      await client.delete('identityProvider', sso.uid);
    } finally {
      await client.close();
    }
    const run = await runCli(['adopt', dir, '--write'], { env, cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/! groupMapping:identityProvider:sso\/admins=viewer left: protected/);
    expect(run.stdout).toMatch(/! identityProvider:sso left: it holds protected groupMapping:/);
    expect(readFileSync(join(dir, 'org.yaml'), 'utf8')).toBe(before);
  });

  it('keeps a secret reference as the manifest writes it when another field of its resource changed by hand', async () => {
    const dir = await applied(
      'secret',
      (d) => {
        const orgFile = join(d, 'org.yaml');
        const provider = [
          '  identityProviders:',
          '    - name: okta',
          '      defaultRole: viewer',
          '      oidc:',
          '        issuer: https://adoptco.okta.com',
          '        clientId: 0oa1adoptco',
          '        clientSecret: {fromFile: okta.txt}   # kept in a file, see runbook',
          '        additionalScopes: [email]',
          '        groupsClaim: groups',
          '',
        ].join('\n');
        writeFileSync(orgFile, readFileSync(orgFile, 'utf8').replace('  repos:\n', `${provider}\n  repos:\n`));
        writeFileSync(join(temp.dir, 'okta.txt'), 'a-secret-the-api-never-returns-5678\n');
      },
      '--secrets-dir',
      temp.dir,
    );
    const client = openClient(emulator.url, OWNER);
    try {
      const org = (await client.list('group', { name: 'adoptco' })).items[0]!;
      const okta = (await client.list('identityProvider', { childrenOf: org.uid, name: 'okta' })).items[0]!;
      await client.update('identityProvider', okta.uid, { oidc: { groupsClaim: 'grps' } }, ['oidc.groupsClaim']);
    } finally {
      await client.close();
    }
    const before = readFileSync(join(dir, 'org.yaml'), 'utf8');
    const run = await runCli(['adopt', dir, '--write'], { env, cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(2);
    expect(readFileSync(join(dir, 'org.yaml'), 'utf8')).toBe(
      before.replace('        groupsClaim: groups\n', '        groupsClaim: grps\n'),
    );
    expect(await planSteps(dir, env)).toEqual([]);
  });
});
