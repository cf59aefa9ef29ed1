/**
 * The planner's re-addressing for renames (src/plan/readdress.ts, issue 61) re-addresses only what
 * the renames move, and equals re-addressing everything (test/support/readdress-oracle.ts, the
 * code it replaced) byte for byte and in order, over generated live states: groups nested at
 * several depths, repos and their tags, identities, roles, bindings that name them by path (or
 * name nothing live), identity providers and group mappings and invites with role references,
 * account associations (their uid their group's), duplicate names (ambiguous addresses), orphans
 * (a parentUid not in the state), now and then two resources sharing a uid; renamed: any uid,
 * to names that may collide. What nothing moved stays the very object it was. A small run in
 * `npm test` (READDRESS_RUNS, default 150), the run's seed printed by the global setup.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { joinPath } from '../../src/model/address.js';
import { descriptorOf, type Kind } from '../../src/model/kinds.js';
import type { LiveResource, LiveState } from '../../src/model/resources.js';
import { readdress } from '../../src/plan/readdress.js';
import { readdressOracle } from '../support/readdress-oracle.js';

const RUNS = Number(process.env.READDRESS_RUNS ?? 150);
const SEED = Number(process.env.INVARIANT_SEED ?? 61);

const NAMES = ['a', 'b', 'web', 'ci'];
const KINDS = [
  'group',
  'group',
  'group',
  'repo',
  'repo',
  'tag',
  'identity',
  'identity',
  'role',
  'roleBinding',
  'roleBinding',
  'identityProvider',
  'groupMapping',
  'groupInvite',
  'accountAssociation',
] as const;
const nodeSpec = fc.record({
  kind: fc.constantFrom(...KINDS),
  parent: fc.nat({ max: 40 }),
  name: fc.constantFrom(...NAMES),
  orphan: fc.nat({ max: 11 }).map((n) => n === 0),
  shareUid: fc.nat({ max: 60 }).map((n) => n === 0),
  ref1: fc.nat({ max: 40 }),
  ref2: fc.nat({ max: 40 }),
});
type NodeSpec = typeof nodeSpec extends fc.Arbitrary<infer T> ? T : never;

/** A live state as read, addressed by the full re-addressing with no rename (as build-live-state addresses). */
function liveOf(specs: readonly NodeSpec[]): LiveState | undefined {
  const org = { kind: 'group', address: 'org', groupPath: '', parentAddress: null, uid: 'org', parentUid: null };
  const resources: LiveResource[] = [{ ...org, fields: { name: 'acme' } } as LiveResource];
  const groups = [{ uid: 'org', path: '' }];
  const repos: { uid: string; path: string }[] = [];
  const idps: { uid: string; path: string }[] = [];
  const identities: string[] = [];
  const roles: string[] = [];
  const pick = <T>(list: readonly T[], n: number): T | undefined =>
    list.length === 0 ? undefined : list[n % list.length];
  const roleRef = (n: number) => {
    const path = pick(roles, n);
    return n % 4 === 0 || path === undefined ? { builtin: 'viewer' } : n % 7 === 1 ? { path: 'nowhere/r' } : { path };
  };
  specs.forEach((s, i) => {
    let uid = s.shareUid && i > 0 ? resources[resources.length - 1]!.uid : `u${i}`;
    let parent: { uid: string; path: string } | undefined = pick(groups, s.parent)!;
    let fields: Record<string, unknown> = { name: s.name };
    let kind: Kind = s.kind;
    if (s.kind === 'group') fields.description = 'd';
    else if (s.kind === 'repo') fields.description = '';
    else if (s.kind === 'tag') parent = pick(repos, s.parent);
    else if (s.kind === 'role') fields.capabilities = ['repo.list'];
    else if (s.kind === 'roleBinding') {
      const identity = pick(identities, s.ref1);
      fields = { identity: identity === undefined || s.ref1 % 6 === 5 ? { path: 'nowhere/i' } : { path: identity } };
      fields.role = roleRef(s.ref2);
    } else if (s.kind === 'identityProvider') {
      if (s.ref2 % 3 > 0) fields.defaultRole = roleRef(s.ref2);
    } else if (s.kind === 'groupMapping') {
      parent = pick(idps, s.parent);
      fields = { externalGroup: s.name, role: roleRef(s.ref2) };
    } else if (s.kind === 'groupInvite') fields = { email: `${s.name}@acme.dev`, role: roleRef(s.ref2) };
    else if (s.kind === 'accountAssociation') {
      fields = {};
      if (parent.uid === 'org') parent = undefined;
      else uid = parent.uid;
    }
    if (parent === undefined) return;
    // A shared uid is never its own parent's (a cycle, which no read state has).
    if (uid === parent.uid && kind !== 'accountAssociation') uid = `u${i}`;
    const orphan = s.orphan && kind !== 'accountAssociation';
    const parentUid = orphan ? 'gone' : parent.uid;
    const inGroup = orphan ? `lost/${s.name}` : parent.path;
    const path = s.kind === 'group' ? (orphan ? inGroup : joinPath(parent.path, s.name)) : inGroup;
    if (s.kind === 'group') groups.push({ uid, path });
    if (s.kind === 'repo') repos.push({ uid, path });
    if (s.kind === 'identityProvider') idps.push({ uid, path });
    if (s.kind === 'identity') identities.push(joinPath(path, s.name));
    if (s.kind === 'role') roles.push(joinPath(path, s.name));
    kind = s.kind;
    resources.push({
      kind,
      address: '?',
      groupPath: path,
      parentAddress: orphan ? 'group:lost' : '?',
      uid,
      parentUid,
      fields,
    } as unknown as LiveResource);
  });
  const raw: LiveState = {
    org: { uid: 'org', name: 'acme' },
    resources,
    incomplete: [],
    ambiguities: [],
    builtinRoles: { viewer: '1'.repeat(40) },
  };
  // Shared uids may close a cycle of parents (the last of a uid is the parent): no read state has one.
  const byUid = new Map(resources.filter((r) => !descriptorOf(r.kind).uidIsParent).map((r) => [r.uid, r]));
  for (const r of resources) {
    let at: LiveResource | undefined = r;
    for (let n = 0; at?.parentUid != null; n++) {
      if (n > resources.length) return undefined;
      at = byUid.get(at.parentUid);
    }
  }
  return readdressOracle(raw, new Map());
}

/** Whether a resource is renamed or beneath what is (by parentUid; a cycle-free state). */
function underRename(r: LiveResource, byUid: Map<string, LiveResource>, names: ReadonlyMap<string, string>): boolean {
  for (let at: LiveResource | undefined = r, n = 0; at !== undefined && n < 100; n++) {
    if (names.has(at.uid)) return true;
    at = at.parentUid === null ? undefined : byUid.get(at.parentUid);
  }
  return false;
}

const renames = fc.array(fc.record({ target: fc.nat({ max: 60 }), name: fc.constantFrom(...NAMES, 'x', 'renamed') }), {
  maxLength: 6,
});

describe('readdress (issue 61)', () => {
  it('equals the full re-addressing, in order, and leaves what nothing moved the very object it was', () => {
    fc.assert(
      fc.property(fc.array(nodeSpec, { maxLength: 40 }), renames, (specs, picks) => {
        const live = liveOf(specs);
        fc.pre(live !== undefined);
        const uids = [...live.resources.map((r) => r.uid), 'gone'];
        const names = new Map(picks.map(({ target, name }) => [uids[target % uids.length]!, name]));
        const got = readdress(live, names);
        const want = readdressOracle(live, names);
        expect(JSON.stringify(got)).toBe(JSON.stringify(want));
        expect(got).toStrictEqual(want);

        const shared = new Set(live.resources.map((r) => `${descriptorOf(r.kind).uidIsParent}:${r.uid}`)).size;
        if (shared < live.resources.length) return;
        // As read (build-live-state addresses from the uid tree): re-addressed with no rename, unchanged.
        expect(readdressOracle(live, new Map())).toStrictEqual(live);
        const kept = new Set(got.resources);
        const byUid = new Map(live.resources.filter((r) => !descriptorOf(r.kind).uidIsParent).map((r) => [r.uid, r]));
        for (const r of live.resources) {
          const refers = r.kind === 'roleBinding' || r.kind === 'groupMapping' || r.kind === 'groupInvite';
          if (r.address === 'org' || (!underRename(r, byUid, names) && !refers && r.kind !== 'identityProvider'))
            expect(kept.has(r), `${r.address} (uid ${r.uid}) copied, though no rename moves it`).toBe(true);
        }
        if (names.size === 0) expect(got.resources.every((r) => live.resources.includes(r))).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('moves a tag with its renamed repo, and a binding with the identity it names', () => {
    const live = liveOf([
      { kind: 'group', parent: 0, name: 'a', orphan: false, shareUid: false, ref1: 0, ref2: 0 },
      { kind: 'repo', parent: 1, name: 'web', orphan: false, shareUid: false, ref1: 0, ref2: 0 },
      { kind: 'tag', parent: 0, name: 'b', orphan: false, shareUid: false, ref1: 0, ref2: 0 },
      { kind: 'identity', parent: 1, name: 'ci', orphan: false, shareUid: false, ref1: 0, ref2: 0 },
      { kind: 'roleBinding', parent: 0, name: 'a', orphan: false, shareUid: false, ref1: 0, ref2: 0 },
    ]);
    const got = readdress(live!, new Map([['u0', 'z']]));
    expect(got.resources.map((r) => r.address)).toEqual([
      'group:z',
      'identity:z/ci',
      'org',
      'repo:z/web',
      'roleBinding:/z/ci=viewer',
      'tag:z/web:b',
    ]);
  });
});
