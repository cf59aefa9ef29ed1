/** Emulator over HTTP: list envelopes, paging, ordering, page tokens, filters, uids (issue 2, points 1–5). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { DIGEST, detail, get, listAll, patch, post, startTestEmulator } from './emulator-helpers.js';

let emu: Emulator;
let now = Date.UTC(2026, 10, 20, 10, 0, 0, 123);
let org: string;
let other: string;
let eng: string;
let platform: string;
let repoUid: string;

const names = (items: { name: string }[]) => items.map((i) => i.name);

beforeAll(async () => {
  // A controllable clock: each read advances 1 ms, so createTime orders like insertion.
  emu = await startTestEmulator({ clock: () => now++ });
  const seeded = emu.seed({
    orgs: [
      {
        name: 'acme',
        repos: Array.from({ length: 120 }, (_, i) => ({ name: `repo-${String((i * 37) % 120).padStart(3, '0')}` })),
        groups: [
          {
            name: 'engineering',
            groups: [{ name: 'platform', repos: [{ name: 'deep' }] }],
            repos: [
              {
                name: 'nginx',
                tags: [
                  { name: 'v1', digest: DIGEST },
                  { name: 'v2', digest: DIGEST, deprecated: true },
                ],
              },
            ],
          },
        ],
      },
      { name: 'other', repos: [{ name: 'nginx' }] },
    ],
    advisories: [
      { advisoryId: 'CVE-2026-0001', artifactName: 'openssl' },
      { advisoryId: 'CVE-2026-0002', artifactName: 'zlib' },
      { advisoryId: 'GHSA-xxxx', artifactName: 'openssl', org: 'acme' },
    ],
  });
  org = seeded.orgUids.acme!;
  other = seeded.orgUids.other!;
  eng = seeded.uids['group:acme/engineering']!;
  platform = seeded.uids['group:acme/engineering/platform']!;
  repoUid = seeded.uids['repo:acme/engineering/nginx']!;
});
afterAll(() => emu.close());

describe('list envelope and page_size', () => {
  it('names the array by plural, counts as a string, echoes skipped, defaults to 50', async () => {
    const r = await get(emu, `/registry/v2/repos?uidp.children_of=${org}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['repos', 'totalCount', 'skipped', 'nextPageToken']);
    expect(r.body.repos).toHaveLength(50);
    expect(r.body.totalCount).toBe('120');
    expect(r.body.skipped).toBe(0);
    expect(typeof r.body.nextPageToken).toBe('string');
  });

  it('has no nextPageToken on the last page', async () => {
    const r = await get(emu, `/registry/v2/repos?uidp.children_of=${org}&page_size=200`);
    expect(r.body.repos).toHaveLength(120);
    expect(r.body.nextPageToken ?? '').toBe('');
  });

  it('clamps page_size above 200 and rejects negative or non-numeric ones', async () => {
    emu.seed({ orgs: [{ name: 'big', repos: Array.from({ length: 260 }, (_, i) => ({ name: `r${i}` })) }] });
    const big = (await get(emu, '/iam/v2/groups?name=big')).body.groups[0].uid;
    const r = await get(emu, `/registry/v2/repos?uidp.children_of=${big}&page_size=1000`);
    expect(r.body.repos).toHaveLength(200);
    expect(r.body.totalCount).toBe('260');
    // AIP-158: 0 (like an absent page_size) means the default.
    expect((await get(emu, `/registry/v2/repos?uidp.children_of=${big}&page_size=0`)).body.repos).toHaveLength(50);
    // AIP: an empty value is "not set".
    expect((await get(emu, `/registry/v2/repos?uidp.children_of=${big}&page_size=`)).body.repos).toHaveLength(50);
    for (const bad of ['-1', 'ten', '2.5', '1e3', '2147483648', '9007199254740993']) {
      const e = await get(emu, `/registry/v2/repos?page_size=${bad}`);
      expect(e.status).toBe(400);
      expect(e.body.code).toBe(3);
      expect(detail(e.body, 'BadRequest').fieldViolations[0].field).toBe('page_size');
    }
  });

  it('lists every kind with its own plural', async () => {
    for (const [path, plural] of [
      ['/iam/v2/groups', 'groups'],
      ['/iam/v2/identities', 'identities'],
      ['/iam/v2/roles', 'roles'],
      ['/iam/v2/roleBindings', 'roleBindings'],
      ['/registry/v2/repos', 'repos'],
      ['/registry/v2/tags', 'tags'],
      ['/events/v2/subscriptions', 'subscriptions'],
      ['/vulnerabilities/v2/advisories', 'advisories'],
    ]) {
      const r = await get(emu, path!);
      expect(r.status, path).toBe(200);
      expect(Array.isArray(r.body[plural!]), path).toBe(true);
    }
  });
});

describe('order_by and skip', () => {
  it('orders by name ascending and descending, kept across cursors', async () => {
    const asc = await listAll(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=7`, 'repos');
    expect(asc.pages).toBe(Math.ceil(120 / 7));
    const expected = Array.from({ length: 120 }, (_, i) => `repo-${String(i).padStart(3, '0')}`);
    expect(names(asc.items)).toEqual(expected);
    const desc = await listAll(
      emu,
      `/registry/v2/repos?uidp.children_of=${org}&order_by=name%20desc&page_size=11`,
      'repos',
    );
    expect(names(desc.items)).toEqual([...expected].reverse());
  });

  it('orders by uid, createTime / created_at and updateTime', async () => {
    const byUid = await listAll(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=uid&page_size=50`, 'repos');
    const uids = byUid.items.map((i) => i.uid);
    expect(uids).toEqual([...uids].sort());
    const byCreated = await listAll(
      emu,
      `/registry/v2/repos?uidp.children_of=${org}&order_by=created_at&page_size=50`,
      'repos',
    );
    const created = byCreated.items.map((i) => i.createTime);
    expect(created).toEqual([...created].sort());
    // Insertion order: the seed listed repo-000, repo-037, repo-074, ...
    expect(names(byCreated.items).slice(0, 3)).toEqual(['repo-000', 'repo-037', 'repo-074']);
    const byCreateTime = await get(
      emu,
      `/registry/v2/repos?uidp.children_of=${org}&order_by=createTime%20desc&page_size=1`,
    );
    expect(byCreateTime.body.repos[0].name).toBe(byCreated.items.at(-1).name);
    const byUpdated = await get(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=updateTime&page_size=200`);
    const updated = byUpdated.body.repos.map((i: { updateTime: string }) => i.updateTime);
    expect(updated).toEqual([...updated].sort());
  });

  it('keeps every order, ascending and descending, across cursors and with skip', async () => {
    const base = `/registry/v2/repos?uidp.children_of=${org}`;
    for (const field of ['uid', 'name', 'createTime', 'created_at', 'updateTime']) {
      const asc = (await listAll(emu, `${base}&order_by=${field}&page_size=7`, 'repos')).items.map((r) => r.uid);
      expect(asc, field).toHaveLength(120);
      expect(new Set(asc).size, field).toBe(120);
      const desc = (await listAll(emu, `${base}&order_by=${field}%20desc&page_size=9`, 'repos')).items.map(
        (r) => r.uid,
      );
      expect(desc, `${field} desc`).toEqual([...asc].reverse());
      // skip on the first request only: with a token it counts from the token's position.
      const first = await get(emu, `${base}&order_by=${field}%20desc&page_size=9&skip=100`);
      const rest = await listAll(
        emu,
        `${base}&order_by=${field}%20desc&page_size=9`,
        'repos',
        first.body.nextPageToken,
      );
      expect(
        [...first.body.repos, ...rest.items].map((r) => r.uid),
        `${field} desc skip`,
      ).toEqual(desc.slice(100));
    }
  });

  it('combines skip with order_by, page_size and a cursor', async () => {
    const r = await get(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5&skip=10`);
    expect(names(r.body.repos)).toEqual(['repo-010', 'repo-011', 'repo-012', 'repo-013', 'repo-014']);
    expect(r.body.skipped).toBe(10);
    expect(r.body.totalCount).toBe('120');
    const next = await get(
      emu,
      `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5&page_token=${encodeURIComponent(r.body.nextPageToken)}`,
    );
    expect(names(next.body.repos)[0]).toBe('repo-015');
    const skipped = await get(
      emu,
      `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5&skip=2&page_token=${encodeURIComponent(r.body.nextPageToken)}`,
    );
    expect(names(skipped.body.repos)[0]).toBe('repo-017');
    const beyond = await get(emu, `/registry/v2/repos?uidp.children_of=${org}&skip=500`);
    expect(beyond.body.repos).toEqual([]);
    expect(beyond.body.nextPageToken ?? '').toBe('');
  });

  it('rejects an unknown order field, a bad direction and name order on kinds without names', async () => {
    for (const q of [
      'order_by=color',
      'order_by=name%20sideways',
      'order_by=name%20desc%20x',
      'order_by=constructor',
      'order_by=__proto__',
      'order_by=toString',
      'order_by=hasOwnProperty%20desc',
    ]) {
      const r = await get(emu, `/registry/v2/repos?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.code).toBe(3);
      expect(r.body.message).toContain('order_by');
    }
    const r = await get(emu, '/iam/v2/roleBindings?order_by=name');
    expect(r.body.code).toBe(3);
  });

  it('keeps a cursor correct when items are added or removed between pages', async () => {
    const g = (await post(emu, `/iam/v2/groups/${other}`, { name: 'cursor-test' })).body.uid;
    for (const name of ['b', 'd', 'f']) await post(emu, `/registry/v2/repos/${g}`, { name });
    const first = await get(emu, `/registry/v2/repos?uidp.children_of=${g}&order_by=name&page_size=1`);
    expect(names(first.body.repos)).toEqual(['b']);
    await post(emu, `/registry/v2/repos/${g}`, { name: 'a' }); // before the cursor: not served now
    await post(emu, `/registry/v2/repos/${g}`, { name: 'c' }); // after it: served next
    const rest = await listAll(
      emu,
      `/registry/v2/repos?uidp.children_of=${g}&order_by=name&page_size=1`,
      'repos',
      first.body.nextPageToken,
    );
    expect(names(rest.items)).toEqual(['c', 'd', 'f']);
  });
});

describe('page tokens that expire and restart', () => {
  it('are bound to their query: filters and order', async () => {
    const r = await get(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5`);
    const token = encodeURIComponent(r.body.nextPageToken);
    for (const q of [
      `uidp.children_of=${eng}&order_by=name`,
      `uidp.children_of=${org}&order_by=uid`,
      `uidp.children_of=${org}&order_by=name%20desc`,
    ]) {
      const e = await get(emu, `/registry/v2/repos?${q}&page_token=${token}`);
      expect(e.status, q).toBe(400);
      expect(e.body.code).toBe(3);
      expect(detail(e.body, 'BadRequest').fieldViolations[0].field).toBe('page_token');
    }
    const other = await get(emu, `/iam/v2/groups?order_by=name&page_token=${token}`);
    expect(other.body.code).toBe(3);
    // page_size may change between pages.
    const ok = await get(
      emu,
      `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=3&page_token=${token}`,
    );
    expect(names(ok.body.repos)).toEqual(['repo-005', 'repo-006', 'repo-007']);
  });

  it('rejects a forged or garbled token', async () => {
    const e = await get(emu, '/registry/v2/repos?page_token=bm90LWEtdG9rZW4');
    expect(e.body.code).toBe(3);
  });

  it('restarts silently from the first page when expired (TTL settable in seconds)', async () => {
    emu.setFaults({ pageTokenTtlSeconds: 60 });
    try {
      const r = await get(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5`);
      const token = encodeURIComponent(r.body.nextPageToken);
      now += 59_000;
      const fresh = await get(
        emu,
        `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5&page_token=${token}`,
      );
      expect(names(fresh.body.repos)[0]).toBe('repo-005');
      now += 2_000;
      const expired = await get(
        emu,
        `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5&page_token=${token}`,
      );
      expect(expired.status).toBe(200);
      expect(names(expired.body.repos)).toEqual(['repo-000', 'repo-001', 'repo-002', 'repo-003', 'repo-004']);
    } finally {
      emu.setFaults({});
    }
  });

  it('default TTL is three days', async () => {
    const r = await get(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5`);
    const token = encodeURIComponent(r.body.nextPageToken);
    now += 3 * 24 * 3600 * 1000 - 1000;
    expect(
      names(
        (await get(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5&page_token=${token}`))
          .body.repos,
      )[0],
    ).toBe('repo-005');
    now += 2000;
    expect(
      names(
        (await get(emu, `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=5&page_token=${token}`))
          .body.repos,
      )[0],
    ).toBe('repo-000');
  });
});

describe('uidp and name filters', () => {
  it('children_of and descendants_of on groups; roots are uids without /', async () => {
    const all = await listAll(emu, '/iam/v2/groups?page_size=200', 'groups');
    expect(
      all.items
        .filter((g) => !g.uid.includes('/'))
        .map((g) => g.name)
        .sort(),
    ).toEqual(['acme', 'big', 'other']);
    expect(names((await get(emu, `/iam/v2/groups?uidp.children_of=${org}`)).body.groups)).toEqual(['engineering']);
    expect(names((await get(emu, `/iam/v2/groups?uidp.descendants_of=${org}&order_by=name`)).body.groups)).toEqual([
      'engineering',
      'platform',
    ]);
    expect(
      (await get(emu, `/registry/v2/repos?uidp.descendants_of=${eng}&order_by=name`)).body.repos.map(
        (r: { name: string }) => r.name,
      ),
    ).toEqual(['deep', 'nginx']);
  });

  it('name is an exact match on groups, identities, repos and roles', async () => {
    const r = await get(emu, '/registry/v2/repos?name=nginx');
    expect(r.body.totalCount).toBe('2');
    expect((await get(emu, '/registry/v2/repos?name=ngin')).body.totalCount).toBe('0');
    expect((await get(emu, `/registry/v2/repos?name=nginx&uidp.descendants_of=${org}`)).body.repos[0].uid).toBe(
      repoUid,
    );
    expect((await get(emu, '/iam/v2/groups?name=platform')).body.groups[0].uid).toBe(platform);
    expect((await get(emu, '/iam/v2/roles?name=viewer')).body.roles).toHaveLength(1);
    expect((await get(emu, '/iam/v2/identities?name=nobody')).body.totalCount).toBe('0');
  });

  it('lists tags with uidp.children_of=<repo>', async () => {
    const r = await get(emu, `/registry/v2/tags?uidp.children_of=${repoUid}&order_by=name`);
    expect(r.body.tags.map((t: { name: string; deprecated: boolean }) => [t.name, t.deprecated])).toEqual([
      ['v1', false],
      ['v2', true],
    ]);
  });

  it('filters advisories by artifactNames and advisoryIds (comma-separated or repeated)', async () => {
    const a = await get(emu, '/vulnerabilities/v2/advisories?artifactNames=openssl&order_by=uid');
    expect(a.body.totalCount).toBe('2');
    const b = await get(emu, '/vulnerabilities/v2/advisories?advisoryIds=CVE-2026-0001,CVE-2026-0002');
    expect(b.body.totalCount).toBe('2');
    const c = await get(
      emu,
      '/vulnerabilities/v2/advisories?advisoryIds=CVE-2026-0001&advisoryIds=GHSA-xxxx&artifactNames=openssl',
    );
    expect(c.body.totalCount).toBe('2');
    const d = await get(emu, `/vulnerabilities/v2/advisories?uidp.descendants_of=${org}`);
    expect(d.body.advisories.map((x: { advisoryId: string }) => x.advisoryId)).toEqual(['GHSA-xxxx']);
    const one = await get(emu, `/vulnerabilities/v2/advisories/${d.body.advisories[0].uid}`);
    expect(one.body.artifactName).toBe('openssl');
  });

  it('rejects unknown query parameters, and filters a kind does not have', async () => {
    for (const q of [
      '/registry/v2/repos?colour=red',
      '/registry/v2/tags?name=v1',
      '/iam/v2/groups?artifactNames=x',
      '/iam/v2/groups?pageSize=5',
    ]) {
      const r = await get(emu, q);
      expect(r.status, q).toBe(400);
      expect(r.body.code).toBe(3);
    }
  });
});

describe('uids and timestamps', () => {
  it('root is 40 hex, children <parent>/<16 hex>, tags under their repo', async () => {
    expect(org).toMatch(/^[0-9a-f]{40}$/);
    expect(eng).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
    expect(platform).toMatch(new RegExp(`^${eng}/[0-9a-f]{16}$`));
    const tags = (await get(emu, `/registry/v2/tags?uidp.children_of=${repoUid}`)).body.tags;
    for (const t of tags) expect(t.uid).toMatch(new RegExp(`^${repoUid}/[0-9a-f]{16}$`));
  });

  it('accepts uids in paths with raw / and with %2F', async () => {
    const raw = await get(emu, `/iam/v2/groups/${platform}`);
    const encoded = await get(emu, `/iam/v2/groups/${encodeURIComponent(platform)}`);
    expect(raw.status).toBe(200);
    expect(encoded.body).toEqual(raw.body);
    expect(encodeURIComponent(platform)).toContain('%2F');
    // Create under an encoded parent, then the readme of the new repo through an encoded uid.
    const created = await post(emu, `/registry/v2/repos/${encodeURIComponent(platform)}`, { name: 'encoded-parent' });
    expect(created.body.uid).toMatch(new RegExp(`^${platform}/[0-9a-f]{16}$`));
    expect((await get(emu, `/registry/v2/repos/${encodeURIComponent(created.body.uid)}/readme`)).body).toEqual({
      uid: created.body.uid,
      content: '',
    });
    const bad = await get(emu, '/iam/v2/groups/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect(detail(bad.body, 'BadRequest').fieldViolations[0].field).toBe('path');
  });

  it('formats timestamps with milliseconds and Z, and changes updateTime on every change', async () => {
    const g = (await get(emu, `/iam/v2/groups/${platform}`)).body;
    expect(g.createTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const frozen = now;
    now = Date.parse(g.updateTime); // same ms: updateTime must still move forward
    const a = (await patch(emu, `/iam/v2/groups/${platform}`, { description: 'one' })).body;
    const b = (await patch(emu, `/iam/v2/groups/${platform}`, { description: 'two' })).body;
    now = frozen;
    expect(a.updateTime > g.updateTime).toBe(true);
    expect(b.updateTime > a.updateTime).toBe(true);
    expect(b.createTime).toBe(g.createTime);
  });
});
