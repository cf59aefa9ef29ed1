/** The live side of the planner, indexed once for matching and for the safety checks. Pure. */
import type { LiveResource, LiveState } from '../model/resources.js';
import { pushTo } from '../util/multimap.js';
import { descriptorOf, IDENTITY_GRANT_KIND, type Kind, KINDS, roleRefFields } from '../model/kinds.js';
import { ORG_ADDRESS } from '../model/address.js';
import type { IdentityKey, RoleKey } from '../model/address.js';
import { buildReferenceLookup, normaliseBinding, type ReferenceLookup } from './references.js';

/**
 * The live side, indexed for matching. Ambiguous addresses are kept out of `rankOf` (`at` finds none). The
 * indexes only deletes and pinned uids need are built on first use: a plan without them (most
 * plans: nothing to delete) never pays for them.
 */
export interface LiveIndex {
  /** The live resources, bindings normalised (references by path), in live's order. */
  resources: readonly LiveResource[];
  /**
   * Address → rank in `resources`. Ambiguous addresses are kept out. A rank, not the resource: a
   * phase that reads both sides by address (normalise, matching) keeps what it found per rank in
   * an array, not in a second map of every address.
   */
  rankOf: ReadonlyMap<string, number>;
  /** The live resource at an address (undefined: none, or ambiguous). */
  at(address: string): LiveResource | undefined;
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
  readonly countByKind: Map<Kind, number>;
  /**
   * The ranks of the live resources of each of `kinds`, in live's order: what access reads of
   * live (src/access/state-index.ts) is found by kind from these, not by a pass over live's resources.
   */
  ranksOfKinds(kinds: readonly Kind[]): Map<Kind, number[]>;
}

/** Each kind's place in KINDS: what the index keeps of a resource's kind, one byte per rank. */
const KIND_CODE = new Map<string, number>(KINDS.map((kind, code) => [kind, code]));
/** The code of a kind not in KINDS. */
const NO_KIND = 255;

/** What holds some live resources: what a delete of them waits for, or is refused for. */
export interface Holders {
  /** Parent address → live children (ambiguous ones included: they block a delete too). */
  childrenOf: Map<string, LiveResource[]>;
  /** Identity/role address → live bindings (and identity providers) that reference it. */
  bindingsByRef: Map<string, LiveResource[]>;
}

export function indexLive(live: LiveState): LiveIndex {
  const lookup = buildReferenceLookup(live);
  const rankOf = new Map<string, number>();
  const ambiguous = new Set<string>(live.ambiguities.map((a) => a.address));
  /**
   * The code of each resource's kind, by rank: a byte a resource, outside the heap the collector
   * copies (a list of ranks per kind, made here, lived through the plan's every scavenge).
   */
  const kindCodes = new Uint8Array(live.resources.length);
  // One pass over what may be 100,000 resources: on an org that big, each pass costs. The list
  // as read is kept until a binding is rewritten (in most orgs none is): a copy from the first.
  const read = live.resources;
  let resources: LiveResource[] | undefined;
  for (let rank = 0; rank < read.length; rank++) {
    const raw = read[rank]!;
    const r = normaliseBinding(raw, lookup);
    if (resources !== undefined) resources.push(r);
    else if (r !== raw) resources = [...read.slice(0, rank), r];
    // One insertion, not a look-up and an insertion: an address met again does not grow the map,
    // and is ambiguous (the later rank it now holds goes with the ambiguous, deleted below).
    const size = rankOf.size;
    if (rankOf.set(r.address, rank).size === size) ambiguous.add(r.address);
    kindCodes[rank] = KIND_CODE.get(r.kind) ?? NO_KIND;
  }
  for (const address of ambiguous) rankOf.delete(address);
  const all = resources ?? read;
  const at = (address: string): LiveResource | undefined => {
    const rank = rankOf.get(address);
    return rank === undefined ? undefined : all[rank];
  };

  let byUid: Map<string, LiveResource> | undefined;
  let countByKind: Map<Kind, number> | undefined;
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
    // References are looked at only when an identity or a role is deleted (most deletes are of neither).
    const referenced = paths.identity.size > 0 || paths.role.size > 0;
    for (let i = 0; i < all.length; i++) {
      const r = all[i]!;
      if (r.parentAddress !== null && addresses.has(r.parentAddress)) pushTo(holders.childrenOf, r.parentAddress, r);
      if (!referenced) continue;
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
    resources: all,
    rankOf,
    at,
    ambiguous,
    lookup,
    ranksOfKinds(kinds) {
      const lists: (number[] | undefined)[] = new Array(KINDS.length);
      for (const kind of kinds) if (KIND_CODE.has(kind)) lists[KIND_CODE.get(kind)!] = [];
      for (let rank = 0; rank < kindCodes.length; rank++) lists[kindCodes[rank]!]?.push(rank);
      return new Map(kinds.filter((kind) => KIND_CODE.has(kind)).map((kind) => [kind, lists[KIND_CODE.get(kind)!]!]));
    },
    get countByKind() {
      if (countByKind === undefined) {
        countByKind = new Map();
        for (const r of all) if (r.address !== ORG_ADDRESS) countByKind.set(r.kind, (countByKind.get(r.kind) ?? 0) + 1);
      }
      return countByKind;
    },
    get byUid() {
      // A resource whose uid is its parent's (an account association) is found by address only.
      return (byUid ??= new Map(all.filter((r) => !descriptorOf(r.kind).uidIsParent).map((r) => [r.uid, r])));
    },
    holdersOf,
  };
}
