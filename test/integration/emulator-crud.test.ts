/** Emulator over HTTP: create, PATCH masks, errors, deletes, role bindings, built-ins, readme (issue 2, points 6–8). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SERVICE from '../../src/service/capabilities.json' with { type: 'json' };
import { builtinRoleUid, type Emulator } from '../../src/emulator/index.js';
import { DIGEST, del, detail, detailTypes, get, patch, post, startTestEmulator } from './emulator-helpers.js';

let emu: Emulator;
let org: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  const r = await post(emu, '/iam/v2/groups', { name: 'acme', description: 'Acme Corp' });
  org = r.body.uid;
});
afterAll(() => emu.close());

describe('create: parent in the path, body checked, 404 for a missing parent', () => {
  it('creates a root org with POST /iam/v2/groups and children with the parent in the path', async () => {
    const root = await get(emu, `/iam/v2/groups/${org}`);
    expect(root.body).toMatchObject({ uid: org, name: 'acme', description: 'Acme Corp' });
    const id = await post(emu, `/iam/v2/identities/${org}`, {
      name: 'release-bot',
      description: 'GitHub releases',
      claimMatch: {
        issuer: 'https://token.actions.githubusercontent.com',
        subject: 'repo:acme/app:ref:refs/heads/main',
      },
    });
    expect(id.status).toBe(200);
    expect(id.body).toMatchObject({
      name: 'release-bot',
      claimMatch: { subject: 'repo:acme/app:ref:refs/heads/main' },
    });
    expect(id.body.lastSeenTime).toMatch(/Z$/);
    expect(Object.keys(id.body).sort()).toEqual([
      'claimMatch',
      'company',
      'createTime',
      'description',
      'lastSeenTime',
      'name',
      'uid',
      'updateTime',
    ]);
    const role = await post(emu, `/iam/v2/roles/${org}`, {
      name: 'deployer',
      capabilities: ['repo.list', 'tag.create'],
    });
    expect(role.body.capabilities).toEqual(['repo.list', 'tag.create']);
    const sub = await post(emu, `/events/v2/subscriptions/${org}`, { sink: 'https://hooks.acme.dev/platform' });
    expect(sub.body.sink).toBe('https://hooks.acme.dev/platform');
    const repo = await post(emu, `/registry/v2/repos/${org}`, { name: 'nginx', description: 'web' });
    const tag = await post(emu, `/registry/v2/tags/${repo.body.uid}`, { name: 'v1.0', digest: DIGEST });
    expect(tag.body).toMatchObject({ name: 'v1.0', digest: DIGEST, deprecated: false });
    expect((await get(emu, `/registry/v2/tags/${tag.body.uid}`)).body.name).toBe('v1.0');
  });

  it('rejects an empty identity body naming name and its pattern (spec rule 1)', async () => {
    const r = await post(emu, `/iam/v2/identities/${org}`, {});
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(3);
    expect(r.body.message).toMatch(/^Invalid argument: name: /);
    expect(detail(r.body, 'ErrorInfo')).toEqual(
      expect.objectContaining({ reason: 'INVALID_ARGUMENT', domain: 'iam.platform.emulator' }),
    );
    expect(detail(r.body, 'BadRequest').fieldViolations).toEqual([
      { field: 'name', description: expect.stringContaining('^[a-z0-9 ._-]{1,}$') },
    ]);
    // No body at all behaves the same.
    expect((await post(emu, `/iam/v2/identities/${org}`, '')).body.code).toBe(3);
  });

  it('reports every bad field at once', async () => {
    const r = await post(emu, `/iam/v2/roles/${org}`, {
      name: 'Bad Name!',
      capabilities: ['repo.list', 'fly'],
      colour: 'red',
    });
    const fields = detail(r.body, 'BadRequest')
      .fieldViolations.map((v: { field: string }) => v.field)
      .sort();
    expect(fields).toEqual(['capabilities', 'colour', 'name']);
    for (const [path, body, field] of [
      [`/iam/v2/roles/${org}`, { name: 'empty' }, 'capabilities'],
      [`/events/v2/subscriptions/${org}`, { sink: 'http://insecure.example' }, 'sink'],
      [`/iam/v2/identities/${org}`, { name: 'x', claimMatch: { issuer: 'not a url', subject: 's' } }, 'claimMatch'],
      [`/iam/v2/groups/${org}`, { name: 'x', uid: 'abc' }, 'uid'],
      [`/iam/v2/groups/${org}`, { name: 'x', description: 5 }, 'description'],
    ] as const) {
      const e = await post(emu, path, body);
      expect(e.body.code, JSON.stringify(body)).toBe(3);
      expect(detail(e.body, 'BadRequest').fieldViolations[0].field).toBe(field);
    }
    expect((await post(emu, `/iam/v2/groups/${org}`, '{not json')).body.code).toBe(3);
    expect((await post(emu, `/iam/v2/groups/${org}`, [1, 2])).body.code).toBe(3);
  });

  it('answers a duplicate sibling name with code 6 / 409', async () => {
    const a = await post(emu, `/iam/v2/groups/${org}`, { name: 'team' });
    expect(a.status).toBe(200);
    const b = await post(emu, `/iam/v2/groups/${org}`, { name: 'team' });
    expect(b.status).toBe(409);
    expect(b.body.code).toBe(6);
    expect(b.body.message).toContain('team');
    // Same name, other kind or other parent: fine.
    expect((await post(emu, `/registry/v2/repos/${org}`, { name: 'team' })).status).toBe(200);
    expect((await post(emu, `/iam/v2/groups/${a.body.uid}`, { name: 'team' })).status).toBe(200);
    expect((await post(emu, '/iam/v2/groups', { name: 'acme' })).status).toBe(409);
    expect(
      (await post(emu, `/events/v2/subscriptions/${org}`, { sink: 'https://hooks.acme.dev/platform' })).status,
    ).toBe(409);
  });

  it('answers a missing parent with 404 and ResourceInfo', async () => {
    const r = await post(emu, `/registry/v2/repos/${org}/0123456789abcdef`, { name: 'x' });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(5);
    expect(detail(r.body, 'ResourceInfo')).toMatchObject({
      resourceType: 'group',
      resourceName: `${org}/0123456789abcdef`,
    });
    // A tag's parent is a repo, not a group.
    expect((await post(emu, `/registry/v2/tags/${org}`, { name: 'v1', digest: DIGEST })).status).toBe(404);
  });
});

describe('PATCH: update masks, read-only fields, renames', () => {
  let uid: string;
  beforeAll(async () => {
    uid = (
      await post(emu, `/iam/v2/identities/${org}`, {
        name: 'patch-me',
        description: 'before',
        claimMatch: { issuer: 'https://issuer.example', subject: 'one' },
      })
    ).body.uid;
  });

  it('without a mask changes only the fields present in the body', async () => {
    const r = await patch(emu, `/iam/v2/identities/${uid}`, { description: 'after' });
    expect(r.body).toMatchObject({ name: 'patch-me', description: 'after', claimMatch: { subject: 'one' } });
  });

  it('with updateMask changes only the listed fields, ignoring the rest of the body', async () => {
    const r = await patch(emu, `/iam/v2/identities/${uid}?updateMask=claimMatch`, {
      description: 'ignored',
      claimMatch: { issuer: 'https://issuer.example', subject: 'two' },
    });
    expect(r.body).toMatchObject({ description: 'after', claimMatch: { subject: 'two' } });
    const both = await patch(emu, `/iam/v2/identities/${uid}?updateMask=name,description`, {
      name: 'patched',
      description: 'd',
    });
    expect(both.body).toMatchObject({ name: 'patched', description: 'd' });
  });

  it('a masked field absent from the body is cleared', async () => {
    const r = await patch(emu, `/iam/v2/identities/${uid}?updateMask=description`, {});
    expect(r.body.description).toBe('');
  });

  it('with * replaces the resource fully', async () => {
    const r = await patch(emu, `/iam/v2/identities/${uid}?updateMask=*`, { name: 'replaced' });
    expect(r.body.name).toBe('replaced');
    expect(r.body.description).toBe('');
    expect(r.body.claimMatch).toBeUndefined();
    const bad = await patch(emu, `/iam/v2/identities/${uid}?updateMask=*`, { description: 'no name' });
    expect(detail(bad.body, 'BadRequest').fieldViolations[0].field).toBe('name');
  });

  it('rejects unknown or read-only fields in the mask and in a mask-less body', async () => {
    for (const [q, body] of [
      ['?updateMask=colour', { name: 'x' }],
      ['?updateMask=uid', { uid: 'x' }],
      ['?updateMask=createTime', {}],
      ['', { createTime: '2020-01-01T00:00:00.000Z' }],
      ['', { colour: 'red' }],
      ['?updateMask=name', { colour: 'red', name: 'ok' }],
      ['?update_mask=name&x=1', { name: 'ok' }],
    ] as const) {
      const r = await patch(emu, `/iam/v2/identities/${uid}${q}`, body);
      expect(r.status, `${q} ${JSON.stringify(body)}`).toBe(400);
      expect(r.body.code).toBe(3);
    }
    // Read-only fields echoed back under a mask are ignored (a GET → PATCH round trip works).
    const current = (await get(emu, `/iam/v2/identities/${uid}`)).body;
    const ok = await patch(emu, `/iam/v2/identities/${uid}?updateMask=description`, {
      ...current,
      description: 'round trip',
    });
    expect(ok.status).toBe(200);
    expect(ok.body.description).toBe('round trip');
  });

  it('renaming onto a sibling name is code 6; tags and subscriptions have no update', async () => {
    await post(emu, `/iam/v2/identities/${org}`, { name: 'taken' });
    expect((await patch(emu, `/iam/v2/identities/${uid}`, { name: 'taken' })).status).toBe(409);
    const sub = (await get(emu, `/events/v2/subscriptions?uidp.children_of=${org}`)).body.subscriptions[0];
    const r = await patch(emu, `/events/v2/subscriptions/${sub.uid}`, { sink: 'https://x.example' });
    // A method the resource does not support: 405, code 12, and the methods its path has (POST creates a child there).
    expect(r.status).toBe(405);
    expect(r.body.code).toBe(12);
    expect(r.headers.get('allow')).toBe('GET, POST, DELETE');
  });

  it('leaves updateTime alone when nothing changed', async () => {
    const before = (await get(emu, `/iam/v2/identities/${uid}`)).body;
    const after = (await patch(emu, `/iam/v2/identities/${uid}`, { description: before.description })).body;
    expect(after.updateTime).toBe(before.updateTime);
  });
});

describe('not found and delete: ResourceInfo, RESOURCE_NOT_EMPTY', () => {
  it('answers a missing resource with 404, code 5 and ResourceInfo', async () => {
    const r = await get(emu, `/registry/v2/repos/${org}/ffffffffffffffff`);
    expect(r.status).toBe(404);
    expect(r.body.code).toBe(5);
    expect(detailTypes(r.body)).toEqual(['ErrorInfo', 'ResourceInfo']);
    expect(detail(r.body, 'ResourceInfo')).toMatchObject({
      resourceType: 'repo',
      resourceName: `${org}/ffffffffffffffff`,
    });
    // A uid of another kind is not found either.
    expect((await get(emu, `/registry/v2/repos/${org}`)).status).toBe(404);
    expect((await patch(emu, `/iam/v2/groups/${org}/ffffffffffffffff`, { description: 'x' })).status).toBe(404);
    expect((await del(emu, `/iam/v2/groups/${org}/ffffffffffffffff`)).status).toBe(404);
    expect((await get(emu, '/iam/v2/nothing-here')).status).toBe(404);
  });

  it('DELETE returns an empty body', async () => {
    const g = await post(emu, `/iam/v2/groups/${org}`, { name: 'short-lived' });
    const r = await del(emu, `/iam/v2/groups/${g.body.uid}`);
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect((await get(emu, `/iam/v2/groups/${g.body.uid}`)).status).toBe(404);
  });

  it('refuses to delete a group, repo, role or identity that is not empty (code 9, RESOURCE_NOT_EMPTY)', async () => {
    const g = (await post(emu, `/iam/v2/groups/${org}`, { name: 'full' })).body.uid;
    const repo = (await post(emu, `/registry/v2/repos/${g}`, { name: 'r' })).body.uid;
    const tag = (await post(emu, `/registry/v2/tags/${repo}`, { name: 'latest', digest: DIGEST })).body.uid;
    const id = (await post(emu, `/iam/v2/identities/${g}`, { name: 'i' })).body.uid;
    const role = (await post(emu, `/iam/v2/roles/${g}`, { name: 'ro', capabilities: ['repo.list'] })).body.uid;
    const binding = (await post(emu, `/iam/v2/roleBindings/${g}`, { identityUid: id, roleUid: role })).body.uid;

    const check = async (path: string, mention: string): Promise<void> => {
      const r = await del(emu, path);
      expect(r.status, path).toBe(400);
      expect(r.body.code).toBe(9);
      expect(r.body.message).toMatch(/^Precondition failed: /);
      expect(r.body.message).toContain(mention);
      expect(detail(r.body, 'ErrorInfo').reason).toBe('FAILED_PRECONDITION');
      expect(detail(r.body, 'PreconditionFailure').violations[0].type).toBe('RESOURCE_NOT_EMPTY');
    };
    await check(`/iam/v2/groups/${g}`, 'repo');
    await check(`/registry/v2/repos/${repo}`, 'tag');
    await check(`/iam/v2/roles/${role}`, 'role binding');
    await check(`/iam/v2/identities/${id}`, 'role binding');
    // Children first, then it all goes.
    for (const p of [
      `/iam/v2/roleBindings/${binding}`,
      `/iam/v2/roles/${role}`,
      `/iam/v2/identities/${id}`,
      `/registry/v2/tags/${tag}`,
      `/registry/v2/repos/${repo}`,
      `/iam/v2/groups/${g}`,
    ])
      expect((await del(emu, p)).status, p).toBe(200);
  });
});

describe('advisories under a group', () => {
  it('do not block deleting the group (nobody can delete them) and go with it', async () => {
    const seeded = emu.seed({
      orgs: [{ name: 'with-advisory' }],
      advisories: [{ advisoryId: 'CVE-2026-9999', artifactName: 'zlib', org: 'with-advisory' }],
    });
    const uid = seeded.uids['advisory:CVE-2026-9999']!;
    const refused = await del(emu, `/vulnerabilities/v2/advisories/${uid}`);
    expect([refused.status, refused.body.code, refused.headers.get('allow')]).toEqual([405, 12, 'GET']);
    const r = await del(emu, `/iam/v2/groups/${seeded.orgUids['with-advisory']}`);
    expect(r.status).toBe(200);
    expect((await get(emu, `/vulnerabilities/v2/advisories/${uid}`)).status).toBe(404);
    expect((await get(emu, '/vulnerabilities/v2/advisories?advisoryIds=CVE-2026-9999')).body.totalCount).toBe('0');
  });
});

describe('role bindings and built-in roles', () => {
  let team: string;
  let sub: string;
  let identity: string;
  let custom: string;
  beforeAll(async () => {
    team = (await post(emu, `/iam/v2/groups/${org}`, { name: 'bindings', description: 'team' })).body.uid;
    sub = (await post(emu, `/iam/v2/groups/${team}`, { name: 'child' })).body.uid;
    identity = (
      await post(emu, `/iam/v2/identities/${team}`, {
        name: 'bot',
        description: 'ci',
        claimMatch: { issuer: 'https://iss.example', subject: 'sub-1' },
      })
    ).body.uid;
    custom = (
      await post(emu, `/iam/v2/roles/${team}`, { name: 'pusher', description: 'push', capabilities: ['tag.create'] })
    ).body.uid;
  });

  it("lists the service's six built-ins with flat 40-hex uids, stable across emulators, holding the service's sets (DESIGN.md §2 rev 6)", async () => {
    const r = await get(emu, '/iam/v2/roles?page_size=200');
    const builtins = r.body.roles.filter((x: { uid: string }) => !x.uid.includes('/'));
    expect(builtins.map((x: { name: string }) => x.name).sort()).toEqual([
      'editor',
      'owner',
      'registry.pull',
      'registry.pull_token_creator',
      'registry.push',
      'viewer',
    ]);
    for (const b of builtins) {
      expect(b.uid).toMatch(/^[0-9a-f]{40}$/);
      expect(b.uid).toBe(builtinRoleUid(b.name));
      expect(b.capabilities, b.name).toEqual(SERVICE.builtinRoles[b.name as keyof typeof SERVICE.builtinRoles]);
    }
    // What the service's sets mean, as issue 57 names them: editor makes repos and subscriptions
    // but no tags or bindings; registry.push makes repos, tags and groups; only owner grants roles.
    const caps = (name: string) => builtins.find((b: { name: string }) => b.name === name).capabilities as string[];
    expect(caps('editor')).toEqual(expect.arrayContaining(['repo.create', 'subscriptions.create']));
    expect(caps('editor')).not.toContain('tag.create');
    expect(caps('editor')).not.toContain('role_bindings.create');
    expect(caps('registry.push')).toEqual(expect.arrayContaining(['repo.create', 'tag.create', 'groups.create']));
    expect(caps('owner')).toEqual(
      expect.arrayContaining(['roles.create', 'roles.update', 'role_bindings.create', 'group_invites.create']),
    );
    expect(caps('registry.pull_token_creator')).toEqual(
      expect.arrayContaining(['identity.create', 'role_bindings.create']),
    );
    // Not under uidp filters.
    const scoped = await get(emu, `/iam/v2/roles?uidp.descendants_of=${org}`);
    expect(scoped.body.roles.every((x: { uid: string }) => x.uid.startsWith(`${org}/`))).toBe(true);
  });

  it("its contract's capabilities are the service's catalog: a custom role holds every one of the 153, and nothing else (code 3)", async () => {
    const { capabilitiesOfContract } = await import('../../src/emulator/contract.js');
    expect([...capabilitiesOfContract()]).toEqual(SERVICE.catalog);
    const all = await post(emu, `/iam/v2/roles/${org}`, { name: 'everything', capabilities: SERVICE.catalog });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(all.body.capabilities).toEqual(SERVICE.catalog);
    const typo = await post(emu, `/iam/v2/roles/${org}`, { name: 'typo', capabilities: ['roles.crate'] });
    expect(typo.status).toBe(400);
    expect(typo.text).toContain('roles.crate');
    expect(typo.text.length).toBeLessThan(2000);
  });

  it('refuses to change or delete a built-in role (code 7)', async () => {
    const viewer = builtinRoleUid('viewer');
    for (const r of [
      await patch(emu, `/iam/v2/roles/${viewer}`, { description: 'x' }),
      await del(emu, `/iam/v2/roles/${viewer}`),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.code).toBe(7);
      expect(r.body.message).toContain('built-in');
    }
  });

  it('hydrates identity, group and role on create, get and list', async () => {
    const created = await post(emu, `/iam/v2/roleBindings/${sub}`, { identityUid: identity, roleUid: custom });
    expect(created.status).toBe(200);
    const expected = {
      identity: { uid: identity, name: 'bot', description: 'ci', subject: 'sub-1', issuer: 'https://iss.example' },
      group: { uid: sub, name: 'child', description: '' },
      role: { uid: custom, name: 'pusher', description: 'push' },
    };
    expect(created.body).toMatchObject(expected);
    expect((await get(emu, `/iam/v2/roleBindings/${created.body.uid}`)).body).toMatchObject(expected);
    expect((await get(emu, `/iam/v2/roleBindings?uidp.children_of=${sub}`)).body.roleBindings[0]).toMatchObject(
      expected,
    );
    // Hydration is live: renaming the identity shows in the binding.
    await patch(emu, `/iam/v2/identities/${identity}`, { description: 'renamed' });
    expect((await get(emu, `/iam/v2/roleBindings/${created.body.uid}`)).body.identity.description).toBe('renamed');
    // Also in a listing, whose resources' JSON is kept between reads until the store changes.
    expect(
      (await get(emu, `/iam/v2/roleBindings?uidp.children_of=${sub}`)).body.roleBindings[0].identity.description,
    ).toBe('renamed');
  });

  it('rejects duplicates (6), unknown identities or roles, and roles from outside the ancestry (3)', async () => {
    await post(emu, `/iam/v2/roleBindings/${team}`, { identityUid: identity, roleUid: builtinRoleUid('viewer') });
    expect(
      (await post(emu, `/iam/v2/roleBindings/${team}`, { identityUid: identity, roleUid: builtinRoleUid('viewer') }))
        .status,
    ).toBe(409);
    const missing = await post(emu, `/iam/v2/roleBindings/${team}`, {
      identityUid: `${org}/0000000000000000`,
      roleUid: 'f'.repeat(40),
    });
    expect(missing.body.code).toBe(3);
    expect(detail(missing.body, 'BadRequest').fieldViolations.map((v: { field: string }) => v.field)).toEqual([
      'identityUid',
      'roleUid',
    ]);
    // The custom role lives in `team`; a binding on the org root may not use it.
    const outside = await post(emu, `/iam/v2/roleBindings/${org}`, { identityUid: identity, roleUid: custom });
    expect(outside.body.code).toBe(3);
    expect(outside.body.message).toContain('ancestors');
    expect((await post(emu, `/iam/v2/roleBindings/${team}`, { identityUid: identity })).body.code).toBe(3);
  });

  it('PATCH may change roleUid only', async () => {
    const b = (
      await post(emu, `/iam/v2/roleBindings/${team}`, {
        identityUid: identity,
        roleUid: builtinRoleUid('registry.pull'),
      })
    ).body;
    const r = await patch(emu, `/iam/v2/roleBindings/${b.uid}?updateMask=roleUid`, {
      roleUid: builtinRoleUid('registry.push'),
    });
    expect(r.body.role.name).toBe('registry.push');
    expect(r.body.updateTime > b.updateTime).toBe(true);
    expect((await patch(emu, `/iam/v2/roleBindings/${b.uid}`, { identityUid: identity })).body.code).toBe(3);
    expect((await patch(emu, `/iam/v2/roleBindings/${b.uid}`, { roleUid: builtinRoleUid('viewer') })).status).toBe(409);
  });
});

describe('readme', () => {
  it('GET/PATCH /registry/v2/repos/{uid}/readme; a change bumps the repo updateTime', async () => {
    const repo = (await post(emu, `/registry/v2/repos/${org}`, { name: 'with-readme' })).body;
    expect((await get(emu, `/registry/v2/repos/${repo.uid}/readme`)).body).toEqual({ uid: repo.uid, content: '' });
    const r = await patch(emu, `/registry/v2/repos/${repo.uid}/readme`, { content: '# Hello\n' });
    expect(r.body).toEqual({ uid: repo.uid, content: '# Hello\n' });
    expect((await get(emu, `/registry/v2/repos/${encodeURIComponent(repo.uid)}/readme`)).body.content).toBe(
      '# Hello\n',
    );
    const after = (await get(emu, `/registry/v2/repos/${repo.uid}`)).body;
    expect(after.updateTime >= repo.updateTime).toBe(true);
    expect(after.updateTime).not.toBe(repo.updateTime);
    expect((await patch(emu, `/registry/v2/repos/${repo.uid}/readme`, { text: 'x' })).body.code).toBe(3);
    expect((await patch(emu, `/registry/v2/repos/${repo.uid}/readme?updateMask=content`, {})).body.content).toBe('');
    expect((await get(emu, `/registry/v2/repos/${org}/0000000000000000/readme`)).status).toBe(404);
  });
});
