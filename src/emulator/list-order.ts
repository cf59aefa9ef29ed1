/**
 * How the emulator's listings filter and order stored resources: the filters a List request
 * may combine (`uidp.*`, name, token scope), the order fields (ties broken by uid), and the
 * binary search over a sorted result set that paging and the store's cached lists share.
 */
import type { StoredResource } from './store.js';

export type OrderField = 'uid' | 'name' | 'createTime' | 'updateTime';

/** List constraints; every one given must hold. */
export interface ListFilter {
  childrenOf?: string;
  descendantsOf?: string;
  name?: string;
  /** Token scope: the group and its subtree, plus global resources (built-in roles). */
  scope?: string;
  artifactNames?: string[];
  advisoryIds?: string[];
}

/** Resources every token sees and no `uidp.*` filter matches. */
export function isGlobal(r: StoredResource): boolean {
  return r.builtin === true || (r.kind === 'advisory' && r.parent === null);
}

/** Whether `uid` is `scope` itself or below it. */
export function isWithin(uid: string, scope: string): boolean {
  return uid === scope || (uid.length > scope.length && uid.startsWith(scope) && uid[scope.length] === '/');
}

/** The value a list is ordered by (ties broken by uid). */
export function sortKey(r: StoredResource, field: OrderField): string | number {
  switch (field) {
    case 'uid':
      return r.uid;
    case 'name':
      return r.data.name ?? '';
    case 'createTime':
      return r.createMs;
    case 'updateTime':
      return r.updateMs;
  }
}

/** Compares a (key, uid) pair with a resource under `field`, ascending. */
export function compareKey(key: string | number, uid: string, r: StoredResource, field: OrderField): number {
  const other = sortKey(r, field);
  if (key < other) return -1;
  if (key > other) return 1;
  return uid < r.uid ? -1 : uid > r.uid ? 1 : 0;
}

export function compareResources(a: StoredResource, b: StoredResource, field: OrderField): number {
  return compareKey(sortKey(a, field), a.uid, b, field);
}

export interface CachedList {
  filter: ListFilter;
  field: OrderField;
  /** Sorted ascending by (field, uid); always equal to a fresh query. */
  items: StoredResource[];
}

/**
 * Binary search in items sorted ascending by (field, uid): the index of the first item not
 * below (key, uid), or with `after` the first item above it.
 */
export function boundOf(
  items: readonly StoredResource[],
  key: string | number,
  uid: string,
  field: OrderField,
  after = false,
): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKey(key, uid, items[mid]!, field);
    if (c > 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function matches(r: StoredResource, f: ListFilter): boolean {
  if (f.childrenOf !== undefined && r.parent !== f.childrenOf) return false;
  if (f.descendantsOf !== undefined && (isGlobal(r) || !r.uid.startsWith(`${f.descendantsOf}/`))) return false;
  if (f.name !== undefined && r.data.name !== f.name) return false;
  if (f.scope !== undefined && !isGlobal(r) && !isWithin(r.uid, f.scope)) return false;
  if (f.artifactNames !== undefined && !f.artifactNames.includes(r.data.artifactName ?? '')) return false;
  if (f.advisoryIds !== undefined && !f.advisoryIds.includes(r.data.advisoryId ?? '')) return false;
  return true;
}
