/** The live side of the planner, indexed once for matching and for the safety checks. Pure. */
import type { LiveResource, LiveState } from '../model/resources.js';
import { pushTo } from '../util/multimap.js';
import { descriptorOf, type Kind } from '../model/kinds.js';
import { ORG_ADDRESS } from '../model/address.js';
import type { RoleKey } from '../model/address.js';
import { buildReferenceLookup, identityRefAddress, normaliseBinding, roleRefAddress, type ReferenceLookup } from './references.js';

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
  /** Parent address → live children (ambiguous ones included: they block a delete too). */
  readonly childrenOf: Map<string, LiveResource[]>;
  /** Identity/role address → live bindings (and identity providers) that reference it. */
  readonly bindingsByRef: Map<string, LiveResource[]>;
  /** For normalising `{uid}` binding references on both sides. */
  lookup: ReferenceLookup;
  /** Live resources of each kind, the org root left out (what a mass delete is measured against). */
  countByKind: Map<Kind, number>;
}

export function indexLive(live: LiveState): LiveIndex {
  const lookup = buildReferenceLookup(live);
  const byAddress = new Map<string, LiveResource>();
  const ambiguous = new Set<string>(live.ambiguities.map((a) => a.address));
  const countByKind = new Map<Kind, number>();
  // One pass over what may be 100,000 resources: on an org that big, each pass costs.
  const resources = live.resources.map((raw) => {
    const r = normaliseBinding(raw, lookup);
    if (byAddress.has(r.address)) ambiguous.add(r.address);
    else byAddress.set(r.address, r);
    if (r.address !== ORG_ADDRESS) countByKind.set(r.kind, (countByKind.get(r.kind) ?? 0) + 1);
    return r;
  });
  for (const address of ambiguous) byAddress.delete(address);

  let byUid: Map<string, LiveResource> | undefined;
  let references: { childrenOf: Map<string, LiveResource[]>; bindingsByRef: Map<string, LiveResource[]> } | undefined;
  const referencesOf = () => {
    if (references) return references;
    references = { childrenOf: new Map(), bindingsByRef: new Map() };
    for (const r of resources) {
      if (r.parentAddress !== null) pushTo(references.childrenOf, r.parentAddress, r);
      if (r.kind === 'roleBinding') {
        pushTo(references.bindingsByRef, identityRefAddress(r.fields.identity), r);
        pushTo(references.bindingsByRef, roleRefAddress(r.fields.role), r);
      }
      // A role another resource defaults to (an identity provider) is held by it like by a binding.
      for (const spec of descriptorOf(r.kind).fields) {
        const key = (r.fields as unknown as Record<string, RoleKey | undefined>)[spec.name];
        if (spec.type === 'roleRef' && key !== undefined) pushTo(references.bindingsByRef, roleRefAddress(key), r);
      }
    }
    return references;
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
    get childrenOf() {
      return referencesOf().childrenOf;
    },
    get bindingsByRef() {
      return referencesOf().bindingsByRef;
    },
  };
}
