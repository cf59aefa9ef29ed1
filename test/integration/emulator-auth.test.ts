/** Emulator over HTTP: bearer tokens, viewer tokens, scoped tokens (issue 2, point 9). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRoleUid, startEmulator, type Emulator } from '../../src/emulator/index.js';
import { OWNER, VIEWER, call, del, get, patch, post, startTestEmulator } from './emulator-helpers.js';

const SCOPED = 'scoped-owner-token';
const SCOPED_VIEWER = 'scoped-viewer-token';

let emu: Emulator;
let acme: string;
let eng: string;
let sales: string;
let engRepo: string;
let salesRepo: string;

beforeAll(async () => {
  const seedDoc = {
    orgs: [
      {
        name: 'acme',
        uid: 'a'.repeat(40),
        repos: [{ name: 'root-repo' }],
        groups: [
          { name: 'engineering', repos: [{ name: 'api' }], identities: [{ name: 'ci' }] },
          { name: 'sales', repos: [{ name: 'crm' }], identities: [{ name: 'crm-bot' }] },
        ],
      },
    ],
  };
  // Scopes name group uids, which exist only once seeded. With a seed, uids are reproducible:
  // a first emulator tells us them, a second one (with scoped tokens) gets the very same uids.
  emu = await startTestEmulator({ seed: seedDoc, faults: { seed: 7 } });
  acme = 'a'.repeat(40);
  eng = (await get(emu, `/iam/v2/groups?name=engineering`)).body.groups[0].uid;
  sales = (await get(emu, `/iam/v2/groups?name=sales`)).body.groups[0].uid;
  engRepo = (await get(emu, `/registry/v2/repos?name=api`)).body.repos[0].uid;
  salesRepo = (await get(emu, `/registry/v2/repos?name=crm`)).body.repos[0].uid;
  await emu.close();
  emu = await startEmulator({
    checkAnswers: true,
    tokens: [
      { token: OWNER, role: 'owner' },
      { token: VIEWER, role: 'viewer' },
      { token: SCOPED, role: 'owner', scope: eng },
      { token: SCOPED_VIEWER, role: 'viewer', scope: eng },
    ],
    seed: seedDoc,
    faults: { seed: 7 },
  });
});
afterAll(() => emu.close());

describe('bearer auth', () => {
  it('needs no token for ping', async () => {
    const r = await get(emu, '/ping/v2/ping', null);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ response: 'pong' });
  });

  it('answers 401, code 16, without or with a wrong token, never echoing the token', async () => {
    for (const token of [null, 'wrong-secret-value']) {
      const r = await get(emu, '/iam/v2/groups', token);
      expect(r.status).toBe(401);
      expect(r.body.code).toBe(16);
      expect(r.text).not.toContain('wrong-secret-value');
    }
    const basic = await fetch(`${emu.url}/iam/v2/groups`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
  });

  it('with no tokens configured, every request needing auth gets 401', async () => {
    const bare = await startEmulator();
    try {
      expect((await get(bare, '/iam/v2/groups', OWNER)).status).toBe(401);
      expect((await get(bare, '/ping/v2/ping', null)).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('viewer tokens', () => {
  it('read everything and get 403, code 7, on every write', async () => {
    expect((await get(emu, '/iam/v2/groups', VIEWER)).body.totalCount).toBe('3');
    for (const [method, path, body] of [
      ['POST', `/iam/v2/groups/${acme}`, { name: 'x' }],
      ['POST', '/iam/v2/groups', { name: 'new-org' }],
      ['PATCH', `/iam/v2/groups/${acme}`, { description: 'x' }],
      ['DELETE', `/registry/v2/repos/${engRepo}`, undefined],
      ['PATCH', `/registry/v2/repos/${engRepo}/readme`, { content: 'x' }],
    ] as const) {
      const r = await call(emu, method, path, body, VIEWER);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.code).toBe(7);
    }
    expect((await get(emu, `/registry/v2/repos/${engRepo}`)).status).toBe(200);
  });
});

describe('scoped tokens', () => {
  it('see only their subtree (plus built-in roles) in lists', async () => {
    const groups = (await get(emu, '/iam/v2/groups', SCOPED)).body.groups.map((g: { uid: string }) => g.uid);
    expect(groups).toEqual([eng]);
    const repos = (await get(emu, '/registry/v2/repos', SCOPED)).body.repos.map((r: { name: string }) => r.name);
    expect(repos).toEqual(['api']);
    expect(
      (await get(emu, `/registry/v2/repos?uidp.descendants_of=${acme}`, SCOPED)).body.repos.map(
        (r: { name: string }) => r.name,
      ),
    ).toEqual(['api']);
    expect((await get(emu, `/registry/v2/repos?uidp.children_of=${sales}`, SCOPED)).body.totalCount).toBe('0');
    expect((await get(emu, '/registry/v2/repos?name=crm', SCOPED)).body.totalCount).toBe('0');
    const roles = (await get(emu, '/iam/v2/roles', SCOPED)).body.roles.map((r: { name: string }) => r.name).sort();
    expect(roles).toEqual([
      'editor',
      'owner',
      'registry.pull',
      'registry.pull_token_creator',
      'registry.push',
      'viewer',
    ]);
  });

  it('get 404 for anything outside the subtree, read or write', async () => {
    for (const [method, path, body] of [
      ['GET', `/registry/v2/repos/${salesRepo}`, undefined],
      ['GET', `/iam/v2/groups/${acme}`, undefined],
      ['PATCH', `/registry/v2/repos/${salesRepo}`, { description: 'x' }],
      ['DELETE', `/registry/v2/repos/${salesRepo}`, undefined],
      ['POST', `/registry/v2/repos/${sales}`, { name: 'sneaky' }],
      ['GET', `/registry/v2/repos/${salesRepo}/readme`, undefined],
    ] as const) {
      const r = await call(emu, method, path, body, SCOPED);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body.code).toBe(5);
    }
    expect((await get(emu, '/registry/v2/repos?name=sneaky')).body.totalCount).toBe('0');
  });

  it('write inside the subtree; cannot create a root org; cannot bind identities they cannot see', async () => {
    const created = await post(emu, `/registry/v2/repos/${eng}`, { name: 'mine' }, SCOPED);
    expect(created.status).toBe(200);
    expect((await patch(emu, `/iam/v2/groups/${eng}`, { description: 'ours' }, SCOPED)).status).toBe(200);
    expect((await del(emu, `/registry/v2/repos/${created.body.uid}`, SCOPED)).status).toBe(200);
    const root = await post(emu, '/iam/v2/groups', { name: 'new-org' }, SCOPED);
    expect(root.status).toBe(403);
    expect(root.body.code).toBe(7);
    const salesBot = (await get(emu, '/iam/v2/identities?name=crm-bot')).body.identities[0].uid;
    const bind = await post(
      emu,
      `/iam/v2/roleBindings/${eng}`,
      { identityUid: salesBot, roleUid: builtinRoleUid('viewer') },
      SCOPED,
    );
    expect(bind.body.code).toBe(3);
    const ci = (await get(emu, '/iam/v2/identities', SCOPED)).body.identities[0].uid;
    expect(
      (await post(emu, `/iam/v2/roleBindings/${eng}`, { identityUid: ci, roleUid: builtinRoleUid('viewer') }, SCOPED))
        .status,
    ).toBe(200);
  });

  it('learn nothing outside the subtree from a name clash: renaming the scope group onto an out-of-scope sibling is 409 without its uid', async () => {
    const clash = await patch(emu, `/iam/v2/groups/${eng}?updateMask=name`, { name: 'sales' }, SCOPED);
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe(6);
    expect(clash.text).not.toContain(sales);
    expect(clash.body.message).toBe('Already exists: a sibling with this name already exists');
    // The org owner, who can see the sibling, is told which one it is.
    const owner = await patch(emu, `/iam/v2/groups/${eng}?updateMask=name`, { name: 'sales' });
    expect(owner.status).toBe(409);
    expect(owner.body.message).toContain(`(uid ${sales})`);
  });

  it('a scoped viewer reads its subtree only and writes nothing', async () => {
    expect(
      (await get(emu, '/registry/v2/repos', SCOPED_VIEWER)).body.repos.map((r: { name: string }) => r.name),
    ).toEqual(['api']);
    expect((await post(emu, `/registry/v2/repos/${eng}`, { name: 'x' }, SCOPED_VIEWER)).status).toBe(403);
  });
});
