/**
 * The emulator's indexed storage: a pure in-memory data structure, no HTTP, no clock, no I/O.
 *
 * Indexes (all kept in step by insert/update/remove):
 * - per kind, a map uid → resource and an array sorted by uid (rebuilt lazily after bulk
 *   loads, kept sorted by binary insertion otherwise), so `uidp.descendants_of` and token
 *   scopes are a binary-searched range, never a scan;
 * - children by parent and kind, sibling natural keys (uniqueness), names per kind,
 *   role-binding references per identity and per role;
 * - a small cache of sorted result sets per (kind, filter, order). Each cached set is kept
 *   up to date on every insert, update and remove (binary insertion / removal), so neither
 *   paging nor the first page after a change re-sorts: a page costs O(log n + page size).
 */
import type { ApiKind } from '../model/kinds.js';
import type { AwsIdentity, ClaimMatch, StaticKeys } from '../model/identity-relationships.js';
import { kindContract } from './contract.js';
import {
  boundOf,
  type CachedList,
  compareKey,
  compareResources,
  isGlobal,
  type ListFilter,
  matches,
  type OrderField,
  sortKey,
} from './list-order.js';

/** Kind-specific fields; which ones a kind uses is fixed by render.ts and validate.ts. */
export interface ResourceData {
  name?: string;
  description?: string;
  /** An identity's relationship: exactly one of these four (identity-relationships.ts). */
  claimMatch?: ClaimMatch;
  awsIdentity?: AwsIdentity;
  staticKeys?: StaticKeys;
  servicePrincipal?: string;
  /** An account association's blocks (its name and description are the common ones). */
  amazon?: { account: string };
  google?: { projectId?: string; projectNumber?: string };
  azure?: { tenantId: string; clientIds?: Record<string, string> };
  github?: { installations: { installationId: string; name?: string }[] };
  chainguard?: { serviceBindings?: Record<string, string> };
  /** An acceptance of terms: the document, and who accepted it. */
  docId?: string;
  acceptedBy?: string;
  /** A group mapping's external group and scope (its role is `roleUid`). */
  externalGroupId?: string;
  scope?: string;
  /** An identity provider's default role (a role uid) and OIDC settings (the secret write-only). */
  defaultRole?: string;
  oidc?: {
    issuer: string;
    clientId: string;
    clientSecret?: string;
    additionalScopes?: string[];
    groupsClaim?: string;
    pkceEnabled?: boolean;
  };
  lastSeenMs?: number;
  capabilities?: string[];
  identityUid?: string;
  roleUid?: string;
  readme?: string;
  digest?: string;
  deprecated?: boolean;
  sink?: string;
  advisoryId?: string;
  artifactName?: string;
  /** A repo's bundle keywords and catalog entitlement. */
  bundles?: string[];
  syncConfig?: {
    source: string;
    expiration: string;
    syncApks?: boolean;
    uniqueTags?: boolean;
    gracePeriod?: boolean;
    amazon?: string;
    google?: string;
    azure?: string;
    apkoOverlay?: string;
  };
  /** A repo's catalog tier (unset when absent), other names and the tags the catalog keeps current. */
  catalogTier?: string;
  aliases?: string[];
  activeTags?: string[];
  /** An invite's role (a role uid), e-mail, end and use; its code only as `sha256:<hex>`. An identity's e-mail (people). */
  role?: string;
  email?: string;
  expirationTime?: string;
  singleUse?: boolean;
  codeHash?: string;
}

/**
 * One stored resource. Invariants: `uid` is unique across all kinds; a child's uid starts with
 * `parent + '/'`; `updateMs >= createMs` and strictly increases on every change.
 */
export interface StoredResource {
  readonly kind: ApiKind;
  readonly uid: string;
  /** Parent uid (group, or repo for tags); null for root groups, built-in roles and global advisories. */
  readonly parent: string | null;
  /** Insertion sequence number. */
  readonly seq: number;
  createMs: number;
  updateMs: number;
  data: ResourceData;
  /** Built-in roles: visible to every token, read-only, never persisted. */
  readonly builtin?: boolean;
}

/** The natural key among siblings of one kind, or null when the kind has none. */
function naturalKey(r: StoredResource): string | null {
  switch (r.kind) {
    case 'roleBinding':
      return `${r.data.identityUid}\u0000${r.data.roleUid}`;
    case 'subscription':
      return r.data.sink ?? null;
    case 'groupMapping':
      return `${r.data.externalGroupId}\u0000${r.data.roleUid}\u0000${r.data.scope}`;
    case 'accountAssociation':
      return 'the one of its group';
    case 'terms':
      return r.data.docId ?? null;
    case 'advisory':
    case 'groupInvite': // several invites may name one e-mail and role
      return null;
    default:
      return r.data.name ?? null;
  }
}

const MAX_CACHED_LISTS = 64;

/** One change to the store, as the journal records it (persist.ts). */
export type StoreMutation = { op: 'put'; resource: StoredResource } | { op: 'del'; kind: ApiKind; uid: string };

export class Store {
  /** Told of every insert, update and remove once set (the state file's journal). */
  onMutation: ((m: StoreMutation) => void) | undefined;
  /** Counts every insert, update and remove: what was derived from the store at one version holds until it moves. */
  version = 0;
  private readonly byKind = new Map<ApiKind, Map<string, StoredResource>>();
  private readonly uidSorted = new Map<ApiKind, StoredResource[] | null>();
  private readonly kindOfUid = new Map<string, ApiKind>();
  /** parent uid → kind → child uids */
  private readonly children = new Map<string, Map<ApiKind, Set<string>>>();
  /** kind \0 parent \0 natural key → uid */
  private readonly siblingKeys = new Map<string, string>();
  /** kind → name → uids */
  private readonly names = new Map<ApiKind, Map<string, Set<string>>>();
  /** kind → uids of global resources (built-in roles, advisories without an org). */
  private readonly globals = new Map<ApiKind, Set<string>>();
  private readonly bindingsByIdentity = new Map<string, number>();
  private readonly bindingsByRole = new Map<string, number>();
  /** Cached sorted result sets: kind → cache key → set. Insertion order is LRU order. */
  private readonly listCache = new Map<ApiKind, Map<string, CachedList>>();
  private cachedLists = 0;
  private nextSeq = 1;

  /** Next insertion sequence number (persisted so that order survives a restart). */
  get seq(): number {
    return this.nextSeq;
  }
  set seq(value: number) {
    this.nextSeq = Math.max(this.nextSeq, value);
  }

  allocateSeq(): number {
    return this.nextSeq++;
  }

  get(kind: ApiKind, uid: string): StoredResource | undefined {
    return this.byKind.get(kind)?.get(uid);
  }

  hasUid(uid: string): boolean {
    return this.kindOfUid.has(uid);
  }

  /** Every resource of every kind (for persistence), in no particular order. */
  *all(): IterableIterator<StoredResource> {
    for (const m of this.byKind.values()) yield* m.values();
  }

  /** Number of stored resources, built-ins excluded. */
  count(): number {
    let n = 0;
    for (const m of this.byKind.values()) for (const r of m.values()) if (!r.builtin) n++;
    return n;
  }

  /** The uid of the sibling of `kind` under `parent` with the same natural key as `probe`, if any. */
  findSibling(kind: ApiKind, parent: string | null, data: ResourceData): string | undefined {
    const key = naturalKey({ kind, uid: '', parent, seq: 0, createMs: 0, updateMs: 0, data });
    return key === null ? undefined : this.siblingKeys.get(`${kind}\u0000${parent ?? ''}\u0000${key}`);
  }

  /** Number of direct children of `uid`, all kinds together. */
  childCount(uid: string): number {
    let n = 0;
    for (const s of this.children.get(uid)?.values() ?? []) n += s.size;
    return n;
  }

  /** Children counts of `uid` per kind (for RESOURCE_NOT_EMPTY messages). */
  childCounts(uid: string): Partial<Record<ApiKind, number>> {
    const out: Partial<Record<ApiKind, number>> = {};
    for (const [k, s] of this.children.get(uid) ?? []) if (s.size > 0) out[k] = s.size;
    return out;
  }

  /** Direct children of `uid` of one kind, in no particular order (a copy: safe to remove from). */
  childrenOf(uid: string, kind: ApiKind): StoredResource[] {
    return [...(this.children.get(uid)?.get(kind) ?? [])].map((u) => this.get(kind, u)!);
  }

  bindingCount(kind: 'identity' | 'role', uid: string): number {
    return (kind === 'identity' ? this.bindingsByIdentity : this.bindingsByRole).get(uid) ?? 0;
  }

  /** Inserts a resource; the caller has checked uniqueness and the parent. */
  insert(r: StoredResource): void {
    let m = this.byKind.get(r.kind);
    if (!m) this.byKind.set(r.kind, (m = new Map()));
    m.set(r.uid, r);
    // An account association has its group's uid: the uid stays the group's.
    if (r.uid !== r.parent) this.kindOfUid.set(r.uid, r.kind);
    if (r.seq >= this.nextSeq) this.nextSeq = r.seq + 1;
    const sorted = this.uidSorted.get(r.kind);
    if (sorted) {
      // Appending is the common case for seeded (monotonic) uids; otherwise binary insertion.
      if (sorted.length === 0 || sorted[sorted.length - 1]!.uid < r.uid) sorted.push(r);
      else sorted.splice(boundOf(sorted, r.uid, r.uid, 'uid'), 0, r);
    }
    if (isGlobal(r)) {
      let set = this.globals.get(r.kind);
      if (!set) this.globals.set(r.kind, (set = new Set()));
      set.add(r.uid);
    }
    if (r.parent !== null) {
      let byKind = this.children.get(r.parent);
      if (!byKind) this.children.set(r.parent, (byKind = new Map()));
      let set = byKind.get(r.kind);
      if (!set) byKind.set(r.kind, (set = new Set()));
      set.add(r.uid);
    }
    this.indexFields(r, +1);
    this.addToCachedLists(r);
    this.version++;
    this.onMutation?.({ op: 'put', resource: r });
  }

  /** Applies `change` to `r`'s data, keeping the indexes in step. */
  update(r: StoredResource, change: Partial<ResourceData>, updateMs: number): void {
    this.indexFields(r, -1);
    this.removeFromCachedLists(r);
    const next: ResourceData = { ...r.data, ...change };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete next[k as keyof ResourceData];
    r.data = next;
    r.updateMs = updateMs;
    this.indexFields(r, +1);
    this.addToCachedLists(r);
    this.version++;
    this.onMutation?.({ op: 'put', resource: r });
  }

  remove(r: StoredResource): void {
    this.byKind.get(r.kind)?.delete(r.uid);
    if (r.uid !== r.parent) this.kindOfUid.delete(r.uid);
    const sorted = this.uidSorted.get(r.kind);
    if (sorted) {
      const i = boundOf(sorted, r.uid, r.uid, 'uid');
      if (sorted[i]?.uid === r.uid) sorted.splice(i, 1);
    }
    if (r.parent !== null) this.children.get(r.parent)?.get(r.kind)?.delete(r.uid);
    this.globals.get(r.kind)?.delete(r.uid);
    if (r.uid !== r.parent) this.children.delete(r.uid); // not the children of the group it shares a uid with
    this.indexFields(r, -1);
    this.removeFromCachedLists(r);
    this.version++;
    this.onMutation?.({ op: 'del', kind: r.kind, uid: r.uid });
  }

  /**
   * Forgets every sorted view and cached list; they are rebuilt on next use. Called before a
   * bulk load, so that each insert is O(1) instead of a binary insertion into big arrays.
   */
  invalidateSortedViews(): void {
    for (const k of this.uidSorted.keys()) this.uidSorted.set(k, null);
    this.listCache.clear();
    this.cachedLists = 0;
  }

  /**
   * The resources of `kind` matching `filter`, sorted ascending by `field` then uid.
   * The array is shared with the cache: callers must not mutate it.
   */
  query(kind: ApiKind, filter: ListFilter, field: OrderField): readonly StoredResource[] {
    let lists = this.listCache.get(kind);
    if (!lists) this.listCache.set(kind, (lists = new Map()));
    const cacheKey = `${field}\u0000${JSON.stringify(filter)}`;
    const cached = lists.get(cacheKey);
    if (cached) {
      // Refresh its LRU position.
      lists.delete(cacheKey);
      lists.set(cacheKey, cached);
      return cached.items;
    }
    const { candidates, sortedByUid } = this.candidates(kind, filter);
    const items = candidates.filter((r) => matches(r, filter));
    if (!(sortedByUid && field === 'uid')) items.sort((a, b) => compareResources(a, b, field));
    lists.set(cacheKey, { filter, field, items });
    if (++this.cachedLists > MAX_CACHED_LISTS) this.evictOldestList();
    return items;
  }

  private evictOldestList(): void {
    // Evict from the kind with the most cached lists: cheap and keeps every kind served.
    let victim: Map<string, CachedList> | undefined;
    for (const lists of this.listCache.values()) if (!victim || lists.size > victim.size) victim = lists;
    const key = victim?.keys().next().value;
    if (victim && key !== undefined) {
      victim.delete(key);
      this.cachedLists--;
    }
  }

  private addToCachedLists(r: StoredResource): void {
    for (const list of this.listCache.get(r.kind)?.values() ?? []) {
      if (!matches(r, list.filter)) continue;
      const items = list.items;
      const key = sortKey(r, list.field);
      // Appending is the common case (new resources sort last by uid-less time orders).
      if (items.length === 0 || compareKey(key, r.uid, items[items.length - 1]!, list.field) > 0) items.push(r);
      else items.splice(boundOf(items, key, r.uid, list.field), 0, r);
    }
  }

  /** Must run while `r` still has the sort keys it was cached under. */
  private removeFromCachedLists(r: StoredResource): void {
    for (const list of this.listCache.get(r.kind)?.values() ?? []) {
      const items = list.items;
      const i = boundOf(items, sortKey(r, list.field), r.uid, list.field);
      if (items[i] === r) items.splice(i, 1);
    }
  }

  /** Picks the most selective index for a filter. */
  private candidates(kind: ApiKind, f: ListFilter): { candidates: StoredResource[]; sortedByUid: boolean } {
    const m = this.byKind.get(kind);
    if (!m) return { candidates: [], sortedByUid: true };
    const resolve = (uids: Iterable<string>): StoredResource[] => {
      const out: StoredResource[] = [];
      for (const u of uids) {
        const r = m.get(u);
        if (r) out.push(r);
      }
      return out;
    };
    if (f.name !== undefined)
      return { candidates: resolve(this.names.get(kind)?.get(f.name) ?? []), sortedByUid: false };
    if (f.childrenOf !== undefined)
      return { candidates: resolve(this.children.get(f.childrenOf)?.get(kind) ?? []), sortedByUid: false };
    if (f.descendantsOf !== undefined)
      return { candidates: this.uidRange(kind, `${f.descendantsOf}/`, `${f.descendantsOf}/\uffff`), sortedByUid: true };
    if (f.scope !== undefined) {
      const within = this.uidRange(kind, f.scope, `${f.scope}/\uffff`);
      const globals = resolve(this.globals.get(kind) ?? []);
      return { candidates: globals.length > 0 ? [...within, ...globals] : within, sortedByUid: globals.length === 0 };
    }
    return { candidates: this.sortedView(kind), sortedByUid: true };
  }

  private sortedView(kind: ApiKind): StoredResource[] {
    let sorted = this.uidSorted.get(kind);
    if (!sorted) {
      sorted = [...(this.byKind.get(kind)?.values() ?? [])];
      sorted.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
      this.uidSorted.set(kind, sorted);
    }
    return sorted;
  }

  /** Resources whose uid is in [from, to), by binary search on the uid-sorted view. */
  private uidRange(kind: ApiKind, from: string, to: string): StoredResource[] {
    const sorted = this.sortedView(kind);
    return sorted.slice(boundOf(sorted, from, from, 'uid'), boundOf(sorted, to, to, 'uid'));
  }

  private indexFields(r: StoredResource, delta: 1 | -1): void {
    const key = naturalKey(r);
    if (key !== null) {
      const k = `${r.kind}\u0000${r.parent ?? ''}\u0000${key}`;
      // Built-in roles have no parent; they must not block a root-level name.
      if (!r.builtin) {
        if (delta > 0) this.siblingKeys.set(k, r.uid);
        else if (this.siblingKeys.get(k) === r.uid) this.siblingKeys.delete(k);
      }
    }
    if (r.data.name !== undefined && kindContract(r.kind).uniqueKey[0] === 'name') {
      let byName = this.names.get(r.kind);
      if (!byName) this.names.set(r.kind, (byName = new Map()));
      let set = byName.get(r.data.name);
      if (delta > 0) {
        if (!set) byName.set(r.data.name, (set = new Set()));
        set.add(r.uid);
      } else if (set) {
        set.delete(r.uid);
        if (set.size === 0) byName.delete(r.data.name);
      }
    }
    // A role an identity provider defaults to is bound too: it may not be deleted under it.
    const heldRole =
      r.kind === 'identityProvider' ? r.data.defaultRole : r.kind === 'groupMapping' ? r.data.roleUid : undefined;
    if (heldRole !== undefined) {
      const n = (this.bindingsByRole.get(heldRole) ?? 0) + delta;
      if (n > 0) this.bindingsByRole.set(heldRole, n);
      else this.bindingsByRole.delete(heldRole);
    }
    if (r.kind === 'roleBinding') {
      for (const [map, uid] of [
        [this.bindingsByIdentity, r.data.identityUid],
        [this.bindingsByRole, r.data.roleUid],
      ] as const) {
        if (uid === undefined) continue;
        const n = (map.get(uid) ?? 0) + delta;
        if (n > 0) map.set(uid, n);
        else map.delete(uid);
      }
    }
  }
}

/** A resource's natural key, as an ALREADY_EXISTS message names it. */
export function describeNaturalKey(kind: ApiKind, data: ResourceData): string {
  if (kind === 'roleBinding') return `a role binding of identity ${data.identityUid} to role ${data.roleUid}`;
  if (kind === 'subscription') return `a subscription to ${data.sink}`;
  if (kind === 'groupMapping')
    return `a mapping of external group ${JSON.stringify(data.externalGroupId)} to role ${data.roleUid}`;
  if (kind === 'accountAssociation') return 'an account association (a group has at most one)';
  return `a ${kind} named ${JSON.stringify(data.name)}`;
}
