/**
 * Words a reviewer acts on (issue 58 items 3 and 4, DESIGN.md §4, §7), end to end through the CLI
 * in process against the emulator: a principal that gains or holds says what it admits when that
 * is broad — in plan text, markdown, JSON, drift and `access` — from the facts `audit` judges;
 * losses are counted only where a capability really goes; drift and audit read members and IdP
 * mappings from the manifests with their `file:line:col`, and a member line never applied is
 * "not applied yet", not a loss.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import SERVICE from '../../src/service/capabilities.json' with { type: 'json' };
import { readLiveState } from '../../src/live/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openClient, REPO_ROOT, runCli, useSuiteEmulator } from './cli-harness.js';

/** The new fields (admits, notApplied, …) hold to the published schemas. */
const ajv = new Ajv2020({ strict: false, allErrors: true });
const schemaValid = (name: 'plan' | 'drift' | 'access', text: string): void => {
  const validate =
    ajv.getSchema(name) ??
    (ajv.addSchema(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', `${name}.schema.json`), 'utf8')) as object, name),
    ajv.getSchema(name)!);
  expect(validate(JSON.parse(text)), JSON.stringify(validate.errors)).toBe(true);
};

const TOKEN = 'access-words-owner-token-58c3';
const GH = 'https://token.actions.githubusercontent.com';
const OKTA_ENV = { PLATFORM_SYNC_SECRET_OKTA: 'okta-client-secret-for-the-test-0058c' };

/** The org: release-bot owner; `org` and `eng` lines added to the org and to group engineering. */
function manifest(
  o: { identities?: string[]; org?: string[]; eng?: string[]; members?: string[]; idps?: string[] } = {},
): string {
  return [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  identities:',
    `    - {name: release-bot, claimMatch: {issuer: "${GH}", subject: "repo:acme/app:ref:refs/heads/main"}}`,
    ...(o.identities ?? []).map((l) => `    - ${l}`),
    '  roleBindings:',
    '    - {identity: release-bot, role: owner}',
    ...(o.org ?? []).map((l) => `    - ${l}`),
    ...(o.members ? ['  members:', ...o.members.map((l) => `    - ${l}`)] : []),
    ...(o.idps ? ['  identityProviders:', ...o.idps] : []),
    '  groups:',
    '    - name: engineering',
    ...(o.eng ? ['      roleBindings:', ...o.eng.map((l) => `        - ${l}`)] : []),
    '',
  ].join('\n');
}

const okta = (defaultRole: string, mappings: string[] = []) => [
  '    - name: okta',
  `      defaultRole: ${defaultRole}`,
  '      oidc: {issuer: "https://acme.okta.com", clientId: "0oa1b2c3d4", clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}}',
  ...(mappings.length > 0 ? ['      groupMappings:', ...mappings.map((m) => `        - ${m}`)] : []),
];

interface JsonChange {
  principal: string;
  scope: string;
  gained: string[];
  lost: string[];
  groups: number;
  admits?: string[];
}

describe('access words a reviewer acts on', () => {
  const suite = useSuiteEmulator(TOKEN, 'access-words');
  const file = () => join(suite.dir, 'org.yaml');
  const cli = (args: string[]) => runCli(args, { env: { ...suite.env, ...OKTA_ENV } });
  /** `<command> org.yaml --format json`, held to its schema. */
  const jsonOf = async (command: 'plan' | 'drift' | 'access', ...args: string[]): Promise<unknown> => {
    const out = (await cli([command, file(), ...args, '--format', 'json'])).stdout;
    schemaValid(command, out);
    return JSON.parse(out);
  };
  /** Live is `base` (applied); then the manifests say `variant`. */
  const from = async (base: string, variant: string) => {
    writeFileSync(file(), base);
    const applied = await cli([
      'apply',
      file(),
      '--bootstrap',
      '--auto-approve',
      '--invite-codes',
      join(suite.dir, 'codes.jsonl'),
    ]);
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    writeFileSync(file(), variant);
  };

  it('a loss is counted only where the capability goes: registry.push on the org removed, registry.pull kept on engineering', async () => {
    const bot = `{name: bot, claimMatch: {issuer: "${GH}", subject: "repo:acme/bot:ref:refs/heads/main"}}`;
    await from(
      manifest({
        identities: [bot],
        org: ['{identity: bot, role: registry.push}'],
        eng: ['{identity: /bot, role: registry.pull}'],
      }),
      manifest({ identities: [bot], eng: ['{identity: /bot, role: registry.pull}'] }),
    );
    const pull = SERVICE.builtinRoles['registry.pull'];
    const push = SERVICE.builtinRoles['registry.push'];
    const json = (await jsonOf('plan')) as {
      accessChanges: JsonChange[];
    };
    const losses = json.accessChanges.filter((c) => c.principal === 'identity:bot');
    // On engineering the bot keeps what registry.pull gives (repo.list, tag.list, …): lost on the org alone.
    expect(losses).toEqual([
      expect.objectContaining({ scope: 'org', lost: push.filter((c) => !pull.includes(c)).sort(), groups: 2 }),
      expect.objectContaining({ scope: 'org', lost: [...pull].sort(), groups: 1 }),
    ]);
    const text = await cli(['plan', file()]);
    expect(text.stdout).toContain('- identity:bot loses all of registry.pull (10 capabilities) on org\n');
    expect(text.stdout).not.toMatch(/loses [^\n]*repo\.list[^\n]* and 1 group below/);
  });

  it('an owner identity pull-request workflows of nw/infra can act as says so in plan text, markdown, JSON and access', async () => {
    const infra = `{name: infra-bot, claimMatch: {issuer: "${GH}", subjectPattern: "repo:nw/infra:.*"}}`;
    await from(manifest(), manifest({ identities: [infra], org: ['{identity: infra-bot, role: owner}'] }));
    const text = await cli(['plan', file()]);
    expect(text.stdout).toMatch(
      /\+ identity:infra-bot gains all of owner \(138 capabilities\) on org and 1 group below\n {6}admits: pull-request workflows of nw\/infra\n/,
    );
    const md = await cli(['plan', file(), '--format', 'markdown']);
    expect(md.stdout).toContain('| `identity:infra-bot` — **admits: pull-request workflows of nw/infra** | `org` |');
    const denied = await cli(['plan', file(), '--deny-new-access']);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain(
      'identity:infra-bot, which admits pull-request workflows of nw/infra, gains all of owner (138 capabilities) on org',
    );
    const json = (await jsonOf('plan')) as {
      accessChanges: JsonChange[];
    };
    expect(json.accessChanges).toContainEqual(
      expect.objectContaining({ principal: 'identity:infra-bot', admits: ['pull-request workflows of nw/infra'] }),
    );
    // The reviewer's words are audit's: the same identity is its pull-request finding.
    const audit = await cli(['audit', file(), '--format', 'json']);
    expect(JSON.parse(audit.stdout).findings).toContainEqual(
      expect.objectContaining({ rule: 'pattern-pull-request', severity: 'high', address: 'identity:infra-bot' }),
    );
    const access = await cli(['access', file(), '--identity', 'infra-bot', '--capability', 'groups.delete']);
    expect(access.code, access.stderr).toBe(0);
    expect(access.stdout).toContain('identity:infra-bot admits pull-request workflows of nw/infra');
    const accessJson = (await jsonOf('access', '--identity', 'infra-bot')) as { grants: { admits?: string[] }[] };
    expect(accessJson.grants[0]!.admits).toEqual(['pull-request workflows of nw/infra']);
    // A saved plan carrying admits is read back by its schema and applied.
    const saved = join(suite.dir, 'infra-plan.json');
    expect((await cli(['plan', file(), '--out', saved])).code).toBe(0);
    expect(readFileSync(saved, 'utf8')).toContain('pull-request workflows of nw/infra');
    const applied = await cli(['apply', saved, '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
  });

  it('an identity provider default role and group mapping say who they admit: anyone who signs in to okta', async () => {
    await from(manifest(), manifest({ idps: okta('owner', ['{externalGroup: admins, role: owner}']) }));
    const text = await cli(['plan', file()]);
    expect(text.stdout).toMatch(
      /\+ idp:okta\/\* gains all of owner \(138 capabilities\) on org and 1 group below\n {6}admits: anyone who signs in to okta\n/,
    );
    const json = (await jsonOf('plan')) as {
      accessChanges: JsonChange[];
    };
    expect(json.accessChanges).toContainEqual(
      expect.objectContaining({ principal: 'idp:okta/*', admits: ['anyone who signs in to okta'] }),
    );
  });

  it('drift of a hand-made subjectPattern "repo:.*" owner says "any GitHub workflow" and does not list 30 capability names', async () => {
    writeFileSync(file(), manifest());
    expect((await cli(['apply', file(), '--bootstrap', '--auto-approve'])).code).toBe(0);
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      const live = await readLiveState(client, { org: { name: 'acme' } });
      const org = live.resources.find((r) => r.address === 'org')!;
      const made = (await client.create('identity', org.uid, {
        name: 'hand-bot',
        claimMatch: { issuer: GH, subjectPattern: 'repo:.*' },
      })) as { uid: string };
      await client.create('roleBinding', org.uid, { identityUid: made.uid, roleUid: live.builtinRoles.owner });
    } finally {
      await client.close();
    }
    const drift = await cli(['drift', file()]);
    expect(drift.code).toBe(2);
    const line = drift.stdout.split('\n').find((l) => l.includes('+ identity:hand-bot holds'));
    expect(line, drift.stdout).toBe(
      '  + identity:hand-bot holds all of owner (138 capabilities) on org and 1 group below, which the manifests do not grant',
    );
    expect(drift.stdout).toContain('\n      admits: any GitHub workflow\n');
    const json = (await jsonOf('drift')) as {
      access: { principal: string; admits?: string[] }[];
    };
    expect(json.access).toContainEqual(
      expect.objectContaining({ principal: 'identity:hand-bot', admits: ['any GitHub workflow'] }),
    );
    const md = await cli(['drift', file(), '--format', 'markdown']);
    expect(md.stdout).toContain('| `identity:hand-bot` — **admits: any GitHub workflow** |');
    expect(md.stdout).toContain('➕ all of owner (138 capabilities)');
    // The declared owner bot's subject changed by hand to the same pattern: the same words.
    writeFileSync(file(), manifest());
    expect((await cli(['apply', file(), '--auto-approve'])).code).toBe(0);
    const again = openClient(suite.emulator.url, TOKEN);
    try {
      const live = await readLiveState(again, { org: { name: 'acme' } });
      const bot = live.resources.find((r) => r.address === 'identity:release-bot')!;
      await again.update('identity', bot.uid, { claimMatch: { issuer: GH, subjectPattern: 'repo:.*' } }, [
        'claimMatch',
      ]);
    } finally {
      await again.close();
    }
    const changed = await cli(['drift', file()]);
    expect(changed.code).toBe(2);
    expect(changed.stdout).toContain(
      '+ identity:release-bot (subjectPattern "repo:.*") holds all of owner (138 capabilities) on org and 1 group below, which the manifests do not grant\n      admits: any GitHub workflow\n',
    );
  });

  it('drift says a member line never applied is not applied yet, never that she lost access she never had', async () => {
    await from(manifest(), manifest({ members: ['{email: alice@acme.dev, role: viewer}'] }));
    const drift = await cli(['drift', file()]);
    expect(drift.code).toBe(2);
    expect(drift.stdout).not.toMatch(/alice@acme\.dev lost /);
    const line =
      manifest({ members: ['{email: alice@acme.dev, role: viewer}'] })
        .split('\n')
        .findIndex((l) => l.includes('alice@acme.dev')) + 1;
    expect(drift.stdout).toMatch(
      new RegExp(`! groupInvite:alice@acme\\.dev=viewer {2}\\(declared at [^\\n]*org\\.yaml:${line}:7\\)`),
    );
    expect(drift.stdout).toContain(
      '~ email:alice@acme.dev would hold all of viewer (51 capabilities) on org and 1 group below: the member line is not applied yet',
    );
    const json = (await jsonOf('drift')) as {
      access: { principal: string; removed: string[]; notApplied?: string[] }[];
    };
    const alice = json.access.find((a) => a.principal === 'email:alice@acme.dev')!;
    expect(alice.removed).toEqual([]);
    expect(alice.notApplied).toHaveLength(51);
    const md = await cli(['drift', file(), '--format', 'markdown']);
    expect(md.stdout).not.toMatch(/`email:alice@acme\.dev`[^\n]*➖/);
  });

  it('audit gives declared IdP mappings and members their file:line:col, and never calls them "not declared in the manifests"', async () => {
    const variant = manifest({
      members: ['{email: mallory@evil.example, role: owner}'],
      idps: okta('viewer', ['{externalGroup: admins, role: owner}']),
    });
    await from(manifest(), variant);
    const lineOf = (text: string) => variant.split('\n').findIndex((l) => l.includes(text)) + 1;
    const report = JSON.parse((await cli(['audit', file(), '--format', 'json'])).stdout) as {
      findings: { rule: string; address: string; location?: { file: string; line: number; column: number } }[];
    };
    const sso = report.findings.find((f) => f.rule === 'sso-write-access')!;
    expect(sso.location, JSON.stringify(report.findings)).toMatchObject({ line: lineOf('externalGroup: admins') });
    const invite = report.findings.find((f) => f.rule === 'invite-outside-domain')!;
    expect(invite.location, JSON.stringify(report.findings)).toMatchObject({ line: lineOf('mallory@evil.example') });
    const text = await cli(['audit', file()]);
    expect(text.stdout).toMatch(
      new RegExp(`sso-write-access [^\\n]*org\\.yaml:${lineOf('externalGroup: admins')}:\\d+\\)`),
    );
    const sarif = await cli(['audit', file(), '--format', 'sarif']);
    const results = JSON.parse(sarif.stdout).runs[0].results as { ruleId: string; message: { text: string } }[];
    for (const r of results.filter((x) => x.ruleId === 'sso-write-access' || x.ruleId === 'invite-outside-domain'))
      expect(r.message.text).not.toContain('not declared');
    // Applied, live and manifests agree: the mapping and the invite keep their lines.
    expect(
      (await cli(['apply', file(), '--auto-approve', '--invite-codes', join(suite.dir, 'codes.jsonl')])).code,
    ).toBe(0);
    const after = JSON.parse((await cli(['audit', file(), '--format', 'json'])).stdout) as typeof report;
    expect(after.findings.find((f) => f.rule === 'sso-write-access')!.location).toMatchObject({
      line: lineOf('externalGroup: admins'),
    });
    expect(after.findings.find((f) => f.rule === 'invite-outside-domain')!.location).toMatchObject({
      line: lineOf('mallory@evil.example'),
    });
    expect(readFileSync(join(suite.dir, 'codes.jsonl'), 'utf8')).toContain('mallory@evil.example');
  });
});
