/**
 * `org.accessRules` (DESIGN.md §3, §4 rev 6): read and checked (every name a rule uses exists, with
 * did-you-mean; no rule that could never fire), and judged over a relation — each test, each way
 * of spelling a principal, the scope and the groups below it.
 */
import { describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { formatDiagnostic } from '../../src/model/errors.js';
import type { AccessRule } from '../../src/model/access-rules.js';
import { accessRuleRefusals, judgeAccessRules } from '../../src/access/rules.js';
import { relationOf, type AccessRelation } from '../../src/access/relation.js';
import { stateOfLive } from '../../src/access/state.js';
import { liveState, r, type Shape } from './plan-builders.js';

const GH = 'https://token.actions.githubusercontent.com';
const ORG = [
  'apiVersion: platform-sync/v1',
  'org:',
  '  name: acme',
  '  identities:',
  '    - {name: release-bot, servicePrincipal: COSIGNED}',
  '  identityProviders:',
  '    - name: okta',
  '      defaultRole: viewer',
  '      oidc: {issuer: "https://acme.okta.com", clientId: abc, clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}}',
  '  roles:',
  '    - {name: deployer, capabilities: [repo.update, tag.create]}',
  '  groups:',
  '    - name: engineering',
  '  accessRules:',
];
const problems = async (...rule: string[]) => {
  const r = await validateManifestTexts([{ file: 'm.yaml', text: [...ORG, ...rule].join('\n') }]);
  return { state: r.state, messages: r.diagnostics.map(formatDiagnostic) };
};

describe('reading access rules', () => {
  it('is bounded: at most 256 rules (a pull request writes them, every plan judges them)', async () => {
    const many = Array.from({ length: 257 }, (_, i) => `    - {name: r${i}, role: owner, count: {max: 9}}`);
    const { state, messages } = await problems(...many);
    expect(state).toBeUndefined();
    expect(messages).toEqual([
      expect.stringMatching(/^m\.yaml:271:7: 257 access rules; at most 256 are judged on every plan/),
    ]);
    expect((await problems(...many.slice(0, 256))).messages).toEqual([]);
  });

  it('reads the three forms of DESIGN §3 as written, with what each selects and where it is declared', async () => {
    const { state, messages } = await problems(
      '    - {name: only, capabilities: [role_bindings.create], onlyPrincipals: ["identity:release-bot", "idp:okta/group:platform-admins", "idp:okta/*", "email:a@acme.dev"]}',
      '    - {name: owners, role: owner, count: {min: 2, max: 4}}',
      `    - {name: pr, scope: engineering, token: {iss: "${GH}", sub: "repo:acme/app:pull_request"}, capabilities: [repo.update], never: true}`,
      '    - {name: deployers, role: deployer, count: {max: 1}}',
    );
    expect(messages).toEqual([]);
    const rules = state!.accessRules!;
    expect(rules.map((x) => x.name)).toEqual(['only', 'owners', 'pr', 'deployers']);
    expect(rules[0]).toMatchObject({
      capabilities: ['role_bindings.create'],
      selected: ['role_bindings.create'],
      source: { file: 'm.yaml', line: 15, column: 7 },
    });
    expect(rules[1]!.selected).toContain('groups.delete');
    expect(rules[2]).toMatchObject({
      scope: 'engineering',
      never: true,
      token: { iss: GH, sub: 'repo:acme/app:pull_request' },
    });
    expect(rules[3]).toMatchObject({ roleAddress: 'role:deployer', selected: ['repo.update', 'tag.create'] });
  });

  it('names every unknown name with did-you-mean: a capability, a role, a scope group, an identity, an identity provider, a principal form', async () => {
    const { state, messages } = await problems(
      '    - {name: a, capabilities: [role_bindings.creat], onlyPrincipals: ["identity:relase-bot", "idp:otka/*", "team:x"]}',
      '    - {name: b, role: ownr, count: {max: 1}}',
      '    - {name: c, scope: enginering, role: owner, count: {max: 1}}',
    );
    expect(state).toBeUndefined();
    expect(messages).toEqual([
      expect.stringMatching(
        /^m\.yaml:15:32: unknown capability "role_bindings\.creat" in access rule "a"; .*\(did you mean "role_bindings\.create"\?\)/,
      ),
      expect.stringMatching(
        /^m\.yaml:15:71: unknown identity "identity:relase-bot" in onlyPrincipals of access rule "a"; .*\(did you mean "release-bot"\?\)/,
      ),
      expect.stringMatching(
        /^m\.yaml:15:94: unknown identity provider "otka" in onlyPrincipals of access rule "a"; .*\(did you mean "okta"\?\)/,
      ),
      expect.stringMatching(
        /^m\.yaml:15:108: "team:x" in onlyPrincipals of access rule "a" is not a principal; expected identity:<path>/,
      ),
      expect.stringMatching(/^m\.yaml:16:23: unknown role "ownr" in access rule "b"; .*\(did you mean "owner"\?\)/),
      expect.stringMatching(
        /^m\.yaml:17:24: unknown group "enginering" in the scope of access rule "c"; .*\(did you mean "engineering"\?\)/,
      ),
    ]);
  });

  it('refuses a rule that could silently never fire, or is ambiguous', async () => {
    const { messages } = await problems(
      '    - {name: none, capabilities: [repo.update]}',
      '    - {name: two, capabilities: [repo.update], count: {max: 1}, onlyPrincipals: []}',
      '    - {name: inverted, role: owner, count: {min: 3, max: 2}}',
      '    - {name: any-number, role: owner, count: {min: 0}}',
      '    - {name: no-never, capabilities: [repo.update], token: {iss: x, sub: y}}',
      '    - {name: never-alone, capabilities: [repo.update], never: true}',
      '    - {name: nobody-accepts, capabilities: [repo.update], token: {sub: y}, never: true}',
      '    - {name: both, role: owner, capabilities: [repo.update], count: {max: 1}}',
      '    - {name: neither, count: {max: 1}}',
      '    - {name: none, role: owner, count: {max: 9}}',
    );
    const text = messages.join('\n');
    expect(text).toContain('access rule "none" has no test, so it could never fire');
    expect(text).toContain('access rule "two" has 2 tests (onlyPrincipals, count); give exactly one');
    expect(text).toContain('count of access rule "inverted" has min 3 above max 2');
    expect(text).toContain(
      'count of access rule "any-number" holds for any number of principals, so it could never fire',
    );
    expect(text).toContain('token in access rule "no-never" needs never: true');
    expect(text).toContain('never in access rule "never-alone" goes with token');
    expect(text).toContain('token of access rule "nobody-accepts" has none of iss, awsAccount, servicePrincipal');
    expect(text).toContain('access rule "both" selects by capabilities and by role; give one of the two');
    expect(text).toContain('access rule "neither" selects no capability');
    expect(text).toMatch(/access rule "none" is declared twice \(also at m\.yaml:15:7\)/);
    expect(messages, text).toHaveLength(10);
  });
});

const rule = (fields: Partial<AccessRule> & { name: string; selected: string[] }): AccessRule => ({
  source: { file: 'm.yaml', line: 1, column: 1 },
  ...fields,
});
const who = (name: string) => ({ claimMatch: { issuer: GH, subject: `repo:acme/${name}:ref:refs/heads/main` } });
function relation(more: Shape[]): AccessRelation {
  return relationOf(stateOfLive(liveState([r.group('engineering'), r.group('ops'), ...more])));
}

describe('judging access rules', () => {
  const org = relation([
    r.identity('', 'release-bot', who('release')),
    r.identity('', 'twin', who('release')),
    r.identity('engineering', 'ci', who('ci')),
    r.binding('', 'release-bot', 'owner'),
    r.binding('engineering', 'ci', 'registry.push'),
    r.identityProvider('', 'okta', {
      defaultRole: { builtin: 'viewer' },
      oidc: { issuer: 'https://acme.okta.com', clientId: 'x' },
    } as never),
    r.groupMapping('', 'okta', 'platform-admins', { builtin: 'owner' }),
    r.invite('ops', 'editor', { email: 'Ann@acme.dev', expirationTime: '2099-01-01T00:00:00Z' }),
  ]);

  it('onlyPrincipals: every spelling names its principal (an identity by any address that accepts its tokens, an e-mail in any case, an IdP group); anyone else breaks it', () => {
    const only = (principals: string[], selected = ['groups.delete']) =>
      judgeAccessRules(org, [rule({ name: 'x', onlyPrincipals: principals, selected })])[0]!;
    expect(only(['identity:release-bot', 'idp:okta/group:platform-admins']).passed).toBe(true);
    expect(only(['identity:twin', 'idp:okta/group:platform-admins']).passed).toBe(true);
    const broken = only(['identity:release-bot']);
    expect(broken.violations.map((v) => v.principal)).toEqual(['idp:okta/group:platform-admins']);
    expect(broken.violations[0]).toMatchObject({
      scope: 'org',
      capabilities: ['groups.delete'],
      grants: [expect.stringMatching(/platform-admins=owner$/)],
    });
    const edit = (principals: string[]) =>
      judgeAccessRules(org, [
        rule({ name: 'y', scope: 'ops', onlyPrincipals: principals, selected: ['repo.update'] }),
      ])[0]!;
    expect(edit(['identity:release-bot', 'idp:okta/group:platform-admins', 'email:ann@acme.dev']).passed).toBe(true);
    expect(edit(['identity:release-bot', 'idp:okta/group:platform-admins']).violations.map((v) => v.principal)).toEqual(
      ['email:ann@acme.dev'],
    );
  });

  it('a scope covers its group and the groups below, not the groups beside it', () => {
    const push = (scope: string) =>
      judgeAccessRules(org, [
        rule({
          name: 'p',
          scope,
          onlyPrincipals: ['identity:release-bot', 'idp:okta/group:platform-admins'],
          selected: ['tag.create'],
        }),
      ])[0]!;
    expect(push('engineering').violations).toEqual([
      expect.objectContaining({ principal: 'identity:engineering/ci', scope: 'group:engineering' }),
    ]);
    expect(push('ops').passed).toBe(true);
    expect(
      judgeAccessRules(org, [rule({ name: 'q', scope: 'gone', onlyPrincipals: [], selected: ['tag.create'] })])[0],
    ).toMatchObject({ passed: true, summary: 'group:gone does not exist in this state: nothing to judge' });
  });

  it('count: principals that hold every selected capability at the scope (inherited included), within min and max', () => {
    const owners = (count: { min?: number; max?: number }, scope?: string) =>
      judgeAccessRules(org, [rule({ name: 'o', role: 'owner', count, selected: [], ...(scope ? { scope } : {}) })])[0]!;
    expect(owners({ min: 2, max: 2 })).toMatchObject({
      passed: true,
      summary: '2 principals hold all of owner on org (expected 2 to 2)',
    });
    expect(
      owners({ max: 1 })
        .violations.map((v) => v.principal)
        .sort(),
    ).toEqual(['identity:release-bot', 'idp:okta/group:platform-admins']);
    expect(owners({ min: 3 }, 'engineering')).toMatchObject({
      passed: false,
      summary: '2 principals hold all of owner on group:engineering (expected at least 3)',
    });
    const [refusal] = accessRuleRefusals([owners({ min: 3 })]);
    expect(refusal).toMatchObject({
      rule: 'access-rule',
      addresses: [expect.stringMatching(/platform-admins=owner$/), 'roleBinding:release-bot=owner'],
    });
    expect(refusal!.message).toContain(
      'access rule "o" (m.yaml:1:1) is broken: 2 principals hold all of owner on org (expected at least 3)',
    );
  });

  it('token + never: the identities that accept the token, as access --as matches them', () => {
    const token = (sub: string) =>
      judgeAccessRules(org, [rule({ name: 't', token: { iss: GH, sub }, never: true, selected: ['tag.create'] })])[0]!;
    expect(token('repo:acme/ci:pull_request').passed).toBe(true);
    expect(token('repo:acme/ci:ref:refs/heads/main').violations.map((v) => v.principal)).toEqual([
      'identity:engineering/ci',
    ]);
    // release-bot and twin accept the same tokens: one principal.
    expect(token('repo:acme/release:ref:refs/heads/main').violations.map((v) => v.principal)).toEqual([
      'identity:release-bot',
    ]);
  });

  it('onlyPrincipals: who can repoint an identity provider lying in a group can obtain what its mappings give on the org (found by the review)', () => {
    const sso = relation([
      r.identity('', 'release-bot', who('release')),
      r.binding('', 'release-bot', 'owner'),
      r.identityProvider('engineering', 'okta', {
        defaultRole: { builtin: 'viewer' },
        oidc: { issuer: 'https://acme.okta.com', clientId: 'x' },
      } as never),
      r.groupMapping('engineering', 'okta', 'platform-admins', { builtin: 'owner' }),
      r.identity('engineering', 'sso-admin', who('sso-admin')),
      r.role('engineering', 'sso', { capabilities: ['identity_providers.update'] }),
      r.binding('engineering', 'sso-admin', 'sso'),
    ]);
    const [result] = judgeAccessRules(sso, [
      rule({
        name: 'only-platform-grants-roles',
        onlyPrincipals: ['identity:release-bot', 'idp:engineering/okta/group:platform-admins'],
        selected: ['role_bindings.create'],
      }),
    ]);
    expect(result!.violations).toEqual([
      expect.objectContaining({
        principal: 'identity:engineering/sso-admin',
        scope: 'org',
        capabilities: ['role_bindings.create'],
        grants: ['roleBinding:engineering/sso-admin=sso'],
      }),
    ]);
    expect(result!.violations[0]!.causes.join()).toContain(
      'holds identity_providers.update on group:engineering through role:engineering/sso',
    );
    expect(accessRuleRefusals([result!])[0]!.message).toContain(
      'can repoint identityProvider:engineering/okta to sign it in',
    );
  });
});
