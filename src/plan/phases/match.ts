/**
 * Phase 2, match: each declared resource paired with the live one at its address; what is left on either side is a create or a delete candidate. Pure (src/plan/index.ts runs the phases in order).
 */
import type { Normalised } from './normalise.js';
import { type Planning, isIgnoredDeclared, isIgnoredLive } from './planning.js';
import { identityRefAddress } from '../references.js';
import type { DesiredResource, LiveResource } from '../../model/resources.js';
import { pushTo } from '../../util/multimap.js';
import { IDENTITY_GRANT_KIND } from '../../model/kinds.js';

export interface Matching {
  /**
   * The matched: `desired[i]` is matched with `live[i]`. Two arrays, not an object (or a tuple) per
   * pair: at 50,000 matched resources the pair objects alone cost what their update check does.
   */
  pairs: { desired: DesiredResource[]; live: LiveResource[] };
  /** Bindings whose only change is their role: desired, and the live binding it replaces. */
  roleChanges: [DesiredResource & { kind: 'roleBinding' }, LiveResource & { kind: 'roleBinding' }][];
  creates: DesiredResource[];
  /** Live resources nothing desired matched (ambiguous ones excluded). */
  unmatchedLive: LiveResource[];
}

export function matchResources(
  p: Pick<Planning, 'index' | 'ignore' | 'formerAddressesOf'>,
  normalised: Pick<Normalised, 'resources' | 'liveRank' | 'declaredAt'>,
): Matching {
  const desired = normalised.resources;
  const live = p.index.resources;
  const pairs: Matching['pairs'] = { desired: [], live: [] };
  const unmatchedDesired: DesiredResource[] = [];
  // A live resource can be claimed twice only through a pinned uid: declared addresses are unique
  // (normalise), and so are the live addresses indexed. So only the few a pinned uid names are
  // kept in a set once matched, not every matched resource (a set of 50,000 costs what the rest of
  // matching does); any other live resource matched iff what is declared at its address, unpinned,
  // is of its kind.
  const contested = new Set<LiveResource>();
  for (let i = 0; i < desired.length; i++) {
    const uid = desired[i]!.uid;
    const l = uid === undefined ? undefined : p.index.byUid.get(uid);
    if (l !== undefined) contested.add(l);
  }
  const matched = new Set<LiveResource>();
  const checkAmbiguous = p.index.ambiguous.size > 0;
  // Indexed: per resource, mostly before V8 optimises it (a for…of allocates an iterator result per step then).
  for (let i = 0; i < desired.length; i++) {
    const d = desired[i]!;
    if (checkAmbiguous && p.index.ambiguous.has(d.address)) continue; // refused in safety
    // The live resource at its address normalise found (its rank), or the one its pinned uid names.
    const rank = normalised.liveRank[i]!;
    const l = d.uid !== undefined ? p.index.byUid.get(d.uid) : rank >= 0 ? live[rank] : undefined;
    if (l && l.kind === d.kind && !matched.has(l)) {
      pairs.desired.push(d);
      pairs.live.push(l);
      if (contested.has(l)) matched.add(l);
    } else {
      unmatchedDesired.push(d);
    }
  }
  const unmatchedLive: LiveResource[] = [];
  // The indexed live resources (every address but the ambiguous), in live's order.
  for (let rank = 0; rank < live.length; rank++) {
    const l = live[rank]!;
    if (checkAmbiguous && p.index.ambiguous.has(l.address)) continue;
    if (contested.has(l)) {
      if (!matched.has(l)) unmatchedLive.push(l);
      continue;
    }
    // An indexed address is never ambiguous: what is declared there unpinned and of its kind matched it.
    const at = normalised.declaredAt[rank]!;
    const d = at > 0 ? desired[at - 1] : undefined;
    if (d === undefined || d.uid !== undefined || d.kind !== l.kind) unmatchedLive.push(l);
  }

  // A binding is keyed by (group, identity, role); when exactly one desired and one live
  // binding remain for a (group, identity) and neither is ignored, the role changed.
  type Binding<S> = S & { kind: 'roleBinding' };
  const bindingKey = (r: Binding<DesiredResource> | Binding<LiveResource>) =>
    `${r.groupPath}\u0000${identityRefAddress(r.fields.identity)}`;
  const desiredByKey = new Map<string, Binding<DesiredResource>[]>();
  const liveByKey = new Map<string, Binding<LiveResource>[]>();
  for (const d of unmatchedDesired)
    if (d.kind === IDENTITY_GRANT_KIND && !isIgnoredDeclared(p, d)) pushTo(desiredByKey, bindingKey(d), d);
  for (const l of unmatchedLive)
    if (l.kind === IDENTITY_GRANT_KIND && !isIgnoredLive(p, l)) pushTo(liveByKey, bindingKey(l), l);
  const roleChanges: Matching['roleChanges'] = [];
  const paired = new Set<string>();
  for (const [key, ds] of desiredByKey) {
    const ls = liveByKey.get(key);
    if (ds.length !== 1 || ls?.length !== 1) continue;
    roleChanges.push([ds[0]!, ls[0]!]);
    paired.add(ds[0]!.address);
    paired.add(ls[0]!.uid);
  }
  return {
    pairs,
    roleChanges,
    creates: unmatchedDesired.filter((d) => !paired.has(d.address)),
    unmatchedLive: unmatchedLive.filter((l) => !paired.has(l.uid)),
  };
}
