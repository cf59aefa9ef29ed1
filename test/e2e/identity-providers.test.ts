/**
 * SSO identity providers end to end (DESIGN.md §2, §3): created with their default role (a
 * role the same plan creates), their group mappings (scoped to the org) and a client secret read from the environment at apply time;
 * re-planned to nothing; the secret re-sent only by --rotate-secrets; a changed default role is
 * one PATCH; deleted before the role they reference; exported as a fromEnv reference. A known
 * secret value is searched for in everything a run writes: it is found only in the one create
 * request (and the one rotation) the server received.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRecordedEmulator } from '../support/recorded-emulator.js';
import { makeTempDir, runCli, type CliRun } from './cli-harness.js';

const TOKEN = 'idp-e2e-owner-token-77c0';
const SECRET = 'okta-client-s3cret-value-4821';
const ROTATED = 'okta-client-s3cret-rotated-9930';

const manifest = (defaultRole: string, withIdp = true) =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  roles:',
    '    - name: sso-user',
    '      capabilities: [repo.list]',
    ...(withIdp
      ? [
          '  identityProviders:',
          '    - name: okta',
          '      description: People of Acme',
          `      defaultRole: ${defaultRole}`,
          '      oidc:',
          '        issuer: https://acme.okta.com',
          '        clientId: 0oa1b2c3d4',
          '        clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}',
          '        additionalScopes: [email, groups]',
          '        groupsClaim: groups',
          '      groupMappings:',
          '        - externalGroup: platform-admins',
          '          role: owner',
          '        - externalGroup: everyone',
          '          role: sso-user',
        ]
      : []),
    '',
  ].join('\n');

describe('identity providers', () => {
  const api = useRecordedEmulator({ token: TOKEN, seed: { orgs: [{ name: 'acme' }] } });
  const temp = makeTempDir('idp');
  const dir = join(temp.dir, 'manifests');
  const runs: CliRun[] = [];
  const run = async (args: string[], extra: Record<string, string> = {}) => {
    const r = await runCli(args, { env: { ...api.env, GITHUB_STEP_SUMMARY: join(temp.dir, 'summary.md'), ...extra } });
    runs.push(r);
    return r;
  };
  const writes = () => api.proxy.seen.filter((e) => e.method !== 'GET');

  beforeAll(() => mkdirSync(dir));
  afterAll(() => temp.remove());

  it('regression 15 (issue 35): plans with a warning when the secret it would send is missing (a fork PR has none); apply is refused naming it and writes nothing', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('sso-user'));
    const plan = await run(['plan', dir]);
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain(
      'Warning: identityProvider:okta (oidc.clientSecret): the secret is not available: environment variable PLATFORM_SYNC_SECRET_OKTA is not set; it is read at apply',
    );
    expect(plan.stdout).toContain('oidc.clientSecret: (sensitive: read from $PLATFORM_SYNC_SECRET_OKTA at apply time)');
    const apply = await run(['apply', dir, '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('PLATFORM_SYNC_SECRET_OKTA is not set');
    expect(writes()).toEqual([]);
  });

  it('is created with its default role (created by the same plan) and the secret read at apply time; a re-plan is empty', async () => {
    const planFile = join(temp.dir, 'plan.json');
    expect((await run(['plan', dir, '--out', planFile], { PLATFORM_SYNC_SECRET_OKTA: SECRET })).code).toBe(0);
    const saved = readFileSync(planFile, 'utf8');
    expect(saved).toContain('"fromEnv": "PLATFORM_SYNC_SECRET_OKTA"');
    const apply = await run(['apply', planFile, '--auto-approve', '--verbose'], { PLATFORM_SYNC_SECRET_OKTA: SECRET });
    expect(apply.code, apply.stderr).toBe(0);
    const idpCreate = writes().find((e) => e.method === 'POST' && e.path.startsWith('/iam/v2/identityProviders/'))!;
    const body = JSON.parse(idpCreate.body) as { defaultRole: string; oidc: { clientSecret: string } };
    expect(body.oidc.clientSecret).toBe(SECRET);
    const role = writes().find((e) => e.method === 'POST' && e.path.startsWith('/iam/v2/roles/'))!;
    expect(api.proxy.seen.indexOf(role)).toBeLessThan(api.proxy.seen.indexOf(idpCreate));
    expect(body.defaultRole).toMatch(/^[0-9a-f]{40}\/[0-9a-f]{16}$/);
    const again = await run(['plan', dir, '--detailed-exitcode']);
    expect(again.code, again.stdout).toBe(0);
  });

  it('sends the secret again only with --rotate-secrets: one PATCH whose mask names it', async () => {
    const before = writes().length;
    expect((await run(['apply', dir, '--auto-approve'], { PLATFORM_SYNC_SECRET_OKTA: ROTATED })).code).toBe(0);
    expect(writes().length).toBe(before);
    const rotate = await run(['apply', dir, '--auto-approve', '--rotate-secrets'], {
      PLATFORM_SYNC_SECRET_OKTA: ROTATED,
    });
    expect(rotate.code, rotate.stderr).toBe(0);
    const patches = writes().slice(before);
    expect(
      patches.map(
        (e) => `${e.method} ${decodeURIComponent(e.path.replace(/^\/iam\/v2\/identityProviders\/[^?]+/, 'IDP'))}`,
      ),
    ).toEqual(['PATCH IDP?updateMask=oidc.clientSecret']);
    expect(JSON.parse(patches[0]!.body)).toEqual({ oidc: { clientSecret: ROTATED } });
  });

  it('changes its default role by one PATCH of defaultRole', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('viewer'));
    const plan = await run(['plan', dir]);
    expect(plan.stdout).toContain('~ update identityProvider:okta');
    expect(plan.stdout).toMatch(/defaultRole: role:sso-user → "[0-9a-f]{40}" \(built-in role viewer\)/);
    const before = writes().length;
    expect((await run(['apply', dir, '--auto-approve'])).code).toBe(0);
    expect(
      writes()
        .slice(before)
        .map((e) => e.method + ' ' + e.path.replace(/\/[0-9a-f/]{40,}/, '/UID')),
    ).toEqual(['PATCH /iam/v2/identityProviders/UID?updateMask=defaultRole']);
  });

  it('is exported as a fromEnv reference and plans to nothing', async () => {
    const out = join(temp.dir, 'exported');
    expect((await run(['export', '--org', 'acme', '--out', out])).code).toBe(0);
    const text = readFileSync(join(out, 'org.yaml'), 'utf8');
    expect(text).toContain('clientSecret: { fromEnv: PLATFORM_SYNC_SECRET_OKTA } # the API never returns a secret');
    // A long block (oidc) is lines of its own, never a flow mapping folded over several (issue 40).
    expect(text).toMatch(/\n +oidc:\n +issuer: /);
    expect(text).not.toMatch(/\{[^}\n]*\n/);
    expect(text).toContain('defaultRole: viewer');
    expect(text).toMatch(
      /groupMappings:\n\s+- externalGroup: everyone\n\s+role: sso-user\n\s+- externalGroup: platform-admins\n\s+role: owner/,
    );
    expect((await run(['plan', out, '--detailed-exitcode'])).code).toBe(0);
  });

  it('is deleted before the role it references', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('sso-user'));
    expect((await run(['apply', dir, '--auto-approve'])).code).toBe(0);
    writeFileSync(join(dir, 'org.yaml'), 'apiVersion: platform-sync/v1\norg:\n  name: acme\n');
    const before = writes().length;
    const apply = await run(['apply', dir, '--auto-approve']);
    expect(apply.code, apply.stdout).toBe(0);
    expect(
      writes()
        .slice(before)
        .map((e) => `${e.method} ${e.path.split('/')[3]}`),
    ).toEqual([
      'DELETE externalGroupRoleMappings',
      'DELETE externalGroupRoleMappings',
      'DELETE identityProviders',
      'DELETE roles',
    ]);
  });

  it('never shows the secret: not in any output, the plan file, the export or the job summary; only in the create and the rotation the server received', () => {
    const written = [
      ...runs.flatMap((r) => [r.stdout, r.stderr]),
      ...readdirSync(temp.dir, { recursive: true, encoding: 'utf8' })
        .map((f) => join(temp.dir, f))
        .filter((f) => /\.(json|md|yaml)$/.test(f))
        .map((f) => readFileSync(f, 'utf8')),
    ].join('\n');
    expect(written.length).toBeGreaterThan(1000);
    for (const secret of [SECRET, ROTATED]) expect(written).not.toContain(secret);
    expect(api.proxy.seen.filter((e) => e.body.includes(SECRET) || e.path.includes(SECRET))).toHaveLength(1);
    expect(api.proxy.seen.filter((e) => e.body.includes(ROTATED) || e.path.includes(ROTATED))).toHaveLength(1);
  });
});

describe('drift of an identity relationship', () => {
  it('names the part of the relationship that changed by hand', async () => {
    const { startEmulator: start } = await import('../../src/emulator/index.js');
    const emu = await start({ port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    const temp = makeTempDir('drift-rel');
    try {
      const env = { PLATFORM_API_URL: emu.url, PLATFORM_TOKEN: TOKEN };
      const file = join(temp.dir, 'org.yaml');
      writeFileSync(
        file,
        'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - name: ci\n      claimMatch: {issuer: "https://token.actions.githubusercontent.com", subjectPattern: "repo:acme/.*:ref:refs/heads/main"}\n',
      );
      expect((await runCli(['apply', file, '--bootstrap', '--auto-approve'], { env })).code).toBe(0);
      const ci = (await (
        await fetch(`${emu.url}/iam/v2/identities?name=ci`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json()) as { identities: { uid: string }[] };
      await fetch(`${emu.url}/iam/v2/identities/${ci.identities[0]!.uid}?updateMask=claimMatch`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subjectPattern: 'repo:.*' },
        }),
      });
      const drift = await runCli(['drift', file, '--format', 'json'], { env });
      expect(drift.code).toBe(2);
      const report = JSON.parse(drift.stdout) as {
        items: { address: string; fields?: { field: string; live: unknown; manifest: unknown }[] }[];
      };
      expect(report.items[0]!.fields).toEqual([
        { field: 'claimMatch.subjectPattern', live: 'repo:.*', manifest: 'repo:acme/.*:ref:refs/heads/main' },
      ]);
    } finally {
      await emu.close();
      temp.remove();
    }
  });
});
