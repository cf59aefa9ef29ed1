/**
 * Identity relationships in the emulator over HTTP (DESIGN.md §2): each kind of relationship is
 * stored and returned, exactly one at a time; a PATCH naming one replaces the whole
 * relationship; bad patterns, accounts and key sets are code 3 in the service's wording.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { call, detail, get, patch, post, startTestEmulator } from './emulator-helpers.js';

const GITHUB = 'https://token.actions.githubusercontent.com';
const JWKS = JSON.stringify({
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    },
  ],
});

let emu: Emulator;
let org: string;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: { orgs: [{ name: 'acme' }] } });
  org = (await get(emu, '/iam/v2/groups')).body.groups[0].uid;
});
afterAll(() => emu.close());

describe("the service's own wording", () => {
  it('says what a bad name must match, in the message and in the field violation', async () => {
    const r = await post(emu, `/iam/v2/identities/${org}`, { name: 'Bad Name!' });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('Invalid argument: name: name must match "^[a-z0-9 ._-]{1,}$"');
    const violations = r.body.details.find(
      (d: { '@type': string }) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
    ).fieldViolations;
    expect(violations).toEqual([{ field: 'name', description: 'name must match "^[a-z0-9 ._-]{1,}$"' }]);
  });
});

describe('identity relationships', () => {
  it('stores and returns each kind of relationship; a service principal in its short spelling', async () => {
    const bodies = {
      'gh-any-branch': {
        claimMatch: {
          issuer: GITHUB,
          subjectPattern: 'repo:acme/app:.*',
          audience: 'https://github.com/acme',
          claims: { repository_owner: 'acme' },
        },
      },
      'aws-deployer': {
        awsIdentity: { awsAccount: '123456789012', arnPattern: 'arn:aws:sts::123456789012:assumed-role/deploy/.*' },
      },
      'static-signer': {
        staticKeys: { issuer: 'https://issuer.acme.dev', subject: 'signer', issuerKeys: JWKS, audiences: ['acme'] },
      },
      cosigned: { servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' },
    };
    for (const [name, relationship] of Object.entries(bodies)) {
      const created = await post(emu, `/iam/v2/identities/${org}`, { name, ...relationship });
      expect(created.status, `${name}: ${created.text}`).toBe(200);
      const read = (await get(emu, `/iam/v2/identities/${created.body.uid}`)).body;
      const expected = name === 'cosigned' ? { servicePrincipal: 'COSIGNED' } : relationship;
      expect(read).toMatchObject(expected);
    }
  });

  it('refuses two relationships at once, and bad patterns, accounts and key sets, as code 3', async () => {
    const cases: [unknown, string][] = [
      [
        { claimMatch: { issuer: GITHUB, subject: 's' }, servicePrincipal: 'INGESTER' },
        'Invalid argument: servicePrincipal: an identity has exactly one of claimMatch, awsIdentity, staticKeys, servicePrincipal; got claimMatch and servicePrincipal',
      ],
      [
        { claimMatch: { issuer: GITHUB, subjectPattern: 'repo:(' } },
        'Invalid argument: claimMatch: subjectPattern "repo:(" is not a valid RE2 regular expression',
      ],
      [
        { claimMatch: { issuer: GITHUB, subject: 's', subjectPattern: 's.*' } },
        'Invalid argument: claimMatch: has both subject and subjectPattern; expected one of them',
      ],
      [
        { awsIdentity: { awsAccount: '1234', arn: 'arn:aws:iam::1234:role/x' } },
        'Invalid argument: awsIdentity: awsAccount "1234" is not an AWS account id; expected 12 digits',
      ],
      [
        { staticKeys: { issuer: 'https://i.example', subject: 's', issuerKeys: 'not json' } },
        'Invalid argument: staticKeys: issuerKeys is not JSON',
      ],
      [
        { servicePrincipal: 'ROOT' },
        'Invalid argument: servicePrincipal: "ROOT" is not a service principal; expected one of COSIGNED, INGESTER, CATALOG_SYNCER, APKO_BUILDER',
      ],
    ];
    for (const [i, [body, message]] of cases.entries()) {
      const r = await post(emu, `/iam/v2/identities/${org}`, { name: `bad-${i}`, ...(body as object) });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.code).toBe(3);
      expect(r.body.message).toContain(message);
    }
  });

  it('a PATCH naming one relationship replaces the whole relationship; naming two is refused', async () => {
    const created = (
      await post(emu, `/iam/v2/identities/${org}`, {
        name: 'switcher',
        claimMatch: { issuer: GITHUB, subject: 'repo:acme/app:ref:refs/heads/main' },
      })
    ).body;
    const aws = { awsAccount: '123456789012', arn: 'arn:aws:iam::123456789012:role/deploy' };
    const switched = await patch(emu, `/iam/v2/identities/${created.uid}?updateMask=awsIdentity`, { awsIdentity: aws });
    expect(switched.status, switched.text).toBe(200);
    expect(switched.body.awsIdentity).toEqual(aws);
    expect(switched.body.claimMatch).toBeUndefined();
    const both = await patch(emu, `/iam/v2/identities/${created.uid}?updateMask=awsIdentity,servicePrincipal`, {
      awsIdentity: aws,
      servicePrincipal: 'INGESTER',
    });
    expect(both.status).toBe(400);
    expect(both.body.message).toContain('an identity has exactly one relationship');
  });

  it('checks a PATCH body as sent, whole, whatever the mask names: a nested path applies one leaf of a body the contract allows (found by the review)', async () => {
    const created = (
      await post(emu, `/iam/v2/identities/${org}`, { name: 'leafy', claimMatch: { issuer: GITHUB, subject: 'one' } })
    ).body;
    const path = `/iam/v2/identities/${created.uid}`;
    // What the contract's ClaimMatchPartial forbids (a member it lacks, an issuer that is no
    // https URL) and what DESIGN.md §2 refuses (a pattern RE2 does not read) are refused with a
    // nested mask as with any other: a mask says what is applied, not what is checked.
    const sent = { subject: 'two', issuer: 'not a url', subjectPattern: '(?=x)', bogus: { deep: 1 } };
    for (const mask of ['claimMatch.subject', 'description', 'claimMatch.issuer,claimMatch.subject']) {
      const r = await patch(emu, `${path}?updateMask=${mask}`, { claimMatch: sent });
      expect(r.status, `${mask}: ${r.text}`).toBe(400);
      expect(r.body.code).toBe(3);
      const fields = detail(r.body, 'BadRequest').fieldViolations.map((v: { field: string }) => v.field.split('.')[0]);
      expect(fields, mask).toContain('claimMatch');
    }
    for (const [member, value, more] of [
      ['bogus', 1],
      ['issuer', 'not a url'],
      ['subjectPattern', '(?=x)'],
      ['claimPatterns', { repository: '(a)\\1' }],
      // A part of a claimMatch is held to the whole's pairs, as a part of an awsIdentity is.
      ['subjectPattern', 'repo:.*'],
      ['audience', 'a', { audiencePattern: 'b' }],
    ] as const) {
      const r = await patch(emu, `${path}?updateMask=claimMatch.subject`, {
        claimMatch: { subject: 'two', [member]: value, ...more },
      });
      expect(r.status, `${member}: ${r.text}`).toBe(400);
      expect(r.text).toContain(member);
    }
    // Every problem at once where no rule of the whole field has named it already.
    const all = await patch(emu, `${path}?updateMask=description`, { claimMatch: sent });
    expect(all.text).toContain('claimMatch.bogus');
    expect(all.text).toContain('claimMatch.issuer');
    expect(all.text).toContain('subjectPattern \\"(?=x)\\" is not a valid RE2 regular expression');
    expect((await get(emu, path)).body.claimMatch).toEqual({ issuer: GITHUB, subject: 'one' });
    // A body the contract allows: the mask's leaf is applied, the rest of it ignored.
    const ok = await patch(emu, `${path}?updateMask=claimMatch.subject`, {
      claimMatch: { subject: 'two', issuer: 'https://elsewhere.example', audience: 'ignored' },
    });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.claimMatch).toEqual({ issuer: GITHUB, subject: 'two' });
  });

  it('a mask naming a field and a path inside it changes the whole field, as the field alone does (found by the review)', async () => {
    for (const mask of ['claimMatch,claimMatch.subject', 'claimMatch.subject,claimMatch', 'description,description']) {
      const created = (
        await post(emu, `/iam/v2/identities/${org}`, {
          name: `overlap-${mask.length}-${mask.indexOf(',')}`,
          description: 'before',
          claimMatch: { issuer: GITHUB, subject: 'one', audience: 'kept?' },
        })
      ).body;
      const sent = { issuer: 'https://issuer.acme.dev', subjectPattern: 'repo:acme/.*' };
      const r = await patch(emu, `/iam/v2/identities/${created.uid}?updateMask=${mask}`, {
        description: 'after',
        claimMatch: sent,
      });
      expect(r.status, `${mask}: ${r.text}`).toBe(200);
      if (mask.startsWith('description'))
        expect(r.body).toMatchObject({ description: 'after', claimMatch: created.claimMatch });
      else expect(r.body).toMatchObject({ description: 'before', claimMatch: sent });
      if (!mask.startsWith('description')) expect(r.body.claimMatch).toEqual(sent);
    }
  });

  it('hydrates a binding identity with issuer and subject when its relationship has them', async () => {
    const identity = (
      await post(emu, `/iam/v2/identities/${org}`, {
        name: 'keyed',
        staticKeys: { issuer: 'https://issuer.acme.dev', subject: 'keyed', issuerKeys: JWKS },
      })
    ).body;
    const viewer = (await get(emu, '/iam/v2/roles?name=viewer')).body.roles[0].uid;
    const binding = (await post(emu, `/iam/v2/roleBindings/${org}`, { identityUid: identity.uid, roleUid: viewer }))
      .body;
    expect(binding.identity).toMatchObject({ uid: identity.uid, issuer: 'https://issuer.acme.dev', subject: 'keyed' });
  });
});

describe('identity providers', () => {
  it('keep the client secret write-only: required on create, never returned, kept by a PATCH that does not name it', async () => {
    const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'emulator-idp-'));
    const statePath = join(dir, 'state.json');
    const e = await startTestEmulator({ seed: { orgs: [{ name: 'sso' }] }, statePath });
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    try {
      const o = (await get(e, '/iam/v2/groups')).body.groups[0].uid;
      const viewer = (await get(e, '/iam/v2/roles?name=viewer')).body.roles[0].uid;
      const oidc = { issuer: 'https://acme.okta.com', clientId: 'client-1' };
      const missing = await post(e, `/iam/v2/identityProviders/${o}`, { name: 'okta', defaultRole: viewer, oidc });
      expect(missing.status).toBe(400);
      expect(missing.body.message).toContain('oidc.clientSecret is required');
      const created = await post(e, `/iam/v2/identityProviders/${o}`, {
        name: 'okta',
        defaultRole: viewer,
        oidc: { ...oidc, clientSecret: 'first-secret' },
      });
      expect(created.status, created.text).toBe(200);
      expect(created.text).not.toContain('first-secret');
      expect(created.body.oidc).toEqual(oidc);
      const storedSecret = async () => {
        await e.flush();
        const state = JSON.parse(readFileSync(statePath, 'utf8')) as {
          resources: { uid: string; data: { oidc?: { clientSecret?: string } } }[];
        };
        return state.resources.find((r) => r.uid === created.body.uid)!.data.oidc!.clientSecret;
      };
      expect(
        (
          await patch(e, `/iam/v2/identityProviders/${created.body.uid}?updateMask=oidc`, {
            oidc: { ...oidc, clientId: 'client-2', clientSecret: 'ignored' },
          })
        ).status,
      ).toBe(200);
      // The state keeps a digest of the secret, never the secret (DESIGN.md §6).
      const sha = (v: string) => `sha256:${createHash('sha256').update(v).digest('hex')}`;
      expect(await storedSecret()).toBe(sha('first-secret'));
      expect(readFileSync(statePath, 'utf8')).not.toContain('first-secret');
      expect(
        (
          await patch(e, `/iam/v2/identityProviders/${created.body.uid}?updateMask=oidc.clientSecret`, {
            oidc: { clientSecret: 'second-secret' },
          })
        ).status,
      ).toBe(200);
      expect(await storedSecret()).toBe(sha('second-secret'));
      expect(readFileSync(statePath, 'utf8')).not.toContain('second-secret');
      expect((await get(e, `/iam/v2/identityProviders/${created.body.uid}`)).body.oidc.clientId).toBe('client-2');
    } finally {
      await e.close();
    }
  });

  it('count as bound to their default role (RESOURCE_NOT_EMPTY), hold their group, and clash on a sibling name with 409', async () => {
    const group = (await post(emu, `/iam/v2/groups/${org}`, { name: 'sso-group' })).body.uid;
    const role = (await post(emu, `/iam/v2/roles/${group}`, { name: 'sso-user', capabilities: ['repo.list'] })).body
      .uid;
    const body = {
      name: 'okta',
      defaultRole: role,
      oidc: { issuer: 'https://acme.okta.com', clientId: 'c', clientSecret: 's' },
    };
    const idp = await post(emu, `/iam/v2/identityProviders/${group}`, body);
    expect(idp.status, idp.text).toBe(200);
    expect((await post(emu, `/iam/v2/identityProviders/${group}`, body)).status).toBe(409);
    const roleDelete = await call(emu, 'DELETE', `/iam/v2/roles/${role}`);
    expect(roleDelete.status).toBe(400);
    expect(roleDelete.body.message).toContain('is still referenced by 1 role binding or identity provider');
    expect((await call(emu, 'DELETE', `/iam/v2/groups/${group}`)).body.message).toContain('1 identityProvider');
    const elsewhere = (await post(emu, `/iam/v2/groups/${org}`, { name: 'other' })).body.uid;
    const foreignRole = await post(emu, `/iam/v2/identityProviders/${elsewhere}`, { ...body, name: 'x' });
    expect(foreignRole.status).toBe(400);
    expect(foreignRole.body.message).toContain('use a built-in role or a custom role of this group or its ancestors');
  });
});

describe('group mappings of an identity provider', () => {
  it('are keyed by external group, role and scope (409 on a repeat), listed by provider, scoped to the org, hold their role, and cannot be updated (405)', async () => {
    const viewer = (await get(emu, '/iam/v2/roles?name=viewer')).body.roles[0].uid;
    const idp = (
      await post(emu, `/iam/v2/identityProviders/${org}`, {
        name: 'google',
        defaultRole: viewer,
        oidc: { issuer: 'https://accounts.google.com', clientId: 'g', clientSecret: 's' },
      })
    ).body;
    const role = (await post(emu, `/iam/v2/roles/${org}`, { name: 'mapped', capabilities: ['repo.list'] })).body.uid;
    const body = { externalGroupId: 'admins@acme.dev', roleUid: role, scope: org };
    const created = await post(emu, `/iam/v2/externalGroupRoleMappings/${idp.uid}`, body);
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({
      identityProviderUid: idp.uid,
      externalGroupId: 'admins@acme.dev',
      roleUid: role,
      scope: org,
    });
    expect(created.body.uid).toMatch(new RegExp(`^${idp.uid}/[0-9a-f]{16}$`));
    expect((await post(emu, `/iam/v2/externalGroupRoleMappings/${idp.uid}`, body)).status).toBe(409);
    const wrongScope = await post(emu, `/iam/v2/externalGroupRoleMappings/${idp.uid}`, {
      ...body,
      externalGroupId: 'x',
      scope: 'f'.repeat(40),
    });
    expect(wrongScope.status).toBe(400);
    expect(wrongScope.body.message).toContain("scope must be the org's root group");
    const listed = (
      await get(emu, `/iam/v2/externalGroupRoleMappings?identityProviderUid=${encodeURIComponent(idp.uid)}`)
    ).body.externalGroupRoleMappings;
    expect(listed.map((m: { uid: string }) => m.uid)).toEqual([created.body.uid]);
    const update = await patch(
      emu,
      `/iam/v2/externalGroupRoleMappings/${created.body.uid}?updateMask=externalGroupId`,
      { externalGroupId: 'y' },
    );
    expect(update.status).toBe(405);
    expect((await call(emu, 'DELETE', `/iam/v2/roles/${role}`)).status).toBe(400);
    expect((await call(emu, 'DELETE', `/iam/v2/identityProviders/${idp.uid}`)).body.message).toContain(
      'still has children: 1 groupMapping',
    );
  });
});

describe('account associations', () => {
  it("take their group's uid (one per group: a second is 409), are updated by a mask naming blocks, and leave the group's children alone when deleted", async () => {
    const group = (await post(emu, `/iam/v2/groups/${org}`, { name: 'cloud' })).body.uid;
    const repo = (await post(emu, `/registry/v2/repos/${group}`, { name: 'kept' })).body.uid;
    const created = await post(emu, `/iam/v2/accountAssociations/${group}`, {
      name: 'cloud',
      amazon: { account: '123456789012' },
    });
    expect(created.status, created.text).toBe(200);
    expect(created.body.uid).toBe(group);
    expect((await post(emu, `/iam/v2/accountAssociations/${group}`, { name: 'again' })).status).toBe(409);
    const bad = await post(emu, `/iam/v2/accountAssociations/${org}`, { name: 'x', amazon: { account: '1' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('amazon.account must be a 12-digit AWS account id');
    const updated = await patch(emu, `/iam/v2/accountAssociations/${group}?updateMask=google`, {
      google: { projectId: 'acme-prod' },
    });
    expect(updated.body).toMatchObject({
      name: 'cloud',
      amazon: { account: '123456789012' },
      google: { projectId: 'acme-prod' },
    });
    // The group cannot go while its association is there; the association goes without touching the group.
    expect((await call(emu, 'DELETE', `/iam/v2/groups/${group}`)).body.message).toContain('1 accountAssociation');
    expect((await call(emu, 'DELETE', `/iam/v2/accountAssociations/${group}`)).status).toBe(200);
    expect((await get(emu, `/iam/v2/groups/${group}`)).status).toBe(200);
    expect((await get(emu, `/registry/v2/repos/${repo}`)).status).toBe(200);
    expect((await get(emu, `/iam/v2/accountAssociations/${group}`)).status).toBe(404);
  });
});

describe('terms', () => {
  it('are accepted by a root group only, once (a repeat is a no-op), listed per org, and never undone', async () => {
    const group = (await post(emu, `/iam/v2/groups/${org}`, { name: 'not-a-root' })).body.uid;
    const accepted = await post(emu, `/iam/v2/terms/${org}`, { documentIds: ['tos-2026', 'dpa-2025'] });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toEqual({ group: org, documentIds: ['tos-2026', 'dpa-2025'] });
    expect((await post(emu, `/iam/v2/terms/${org}`, { documentIds: ['tos-2026'] })).status).toBe(200);
    const listed = (await get(emu, `/iam/v2/terms/${org}`)).body;
    expect(listed.totalCount).toBe('2');
    expect(listed.termsAcceptances.map((t: { docId: string }) => t.docId).sort()).toEqual(['dpa-2025', 'tos-2026']);
    expect(listed.termsAcceptances[0]).toMatchObject({ orgUid: org, createTime: expect.stringMatching(/Z$/) });
    const child = await post(emu, `/iam/v2/terms/${group}`, { documentIds: ['tos-2026'] });
    expect(child.status).toBe(400);
    expect(child.body.message).toContain('terms are accepted by a root group (an org)');
    const permanent = await call(emu, 'DELETE', `/iam/v2/terms/${org}`);
    expect([permanent.status, permanent.body.code, permanent.headers.get('allow')]).toEqual([405, 12, 'GET, POST']);
    expect((await post(emu, `/iam/v2/terms/${org}`, { documentIds: [] })).status).toBe(400);
  });
});
