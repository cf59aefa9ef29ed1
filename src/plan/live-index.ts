/** The live side of the planner, indexed once for matching and for the safety checks. Pure. */
import type { LiveResource, LiveState } from '../model/resources.js';
import { pushTo } from '../util/multimap.js';
import { descriptorOf } from '../model/kinds.js';
import type { RoleKey } from '../model/address.js';
import { buildReferenceLookup, identityRefAddress, normaliseBinding, roleRefAddress, type ReferenceLookup } from './references.js';

/** The live side, indexed for matching. Ambiguous addresses are kept out of `byAddress`. */
export interface LiveIndex {
  byAddress: Map<string, LiveResource>;
  byUid: Map<string, LiveResource>;
  /** Addresses that more than one live resource claims, or that the reader reported ambiguous. */
  ambiguous: Set<string>;
  /** Parent address → live children (ambiguous ones included: they block a delete too). */
  childrenOf: Map<string, LiveResource[]>;
  /** Identity/role address → live bindings (and identity providers) that reference it. */
  bindingsByRef: Map<string, LiveResource[]>;
  /** For normalising `{uid}` binding references on both sides. */
  lookup: ReferenceLookup;
}

export function indexLive(live: LiveState): LiveIndex {
  const lookup = buildReferenceLookup(live);
  const byAddress = new Map<string, LiveResource>();
  const byUid = new Map<string, LiveResource>();
  const ambiguous = new Set<string>(live.ambiguities.map((a) => a.address));
  const childrenOf = new Map<string, LiveResource[]>();
  const bindingsByRef = new Map<string, LiveResource[]>();
  for (const raw of live.resources) {
    const r = normaliseBinding(raw, lookup);
    // A resource whose uid is its parent's (an account association) is found by address only.
    if (!descriptorOf(r.kind).uidIsParent) byUid.set(r.uid, r);
    if (byAddress.has(r.address)) ambiguous.add(r.address);
    else byAddress.set(r.address, r);
    if (r.parentAddress !== null) pushTo(childrenOf, r.parentAddress, r);
    if (r.kind === 'roleBinding') {
      pushTo(bindingsByRef, identityRefAddress(r.fields.identity), r);
      pushTo(bindingsByRef, roleRefAddress(r.fields.role), r);
    }
    // A role another resource defaults to (an identity provider) is held by it like by a binding.
    for (const spec of descriptorOf(r.kind).fields) {
      const key = (r.fields as unknown as Record<string, RoleKey | undefined>)[spec.name];
      if (spec.type === 'roleRef' && key !== undefined) pushTo(bindingsByRef, roleRefAddress(key), r);
    }
  }
  for (const address of ambiguous) byAddress.delete(address);
  return { byAddress, byUid, ambiguous, childrenOf, bindingsByRef, lookup };
}

