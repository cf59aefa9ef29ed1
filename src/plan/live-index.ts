/** The live side of the planner, indexed once for matching and for the safety checks. Pure. */
import type { LiveResource, LiveState } from '../model/resources.js';
import { pushTo } from '../util/multimap.js';
import { descriptorOf, IDENTITY_GRANT_KIND, type Kind, roleRefFields } from '../model/kinds.js';
import { ORG_ADDRESS } from '../model/address.js';
import type { IdentityKey, RoleKey } from '../model/address.js';
import { buildReferenceLookup, normaliseBinding, type ReferenceLookup } from './references.js';

/**
 * The live side, indexed for matching. Ambiguous addresses are kept out of `byAddress`. The
 * indexes only deletes and pinned uids need are built on first use: a plan without them (most
 * plans: nothing to delete) never pays for them.
 */
export interface LiveIndex {
  byAddress: Map<string, LiveResource>;
  readonly byUid: Map<string, LiveResource>;
  /** Addresses that more than one live resource claims, or that the reader reported ambiguous. */
  ambiguous: Set<string>;
  /**
   * What holds the live resources at `addresses` (the ones a plan deletes): one pass over the
   * live side, keeping only what points at them.
   */
  holdersOf(addresses: ReadonlySet<string>): Holders;
  /** For normalising `{uid}` binding references on both sides. */
  lookup: ReferenceLookup;
  /** Live resources of each kind, the org root left out (what a mass delete is measured against). */
  countByKind: Map<Kind, number>;
}

/** What holds some live resources: what a delete of them waits for, or is refused for. */
export interface Holders {
  /** Parent address → live children (ambiguous ones included: they block a delete too). */
  childrenOf: Map<string, LiveResource[]>;
  /** Identity/role address → live bindings (and identity providers) that reference it. */
  bindingsByRef: Map<string, LiveResource[]>;
}

export function indexLive(live: LiveState): LiveIndex {
  const lookup = buildReferenceLookup(live);
  const byAddress = new Map<string, LiveResource>();
  const ambiguous = new Set<string>(live.ambiguities.map((a) => a.address));
  const countByKind = new Map<Kind, number>();
  // One pass over what may be 100,000 resources: on an org that big, each pass costs.
  const resources = live.resources.map((raw) => {
    const r = normaliseBinding(raw, lookup);
    // One insertion, not a look-up and an insertion: an address met again does not grow the map,
    // and is ambiguous (the later resource it now holds goes with the ambiguous, deleted below).
    const size = byAddress.size;
    if (byAddress.set(r.address, r).size === size) ambiguous.add(r.address);
    if (r.address !== ORG_ADDRESS) countByKind.set(r.kind, (countByKind.get(r.kind) ?? 0) + 1);
    return r;
  });
  for (const address of ambiguous) byAddress.delete(address);

  let byUid: Map<string, LiveResource> | undefined;
  const holdersOf = (addresses: ReadonlySet<string>): Holders => {
    const holders: Holders = { childrenOf: new Map(), bindingsByRef: new Map() };
    if (addresses.size === 0) return holders;
    // A reference by path names an identity or role of the org; one by uid or a built-in never
    // names a live address, so only paths are looked up (no address is built to find out).
    const paths = { identity: new Set<string>(), role: new Set<string>() };
    for (const address of addresses) {
      for (const kind of ['identity', 'role'] as const)
        if (address.startsWith(`${kind}:`)) paths[kind].add(address.slice(kind.length + 1));
    }
    const holds = (r: LiveResource, kind: 'identity' | 'role', key: IdentityKey | RoleKey | undefined): void => {
      if (key !== undefined && 'path' in key && paths[kind].has(key.path))
        pushTo(holders.bindingsByRef, `${kind}:${key.path}`, r);
    };
    for (const r of resources) {
      if (r.parentAddress !== null && addresses.has(r.parentAddress)) pushTo(holders.childrenOf, r.parentAddress, r);
      if (r.kind === IDENTITY_GRANT_KIND) {
        holds(r, 'identity', r.fields.identity);
        holds(r, 'role', r.fields.role);
      }
      // A role another resource defaults to (an identity provider) is held by it like by a binding.
      for (const field of roleRefFields(r.kind))
        holds(r, 'role', (r.fields as unknown as Record<string, RoleKey | undefined>)[field.name]);
    }
    return holders;
  };
  return {
    byAddress,
    ambiguous,
    lookup,
    countByKind,
    get byUid() {
      // A resource whose uid is its parent's (an account association) is found by address only.
      return (byUid ??= new Map(resources.filter((r) => !descriptorOf(r.kind).uidIsParent).map((r) => [r.uid, r])));
    },
    holdersOf,
  };
}
