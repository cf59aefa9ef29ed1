/**
 * Live state re-addressed as if renames were done (issue 61): only what a rename moves is built
 * again — the renamed resources, everything beneath them (by parentUid, any kind: a tag's address
 * holds its repo's name), and the bindings and role references that name a renamed identity or
 * role (or one beneath a renamed group). Every other resource is the very object it was.
 *
 * This equals re-addressing every resource from the uid tree (test/support/readdress-oracle.ts,
 * the property in test/unit/readdress.test.ts) for a live state that is already addressed from
 * its uid tree (as build-live-state reads it: re-addressed with no rename, it is unchanged). Where
 * two resources share a uid, everything is re-addressed, as before: what one of them would be
 * called depends on the other.
 */
import { joinPath, ORG_ADDRESS, type IdentityKey, type RoleKey } from '../model/address.js';
import { descriptorOf, IDENTITY_GRANT_KIND, roleRefFields } from '../model/kinds.js';
import type { Kind } from '../model/kinds.js';
import type { LiveResource, LiveState } from '../model/resources.js';

/** Per kind, looked up once: the descriptor's flags the re-addressing reads for every resource. */
interface KindFacts {
  uidIsParent: boolean;
  ownsGroupPath: boolean;
  referenceable: boolean;
  /** Names a role or identity by path: a binding, or a kind with role-reference fields. */
  refersByPath: boolean;
}
const FACTS = new Map<Kind, KindFacts>();
function factsOf(kind: Kind): KindFacts {
  let facts = FACTS.get(kind);
  if (facts === undefined) {
    const d = descriptorOf(kind);
    facts = {
      uidIsParent: d.uidIsParent === true,
      ownsGroupPath: d.ownsGroupPath,
      referenceable: d.referenceable,
      refersByPath: kind === IDENTITY_GRANT_KIND || roleRefFields(kind).length > 0,
    };
    FACTS.set(kind, facts);
  }
  return facts;
}

/**
 * What the re-addressings of one plan's renames share, found on first use (they all start from
 * the same live state): each resource's parent (by position), whether two share a uid, and the
 * positions stably sorted by address.
 */
export interface AddressOrder {
  of?: readonly LiveResource[];
  sorted?: Int32Array;
  tree?: UidTree;
}

interface UidTree {
  of: readonly LiveResource[];
  /** Position of each resource's parent (its parentUid, the last of that uid that is not a kind sharing its parent's uid), or -1. */
  parent: Int32Array;
  /**
   * Where two resources share a uid: each resource's memo slot, the first of its kind and uid (what
   * one of them is called is what the first worked out is called). Undefined when none share.
   */
  slot: Int32Array | undefined;
}

function uidTreeOf(all: readonly LiveResource[], memo: AddressOrder): UidTree {
  if (memo.tree?.of === all) return memo.tree;
  const byUid = new Map<string, number>();
  let shared = false;
  let parentUids: Set<string> | undefined;
  for (let i = 0; i < all.length; i++) {
    const r = all[i]!;
    if (factsOf(r.kind).uidIsParent) {
      const key = `${r.kind}\u0000${r.uid}`;
      parentUids ??= new Set();
      if (parentUids.has(key)) shared = true;
      parentUids.add(key);
    } else {
      if (byUid.has(r.uid)) shared = true;
      byUid.set(r.uid, i);
    }
  }
  const parent = new Int32Array(all.length);
  for (let i = 0; i < all.length; i++) {
    const uid = all[i]!.parentUid;
    parent[i] = uid === null ? -1 : (byUid.get(uid) ?? -1);
  }
  let slot: Int32Array | undefined;
  if (shared) {
    slot = new Int32Array(all.length);
    const first = new Map<string, number>();
    for (let i = 0; i < all.length; i++) {
      const key = `${all[i]!.kind}\u0000${all[i]!.uid}`;
      const at = first.get(key);
      if (at === undefined) first.set(key, i);
      slot[i] = at ?? i;
    }
  }
  memo.tree = { of: all, parent, slot };
  return memo.tree;
}

const byAddressOrder = (a: LiveResource, b: LiveResource): number =>
  a.address < b.address ? -1 : a.address > b.address ? 1 : 0;

/**
 * Live state re-addressed with `newNames` (uid → name) applied: the path, address, parent address
 * and binding references of what the renames move are computed again from the uid tree. Fields
 * are kept as read, names included, so the renamed resources still differ from the manifests in
 * `name`. Sorted by address (stable), as the full re-addressing sorts.
 */
export function readdress(live: LiveState, newNames: ReadonlyMap<string, string>, order: AddressOrder = {}): LiveState {
  const all = live.resources;
  const { parent, slot } = uidTreeOf(all, order);

  // Moved by a rename: renamed itself, or beneath what is (a resource whose uid is its parent's
  // is not memoized, and a cycle counts as moved, so that it fails as the full one does). Where two
  // share a uid, everything is moved.
  const movedMemo = new Uint8Array(all.length); // 0 not known, 1 moved, 2 not
  const isMoved = (i: number): boolean => {
    if (slot !== undefined) return true;
    const r = all[i]!;
    const own = !factsOf(r.kind).uidIsParent;
    if (own) {
      if (movedMemo[i] !== 0) return movedMemo[i] === 1;
      movedMemo[i] = 1;
      if (newNames.has(r.uid)) return true;
    }
    const moved = parent[i]! >= 0 && isMoved(parent[i]!);
    if (own) movedMemo[i] = moved ? 1 : 2;
    return moved;
  };

  const nameOf = (r: LiveResource): string =>
    (factsOf(r.kind).uidIsParent ? undefined : newNames.get(r.uid)) ??
    String((r.fields as { name?: unknown }).name ?? '');
  // Memoized by kind and uid: an account association has its group's uid, and its own address.
  const slotOf = slot === undefined ? (i: number) => i : (i: number) => slot[i]!;
  const paths: (string | undefined)[] = new Array(all.length);
  /** The group path a resource owns (a group) or sits in (anything else). */
  const groupPathOf = (i: number): string => {
    const k = slotOf(i);
    const known = paths[k];
    if (known !== undefined) return known;
    const r = all[i]!;
    const p = parent[i]!;
    let path: string;
    if (r.address === ORG_ADDRESS || p < 0) path = r.address === ORG_ADDRESS ? '' : r.groupPath;
    else if (factsOf(r.kind).ownsGroupPath) path = joinPath(groupPathOf(p), nameOf(r));
    else path = groupPathOf(p);
    paths[k] = path;
    return path;
  };
  const addresses: (string | undefined)[] = new Array(all.length);
  /** The address of the resource at `i`, worked out from `r` (it or its copy with references rekeyed). */
  const addressOf = (i: number, r: LiveResource = all[i]!): string => {
    const k = slotOf(i);
    const known = addresses[k];
    if (known !== undefined) return known;
    let address: string;
    if (r.address === ORG_ADDRESS) address = ORG_ADDRESS;
    else {
      const p = parent[i]!;
      const fields = { ...(r.fields as unknown as Record<string, unknown>), name: nameOf(r) };
      const place =
        p >= 0 ? { groupPath: groupPathOf(p), fields: { name: nameOf(all[p]!) } } : { groupPath: '', fields: {} };
      address = descriptorOf(r.kind).address(groupPathOf(i), fields, place);
    }
    addresses[k] = address;
    return address;
  };

  // Which resources move, in order; and the old path → new path of each identity and role that
  // moves (the last of an old path wins, as in a map of them all), for the references of bindings.
  const moved = new Uint8Array(all.length);
  const movedRefs = new Set<string>();
  let anyMoved = false;
  for (let i = 0; i < all.length; i++) {
    const r = all[i]!;
    if (r.address === ORG_ADDRESS || !isMoved(i)) continue;
    moved[i] = 1;
    anyMoved = true;
    if (factsOf(r.kind).referenceable) movedRefs.add(refKeyOf(r));
  }
  const refPaths = new Map<string, string>();
  if (movedRefs.size > 0) {
    for (let i = 0; i < all.length; i++) {
      const r = all[i]!;
      if (!factsOf(r.kind).referenceable) continue;
      const key = refKeyOf(r);
      if (movedRefs.has(key)) refPaths.set(key, joinPath(groupPathOf(i), nameOf(r)));
    }
    for (const [key, path] of refPaths) if (key.slice(key.indexOf(':') + 1) === path) refPaths.delete(key);
  }
  const rekey = <K extends IdentityKey | RoleKey>(kind: string, key: K): K => {
    if (!('path' in key)) return key;
    const path = refPaths.get(`${kind}:${key.path}`);
    return path === undefined || path === key.path ? key : ({ path } as K);
  };
  const refersToMoved = (kind: string, key: unknown): boolean =>
    typeof key === 'object' && key !== null && 'path' in key && refPaths.has(`${kind}:${String(key.path)}`);
  if (refPaths.size > 0) {
    for (let i = 0; i < all.length; i++) {
      const r = all[i]!;
      if (moved[i] === 1 || r.address === ORG_ADDRESS || !factsOf(r.kind).refersByPath) continue;
      const fields = r.fields as unknown as Record<string, unknown>;
      if (r.kind === IDENTITY_GRANT_KIND) {
        if (refersToMoved('identity', fields.identity) || refersToMoved('role', fields.role)) moved[i] = 1;
      } else if (roleRefFields(r.kind).some(({ name }) => refersToMoved('role', fields[name]))) moved[i] = 1;
      anyMoved ||= moved[i] === 1;
    }
  }
  if (!anyMoved && isSorted(all)) return { ...live, resources: all.slice() };

  const resources = all.map((r, i): LiveResource => {
    if (moved[i] !== 1) return r;
    const p = parent[i]!;
    const next = {
      ...r,
      groupPath: groupPathOf(i),
      parentAddress: p >= 0 ? addressOf(p) : r.parentAddress,
    } as LiveResource;
    if (next.kind === IDENTITY_GRANT_KIND) {
      next.fields = { identity: rekey('identity', next.fields.identity), role: rekey('role', next.fields.role) };
    } else {
      // Any other role reference (an identity provider's default role, a group mapping's role)
      // follows a renamed role too, or a rename would read as a change of what it references.
      const refs = roleRefFields(next.kind);
      if (refs.length > 0) {
        const fields = { ...(next.fields as unknown as Record<string, unknown>) };
        for (const { name } of refs)
          if (fields[name] !== undefined) fields[name] = rekey('role', fields[name] as RoleKey);
        (next as { fields: unknown }).fields = fields;
      }
    }
    next.address = addressOf(i, next);
    return next;
  });
  return { ...live, resources: inAddressOrder(resources, moved, all, order) };
}

/** An identity's or role's path as read, keyed by kind (`identity:a/b/bot`). */
function refKeyOf(r: LiveResource): string {
  return `${r.kind}:${joinPath(r.groupPath, String((r.fields as { name?: unknown }).name))}`;
}

function isSorted(resources: readonly LiveResource[]): boolean {
  for (let i = 1; i < resources.length; i++) if (resources[i - 1]!.address > resources[i]!.address) return false;
  return true;
}

/**
 * The resources stably sorted by address. Those that did not move keep their address, so their
 * order is that of live's (sorted once per plan: a live state is read sorted, and then that is one
 * pass); the moved ones are sorted alone and merged in, ties by position.
 */
function inAddressOrder(
  resources: LiveResource[],
  moved: Uint8Array,
  live: readonly LiveResource[],
  order: AddressOrder,
): LiveResource[] {
  if (order.of !== live || order.sorted === undefined) {
    const sorted = new Int32Array(live.length);
    for (let i = 0; i < sorted.length; i++) sorted[i] = i;
    if (!isSorted(live)) sorted.sort((a, b) => byAddressOrder(live[a]!, live[b]!) || a - b);
    order.of = live;
    order.sorted = sorted;
  }
  const stay: number[] = [];
  const go: number[] = [];
  for (let i = 0; i < resources.length; i++) if (moved[i] === 1) go.push(i);
  for (const i of order.sorted) if (moved[i] !== 1) stay.push(i);
  go.sort((a, b) => byAddressOrder(resources[a]!, resources[b]!) || a - b);
  const out: LiveResource[] = new Array(resources.length);
  let s = 0;
  let g = 0;
  for (let k = 0; k < out.length; k++) {
    if (g >= go.length) out[k] = resources[stay[s++]!]!;
    else if (s >= stay.length) out[k] = resources[go[g++]!]!;
    else {
      const a = resources[stay[s]!]!;
      const b = resources[go[g]!]!;
      const first = byAddressOrder(a, b) || stay[s]! - go[g]!;
      out[k] = first <= 0 ? resources[stay[s++]!]! : resources[go[g++]!]!;
    }
  }
  return out;
}
