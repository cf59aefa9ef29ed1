/**
 * Turns raw API listings of one org into the shared resource model (pure, no I/O): group
 * paths from the uid tree and names, addresses only through model/address.ts, binding
 * references as canonical keys. The I/O half is read-live-state.ts.
 */
import {
  groupAddress,
  joinPath,
  namedAddress,
  ORG_ADDRESS,
  roleBindingAddress,
  subscriptionAddress,
  tagAddress,
  type IdentityKey,
  type RoleKey,
} from '../model/address.js';
import { KIND_INFO, type Kind } from '../model/kinds.js';
import type { ClaimMatch, IncompleteRead, LiveAmbiguity, LiveResource } from '../model/resources.js';
import type { ApiObject } from '../api/types.js';
import { referencedUid } from '../api/hydrated.js';
import { pushTo } from '../util/multimap.js';

/** Kinds listed under an org (everything but the org root itself, which is found first). */
export const LISTED_KINDS = ['group', 'identity', 'role', 'roleBinding', 'repo', 'tag', 'subscription'] as const satisfies readonly Kind[];

/** What readLiveState fetched: the org root and every listing under it. */
export interface RawOrgListings {
  org: ApiObject;
  items: Record<Kind, readonly ApiObject[]>;
  /** Built-in role name → uid. */
  builtinRoles: Record<string, string>;
}

/** The resources built, with the addresses found twice and the resources that could not be placed. */
export interface BuiltLiveResources {
  /** Sorted by address; for an ambiguous address only the first (lowest uid) is kept. */
  resources: LiveResource[];
  ambiguities: LiveAmbiguity[];
  /**
   * Listings shown incomplete by what was built: resources whose parent is missing (never
   * silently dropped), and identities/roles inside the org that a binding names but their
   * listing did not return.
   */
  unplaced: IncompleteRead[];
}

/** Parent uid of a child uid (`<parent>/<16 hex>`); null for a root uid. */
export function parentUidOf(uid: string): string | null {
  const i = uid.lastIndexOf('/');
  return i < 0 ? null : uid.slice(0, i);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function timestamps(obj: ApiObject): { createTime?: string; updateTime?: string } {
  const out: { createTime?: string; updateTime?: string } = {};
  if (typeof obj.createTime === 'string') out.createTime = obj.createTime;
  if (typeof obj.updateTime === 'string') out.updateTime = obj.updateTime;
  return out;
}

function readClaimMatch(value: unknown): ClaimMatch | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const c = value as Record<string, unknown>;
  return { issuer: text(c.issuer), subject: text(c.subject) };
}

/** Sorted by uid so that "the first of two ambiguous siblings" is the same on every run. */
function byUid(items: readonly ApiObject[]): ApiObject[] {
  return [...items].sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
}

/** The org root group as a resource: address `org`, path '', no parent. */
export function buildOrgResource(org: ApiObject): LiveResource {
  return {
    kind: 'group',
    address: ORG_ADDRESS,
    groupPath: '',
    parentAddress: null,
    uid: org.uid,
    parentUid: null,
    fields: { name: text(org.name), description: text(org.description) },
    ...timestamps(org),
  };
}

/** Builds every live resource of one org from its listings. */
export function buildLiveResources(raw: RawOrgListings): BuiltLiveResources {
  const built: LiveResource[] = [buildOrgResource(raw.org)];
  const unplacedCount = new Map<Kind, { count: number; example: string }>();
  const noteUnplaced = (kind: Kind, uid: string): void => {
    const entry = unplacedCount.get(kind) ?? { count: 0, example: uid };
    entry.count++;
    unplacedCount.set(kind, entry);
  };

  const unlistedCount = new Map<Kind, { count: number; example: string; binding: string }>();
  const noteUnlisted = (kind: Kind, uid: string, bindingUid: string): void => {
    const entry = unlistedCount.get(kind) ?? { count: 0, example: uid, binding: bindingUid };
    entry.count++;
    unlistedCount.set(kind, entry);
  };

  // Group paths, parents before children: a child's uid is longer than its parent's.
  const groupPaths = new Map<string, string>([[raw.org.uid, '']]);
  const groups = byUid(raw.items.group).sort((a, b) => a.uid.length - b.uid.length);
  for (const g of groups) {
    const parentUid = parentUidOf(g.uid);
    const parent = parentUid === null ? undefined : groupPaths.get(parentUid);
    if (parentUid === null || parent === undefined) {
      noteUnplaced('group', g.uid);
      continue;
    }
    const path = joinPath(parent, text(g.name));
    groupPaths.set(g.uid, path);
    built.push({
      kind: 'group',
      address: groupAddress(path),
      groupPath: path,
      parentAddress: groupAddress(parent),
      uid: g.uid,
      parentUid,
      fields: { name: text(g.name), description: text(g.description) },
      ...timestamps(g),
    });
  }

  /** The owning group's uid and path, or undefined when the group is unknown. */
  const placeInGroup = (kind: Kind, obj: ApiObject): { parentUid: string; groupPath: string } | undefined => {
    const parentUid = parentUidOf(obj.uid);
    const groupPath = parentUid === null ? undefined : groupPaths.get(parentUid);
    if (parentUid === null || groupPath === undefined) {
      noteUnplaced(kind, obj.uid);
      return undefined;
    }
    return { parentUid, groupPath };
  };

  const identityPaths = new Map<string, string>();
  for (const i of byUid(raw.items.identity)) {
    const place = placeInGroup('identity', i);
    if (!place) continue;
    const path = joinPath(place.groupPath, text(i.name));
    identityPaths.set(i.uid, path);
    const claimMatch = readClaimMatch(i.claimMatch);
    built.push({
      kind: 'identity',
      address: namedAddress('identity', place.groupPath, text(i.name)),
      groupPath: place.groupPath,
      parentAddress: groupAddress(place.groupPath),
      uid: i.uid,
      parentUid: place.parentUid,
      fields: { name: text(i.name), description: text(i.description), ...(claimMatch ? { claimMatch } : {}) },
      ...timestamps(i),
    });
  }

  const rolePaths = new Map<string, string>();
  for (const r of byUid(raw.items.role)) {
    if (!r.uid.includes('/')) continue; // a built-in role, should a listing ever include one
    const place = placeInGroup('role', r);
    if (!place) continue;
    rolePaths.set(r.uid, joinPath(place.groupPath, text(r.name)));
    built.push({
      kind: 'role',
      address: namedAddress('role', place.groupPath, text(r.name)),
      groupPath: place.groupPath,
      parentAddress: groupAddress(place.groupPath),
      uid: r.uid,
      parentUid: place.parentUid,
      fields: {
        name: text(r.name),
        description: text(r.description),
        capabilities: Array.isArray(r.capabilities) ? r.capabilities.map(String) : [],
      },
      ...timestamps(r),
    });
  }

  const repos = new Map<string, { groupPath: string; name: string }>();
  for (const r of byUid(raw.items.repo)) {
    const place = placeInGroup('repo', r);
    if (!place) continue;
    repos.set(r.uid, { groupPath: place.groupPath, name: text(r.name) });
    built.push({
      kind: 'repo',
      address: namedAddress('repo', place.groupPath, text(r.name)),
      groupPath: place.groupPath,
      parentAddress: groupAddress(place.groupPath),
      uid: r.uid,
      parentUid: place.parentUid,
      fields: { name: text(r.name), description: text(r.description) },
      ...timestamps(r),
    });
  }

  for (const t of byUid(raw.items.tag)) {
    const repoUid = parentUidOf(t.uid);
    const repo = repoUid === null ? undefined : repos.get(repoUid);
    if (repoUid === null || repo === undefined) {
      noteUnplaced('tag', t.uid);
      continue;
    }
    built.push({
      kind: 'tag',
      address: tagAddress(joinPath(repo.groupPath, repo.name), text(t.name)),
      groupPath: repo.groupPath,
      parentAddress: namedAddress('repo', repo.groupPath, repo.name),
      uid: t.uid,
      parentUid: repoUid,
      fields: { name: text(t.name), digest: text(t.digest), deprecated: t.deprecated === true },
      ...timestamps(t),
    });
  }

  for (const s of byUid(raw.items.subscription)) {
    const place = placeInGroup('subscription', s);
    if (!place) continue;
    built.push({
      kind: 'subscription',
      address: subscriptionAddress(place.groupPath, text(s.sink)),
      groupPath: place.groupPath,
      parentAddress: groupAddress(place.groupPath),
      uid: s.uid,
      parentUid: place.parentUid,
      fields: { sink: text(s.sink) },
      ...timestamps(s),
    });
  }

  const builtinByUid = new Map(Object.entries(raw.builtinRoles).map(([name, uid]) => [uid, name]));
  const identityKey = (uid: string): IdentityKey => {
    const path = identityPaths.get(uid);
    return path !== undefined ? { path } : { uid };
  };
  const roleKey = (uid: string): RoleKey => {
    const builtin = builtinByUid.get(uid);
    if (builtin !== undefined) return { builtin };
    const path = rolePaths.get(uid);
    return path !== undefined ? { path } : { uid };
  };
  // A binding may name an identity or role outside the org (kept as `{uid}`), but one whose
  // uid lies inside the org must have been listed: if not, that listing missed it, and the
  // binding's address (`uid:…` instead of a path) would not match the manifests.
  const insideOrg = (uid: string): boolean => uid.startsWith(`${raw.org.uid}/`);
  for (const b of byUid(raw.items.roleBinding)) {
    const place = placeInGroup('roleBinding', b);
    if (!place) continue;
    const identityUid = referencedUid(b, 'identity');
    const roleUid = referencedUid(b, 'role');
    if (insideOrg(identityUid) && !identityPaths.has(identityUid)) noteUnlisted('identity', identityUid, b.uid);
    if (insideOrg(roleUid) && !rolePaths.has(roleUid)) noteUnlisted('role', roleUid, b.uid);
    const identity = identityKey(identityUid);
    const role = roleKey(roleUid);
    built.push({
      kind: 'roleBinding',
      address: roleBindingAddress(place.groupPath, identity, role),
      groupPath: place.groupPath,
      parentAddress: groupAddress(place.groupPath),
      uid: b.uid,
      parentUid: place.parentUid,
      fields: { identity, role },
      ...timestamps(b),
    });
  }

  return { ...separateAmbiguities(built), unplaced: [...describeUnplaced(unplacedCount), ...describeUnlisted(unlistedCount)] };
}

/** Keeps the first resource per address and reports every address held by more than one. */
function separateAmbiguities(built: LiveResource[]): { resources: LiveResource[]; ambiguities: LiveAmbiguity[] } {
  const byAddress = new Map<string, LiveResource[]>();
  for (const r of built) pushTo(byAddress, r.address, r);
  const resources: LiveResource[] = [];
  const ambiguities: LiveAmbiguity[] = [];
  for (const [address, list] of [...byAddress].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    resources.push(list[0]!);
    if (list.length > 1) ambiguities.push({ address, uids: list.map((r) => r.uid) });
  }
  return { resources, ambiguities };
}

function describeUnplaced(counts: Map<Kind, { count: number; example: string }>): IncompleteRead[] {
  return [...counts].map(([kind, { count, example }]) => ({
    kind,
    reason: `${count} ${KIND_INFO[kind].plural} (e.g. ${example}) belong to a parent missing from the listings`,
  }));
}

function describeUnlisted(counts: Map<Kind, { count: number; example: string; binding: string }>): IncompleteRead[] {
  return [...counts].map(([kind, { count, example, binding }]) => ({
    kind,
    reason: `${count} role binding reference${count === 1 ? '' : 's'} to ${KIND_INFO[kind].plural} inside the org missing from the listing (e.g. ${example}, bound by ${binding})`,
  }));
}
