/**
 * Access you can trust (issue 46, DESIGN.md §4 "Effective access" rev 5), end to end through the
 * CLI in process against the emulator: every way of granting access that the gate used to pass —
 * a binding on a group the plan creates, an owner invite, an identity provider's default role and
 * group mapping, a widened subject, a keys swap, a rename onto another bot, a saved plan applied
 * with --deny-new-access — is an access change of a principal and is refused by the gate; losses
 * are not overstated; `access` answers typos with an error, uids and tokens with grants. (E-mails
 * by ASCII lower case: test/unit/plan-members.test.ts, since the contract keeps a non-ASCII one off the wire.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import SERVICE from '../../src/service/capabilities.json' with { type: 'json' };
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'access-principals-owner-token-5e1a';
const GH = 'https://token.actions.githubusercontent.com';

/** The org every test starts from: release-bot owner, ci-bot viewer, deploy-bot viewer in engineering. */
function manifest(
  o: {
    release?: string;
    ci?: string;
    orgBindings?: string[];
    groups?: string[];
    members?: string[];
    idps?: string[];
    extraIdentities?: string[];
  } = {},
): string {
  return [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  identities:',
    `    - {name: release-bot, ${o.release ?? `claimMatch: {issuer: "${GH}", subject: "repo:acme/app:ref:refs/heads/main"}`}}`,
    `    - {name: ci-bot, ${o.ci ?? `claimMatch: {issuer: "${GH}", subject: "repo:acme/ci:ref:refs/heads/main"}`}}`,
    ...(o.extraIdentities ?? []).map((l) => `    - ${l}`),
    '  roleBindings:',
    '    - {identity: release-bot, role: owner}',
    ...(o.orgBindings ?? ['{identity: ci-bot, role: viewer}']).map((l) => `    - ${l}`),
    ...(o.members ? ['  members:', ...o.members.map((l) => `    - ${l}`)] : []),
    ...(o.idps ? ['  identityProviders:', ...o.idps] : []),
    '  groups:',
    '    - name: engineering',
    '      identities:',
    `        - {name: deploy-bot, claimMatch: {issuer: "${GH}", subject: "repo:acme/deploy:ref:refs/heads/main"}}`,
    '      roleBindings:',
    '        - {identity: deploy-bot, role: viewer}',
    ...(o.groups ?? []).map((l) => `    ${l}`),
    '',
  ].join('\n');
}

const BUILTIN = { viewer: SERVICE.builtinRoles.viewer, registryPush: SERVICE.builtinRoles['registry.push'] };

describe('access changes name principals, and --deny-new-access refuses every gain', () => {
  const suite = useSuiteEmulator(TOKEN, 'access-principals');
  const file = () => join(suite.dir, 'org.yaml');
  const cli = (args: string[]) => runCli(args, { env: suite.env });
  const writes = () => suite.emulator.requestLog.filter((e) => e.method !== 'GET');
  /** Live is the base org; then the manifests say `variant`. */
  const from = async (variant: string) => {
    writeFileSync(file(), manifest());
    const base = await cli(['apply', file(), '--bootstrap', '--auto-approve']);
    expect(base.code, base.stderr).toBe(0);
    writeFileSync(file(), variant);
    suite.emulator.clearRequestLog();
  };
  /** The variant's plan shows `gain`, and with --deny-new-access it is refused (plan and apply) with nothing written. */
  const refused = async (gain: RegExp) => {
    const plan = await cli(['plan', file()]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(gain);
    const denied = await cli(['plan', file(), '--deny-new-access']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('the plan gives new access (--deny-new-access)');
    const apply = await cli(['apply', file(), '--deny-new-access', '--auto-approve']);
    expect(apply.code).toBe(1);
    expect(writes()).toEqual([]);
    return plan;
  };

  it('a binding on a group the plan creates is a gain; an org owner gains nothing when a group is created', async () => {
    await from(manifest({ groups: ['- name: newteam', '  roleBindings:', '    - {identity: /ci-bot, role: owner}'] }));
    await refused(/\+ identity:ci-bot gains [^\n]*groups\.delete[^\n]* on group:newteam\n/);
    writeFileSync(
      file(),
      manifest({ groups: ['- name: newteam', '  roleBindings:', '    - {identity: /release-bot, role: owner}'] }),
    );
    const owner = await cli(['plan', file(), '--deny-new-access']);
    expect(owner.code, owner.stderr).toBe(0);
    expect(owner.stdout).not.toContain('Access changes');
  });

  it('an owner invite to an outsider is a gain of email:…; accepted, the next plan has no changes and access names her', async () => {
    await from(manifest({ members: ['{email: mallory@evil.example, role: owner}'] }));
    await refused(/\+ email:mallory@evil\.example gains all of owner \(138 capabilities\) on org and 1 group below/);
    const codes = join(suite.dir, 'codes.jsonl');
    const applied = await cli(['apply', file(), '--auto-approve', '--invite-codes', codes]);
    expect(applied.code, applied.stderr).toBe(0);
    const code = (JSON.parse(readFileSync(codes, 'utf8').trim().split('\n').pop()!) as { code: string }).code;
    const accepted = await fetch(`${suite.emulator.url}/_emulator/groupInvites:accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        code,
        email: 'mallory@evil.example',
        issuer: 'https://accounts.google.com',
        subject: 'mallory',
      }),
    });
    expect(accepted.status).toBe(200);
    const after = await cli(['plan', file(), '--detailed-exitcode']);
    expect(after.code, after.stdout).toBe(0);
    const who = await cli(['access', file(), '--scope', 'org', '--capability', 'groups.delete']);
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toMatch(/identity:mallory\S* {2}\(roleBinding:mallory\S*=owner, role owner, on org/);
    const her = await cli(['access', file(), '--email', 'MALLORY@evil.example', '--capability', 'groups.delete']);
    expect(her.code, her.stderr).toBe(0);
    expect(her.stdout).toContain('org and 1 group below: groups.delete');
  });

  it("an identity provider's owner default role and owner group mapping are gains; applied, access names them", async () => {
    const idp = (defaultRole: string, mappings: string[] = []) => [
      '    - name: okta',
      `      defaultRole: ${defaultRole}`,
      '      oidc: {issuer: "https://acme.okta.com", clientId: "0oa1b2c3d4", clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}}',
      ...(mappings.length > 0 ? ['      groupMappings:', ...mappings.map((m) => `        - ${m}`)] : []),
    ];
    await from(manifest({ idps: idp('owner') }));
    await refused(/\+ idp:okta\/\* gains all of owner \(138 capabilities\) on org and 1 group below/);
    await from(manifest({ idps: idp('viewer', ['{externalGroup: everyone, role: owner}']) }));
    await refused(/\+ idp:okta\/group:everyone gains all of owner \(138 capabilities\) on org and 1 group below/);
    const applied = await runCli(['apply', file(), '--auto-approve'], {
      env: { ...suite.env, PLATFORM_SYNC_SECRET_OKTA: 'okta-client-secret-for-the-test-0001' },
    });
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    const who = await cli(['access', file(), '--scope', 'org', '--capability', 'groups.delete', '--live']);
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout).toContain(
      'idp:okta/group:everyone  (groupMapping:identityProvider:okta/everyone=owner, role owner, on org and 1 group below): groups.delete',
    );
    expect(who.stdout).not.toContain('Nobody');
  });

  it('a widened subject is a new principal: any GitHub workflow gains owner', async () => {
    await from(manifest({ release: `claimMatch: {issuer: "${GH}", subjectPattern: "repo:.*"}` }));
    const plan = await refused(
      /\+ identity:release-bot \(subjectPattern "repo:\.\*"\) gains all of owner \(138 capabilities\) on org and 1 group below/,
    );
    expect(plan.stdout).toContain(
      'identity:release-bot now also accepts subjectPattern "repo:.*" — any GitHub workflow',
    );
    const md = await cli(['plan', file(), '--format', 'markdown']);
    expect(md.stdout).toContain(
      // `*` escaped: the pattern reads as itself, not as emphasis.
      '— **identity:release-bot now also accepts subjectPattern "repo:.\\*" — any GitHub workflow** | `org` |',
    );
    const json = JSON.parse((await cli(['plan', file(), '--format', 'json'])).stdout) as {
      accessChanges: { principal: string; identity: string; causes: string[] }[];
    };
    expect(json.accessChanges.find((c) => c.principal.startsWith('identity:release-bot ('))).toMatchObject({
      identity: 'identity:release-bot',
      causes: ['identity:release-bot'],
    });
  });

  it('a narrowed subject, the same identity made again, or an unchanged plan gains nothing', async () => {
    await from(
      manifest({
        release: `claimMatch: {issuer: "${GH}", subject: "repo:acme/app:ref:refs/heads/main", claims: {repository_owner: acme}}`,
      }),
    );
    const narrowed = await cli(['plan', file(), '--deny-new-access']);
    expect(narrowed.code, narrowed.stderr).toBe(0);
    expect(narrowed.stdout).not.toContain(' gains ');
  });

  it('an issuer swap, a claimMatch swapped for staticKeys with new keys, and a rename onto another bot with a new subject are gains', async () => {
    await from(
      manifest({
        release: `claimMatch: {issuer: "https://token.evil.example", subject: "repo:acme/app:ref:refs/heads/main"}`,
      }),
    );
    await refused(/\+ identity:release-bot \(issuer "https:\/\/token\.evil\.example"\) gains /);
    const keys = JSON.stringify(
      JSON.stringify({
        keys: [
          {
            kty: 'EC',
            crv: 'P-256',
            x: 'MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4',
            y: '4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM',
          },
        ],
      }),
    );
    await from(
      manifest({
        release: `staticKeys: {issuer: "https://keys.evil.example", subject: "mallory", issuerKeys: ${keys}}`,
      }),
    );
    await refused(/\+ identity:release-bot \(staticKeys\) gains all of owner \(138 capabilities\)/);
    // ci-bot's line taken over: renamed to my-bot, acting for another repository.
    await from(
      manifest({
        ci: `renamedFrom: ci-bot, claimMatch: {issuer: "${GH}", subject: "repo:evil/x:ref:refs/heads/main"}`,
        orgBindings: ['{identity: my-bot, role: viewer}'],
      }).replace('name: ci-bot, renamedFrom', 'name: my-bot, renamedFrom'),
    );
    const takeover = await refused(
      /\+ identity:my-bot \(subject "repo:evil\/x:ref:refs\/heads\/main"\) gains all of viewer/,
    );
    // Who could act as ci-bot before (its own repository) loses what it held, named by what it accepted.
    expect(takeover.stdout).toContain(
      '- identity:my-bot (subject "repo:acme/ci:ref:refs/heads/main") loses all of viewer (51 capabilities) on org and 1 group below',
    );
  });

  it('apply plan.json --deny-new-access re-checks the saved plan now and refuses a gain before any write', async () => {
    await from(manifest({ orgBindings: ['{identity: ci-bot, role: viewer}', '{identity: ci-bot, role: owner}'] }));
    const saved = join(suite.dir, 'plan.json');
    expect((await cli(['plan', file(), '--out', saved])).code).toBe(0);
    suite.emulator.clearRequestLog();
    const denied = await cli(['apply', saved, '--deny-new-access', '--auto-approve']);
    expect(denied.code).toBe(1);
    expect(denied.stderr + denied.stdout).toContain('identity:ci-bot gains');
    expect(writes()).toEqual([]);
    const applied = await cli(['apply', saved, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
  });

  it('a loss is counted only where the capability is really gone (another binding still grants it)', async () => {
    await from(
      manifest({ orgBindings: ['{identity: ci-bot, role: viewer}', '{identity: ci-bot, role: registry.push}'] }),
    );
    expect((await cli(['apply', file(), '--auto-approve'])).code).toBe(0);
    writeFileSync(file(), manifest());
    const plan = await cli(['plan', file()]);
    // registry.push holds 20 capabilities (the service's set); viewer, still bound, keeps the 10
    // they share (repo.list, tag.list, …): only what is really gone is lost.
    const lost = BUILTIN.registryPush.filter((c) => !BUILTIN.viewer.includes(c)).sort();
    expect(lost).toEqual([
      'groups.create',
      'manifest.create',
      'manifest.delete',
      'manifest.update',
      'repo.create',
      'repo.delete',
      'repo.update',
      'tag.create',
      'tag.delete',
      'tag.update',
    ]);
    expect(plan.stdout).toContain(`- identity:ci-bot loses ${lost.join(', ')} on org and 1 group below\n`);
  });

  it('access answers a uid and a token, and names a typo instead of answering Nobody', async () => {
    writeFileSync(file(), manifest());
    expect((await cli(['apply', file(), '--auto-approve'])).code).toBe(0);
    const shown = JSON.parse((await cli(['show', file(), '--format', 'json'])).stdout) as {
      resources: { address: string; uid: string }[];
    };
    const uid = shown.resources.find((r) => r.address === 'identity:ci-bot')!.uid;
    const byUid = await cli(['access', file(), '--identity', uid]);
    expect(byUid.code, byUid.stderr).toBe(0);
    expect(byUid.stdout).toContain('org and 1 group below: ');
    expect(byUid.stdout).toContain('(roleBinding:ci-bot=viewer, role viewer)');
    const token = await cli([
      'access',
      file(),
      '--as',
      JSON.stringify({ iss: GH, sub: 'repo:acme/deploy:ref:refs/heads/main' }),
      '--format',
      'json',
    ]);
    expect(token.code, token.stderr).toBe(0);
    expect(JSON.parse(token.stdout)).toMatchObject({
      actingAs: ['identity:engineering/deploy-bot'],
      grants: [{ principal: 'identity:engineering/deploy-bot', scope: 'group:engineering' }],
    });
    for (const [args, named] of [
      [
        ['--scope', 'org', '--capability', 'tag.creat'],
        'capability "tag.creat" does not exist in the org (did you mean "tag.create"?)',
      ],
      [
        ['--scope', 'group:enginering', '--capability', 'repo.list'],
        'group "group:enginering" does not exist in the org (did you mean "group:engineering"?)',
      ],
      [
        ['--identity', 'identity:ci-bott'],
        'identity "identity:ci-bott" does not exist in the org (did you mean "identity:ci-bot"?)',
      ],
      [['--email', 'nobody@acme.dev'], 'e-mail "nobody@acme.dev" does not exist in the org'],
    ] as const) {
      const run = await cli(['access', file(), ...args]);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(named);
    }
    suite.emulator.clearRequestLog();
    const bad = await cli(['access', file(), '--as', '{"iss":']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--as: expected a JSON object of claims');
    expect(suite.emulator.requestLog).toEqual([]);
  });

  it('access takes a group by its path and an identity by its bare name when one alone has it, and suggests only close names (issue 58)', async () => {
    writeFileSync(file(), manifest({ members: ['{email: alice@acme.dev, role: viewer}'] }));
    expect(
      (await cli(['apply', file(), '--auto-approve', '--invite-codes', join(suite.dir, 'codes.jsonl')])).code,
    ).toBe(0);
    const scope = await cli([
      'access',
      file(),
      '--scope',
      'engineering',
      '--capability',
      'repo.list',
      '--format',
      'json',
    ]);
    expect(scope.code, scope.stderr).toBe(0);
    expect(JSON.parse(scope.stdout).grants.map((g: { principal: string }) => g.principal)).toContain(
      'identity:engineering/deploy-bot',
    );
    const bare = await cli(['access', file(), '--identity', 'deploy-bot', '--format', 'json']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(JSON.parse(bare.stdout)).toMatchObject({
      grants: [{ principal: 'identity:engineering/deploy-bot', scope: 'group:engineering' }],
    });
    const typo = await cli(['access', file(), '--scope', 'enginering']);
    expect(typo.stderr).toContain('group "enginering" does not exist in the org (did you mean "engineering"?)');
    const unrelated = await cli(['access', file(), '--email', 'nobody@acme.dev']);
    expect(unrelated.code).toBe(1);
    expect(unrelated.stderr).toContain('e-mail "nobody@acme.dev" does not exist in the org; nothing to answer');
    const close = await cli(['access', file(), '--email', 'alcie@acme.dev']);
    expect(close.stderr).toContain('(did you mean "alice@acme.dev"?)');
  });

  it('access answers for a capability of the service that no role holds: who can obtain it (found by the review)', async () => {
    writeFileSync(file(), manifest());
    expect((await cli(['apply', file(), '--auto-approve'])).code).toBe(0);
    // advisories.approve is in the service's catalog, not in owner: release-bot (owner) obtains it through roles.update.
    expect(SERVICE.builtinRoles.owner).not.toContain('advisories.approve');
    const who = await cli([
      'access',
      file(),
      '--scope',
      'org',
      '--capability',
      'advisories.approve',
      '--format',
      'json',
    ]);
    expect(who.code, who.stderr).toBe(0);
    expect(JSON.parse(who.stdout).grants).toEqual([
      expect.objectContaining({
        principal: 'identity:release-bot',
        scope: 'org',
        capabilities: ['advisories.approve'],
        obtainable: expect.stringContaining('holds roles.update there through role owner'),
      }),
    ]);
  });
});
