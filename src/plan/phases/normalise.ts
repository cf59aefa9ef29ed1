/**
 * Phase 1, normalise: declared resources in the form live ones have (references by path); what cannot be planned at all (a dangling reference, a pinned org of another name) is refused. Pure (src/plan/index.ts runs the phases in order).
 */
import { type Planning, formatSource } from './planning.js';
import { normaliseBinding } from '../references.js';
import { ORG_ADDRESS } from '../../model/address.js';
import { referenceUidField } from '../../model/kind-descriptor.js';
import type { PlanRefusal } from '../../model/plan.js';
import type { DesiredResource } from '../../model/resources.js';
import { IDENTITY_GRANT_KIND } from '../../model/kinds.js';

/** What normalise makes: the declared resources as the later phases compare them, and what cannot be planned at all. */
export interface Normalised {
  resources: DesiredResource[];
  /**
   * Where each of `resources` is live: `liveRank[i]` is the rank in the live index (LiveIndex
   * `rankOf`) of the live resource at the address of `resources[i]`, -1 when none is indexed there.
   * Found once, while finding the one declared twice; matching reads it.
   */
  liveRank: Int32Array;
  /** What is declared at each live rank: `resources[declaredAt[rank] - 1]`; 0 when nothing is. */
  declaredAt: Int32Array;
  refusals: PlanRefusal[];
}

/** The declared resources as the later phases compare them; what cannot be planned at all is refused. */
export function normalise(p: Pick<Planning, 'desired' | 'live' | 'index'>): Normalised {
  const refusals: PlanRefusal[] = [];
  const pinned = refusalOfPinnedOrgOfAnotherName(p);
  if (pinned) refusals.push(pinned);
  return { ...normaliseDesired(p, refusals), refusals };
}

/**
 * Desired resources with bindings normalised. Input order is kept (it is the loader's,
 * deterministic); the steps are sorted at the end anyway. One resource declared twice is an
 * error (DESIGN.md §3); validation catches the literal repeats, but a binding written once by
 * name and once by `identityUid`/`roleUid` only shows up as one here, once the uid is known.
 * It is refused naming both places; the first is kept so the rest of the plan is still checked.
 * What is declared where live holds something is found through the live index (one look-up per
 * resource, its rank kept for matching); only the other addresses need a map of their own.
 */
function normaliseDesired(
  p: Pick<Planning, 'desired' | 'live' | 'index'>,
  refusals: PlanRefusal[],
): Pick<Normalised, 'resources' | 'liveRank' | 'declaredAt'> {
  // What is kept is the declared list itself until a resource is dropped or rewritten (in most
  // plans none is): a copy is made only from the first that is.
  let kept: DesiredResource[] | undefined;
  const byUid = new Set<DesiredResource>();
  const resources = p.desired.resources;
  const rankOf = p.index.rankOf;
  const liveRank = new Int32Array(resources.length);
  const declaredAt = new Int32Array(p.index.resources.length);
  /** Declared addresses no live resource is indexed at → the first declared there. */
  const elsewhere = new Map<string, DesiredResource>();
  let n = 0;
  for (let i = 0; i < resources.length; i++) {
    const raw = resources[i]!;
    const r = normaliseBinding(raw, p.index.lookup);
    if (r.kind === IDENTITY_GRANT_KIND && findDanglingReference(p, r, refusals)) {
      kept ??= resources.slice(0, i);
      continue;
    }
    if (r !== raw) byUid.add(r);
    const rank = rankOf.get(r.address) ?? -1;
    // The first declared at this address (the list kept so far holds it: only later ones are dropped).
    let first: DesiredResource | undefined;
    if (rank < 0) first = elsewhere.get(r.address);
    else if (declaredAt[rank]! > 0) first = (kept ?? resources)[declaredAt[rank]! - 1];
    if (first) {
      refusals.push({
        rule: 'declared-twice',
        message:
          `${r.address} is declared twice (${formatSource(first.source)} and ${formatSource(r.source)})` +
          `${byUid.has(first) !== byUid.has(r) ? ', once by name and once by uid' : ''}; declare it once`,
        addresses: [r.address],
      });
      kept ??= resources.slice(0, i);
      continue;
    }
    if (rank >= 0) declaredAt[rank] = n + 1;
    else elsewhere.set(r.address, r);
    liveRank[n++] = rank;
    if (kept !== undefined) kept.push(r);
    else if (r !== raw) kept = [...resources.slice(0, i), r];
  }
  return { resources: kept ?? resources, liveRank: liveRank.subarray(0, n), declaredAt };
}

/**
 * A binding's `identityUid`/`roleUid` that lies inside the org (under its root uid) but names
 * nothing the full read found: the API would refuse the create half-way through an apply, so the
 * plan is refused now, naming where the manifest wrote it. A uid outside the org is a person or
 * a role the org does not contain, and is taken as given. True when the binding is refused.
 */
function findDanglingReference(
  p: Pick<Planning, 'desired' | 'live'>,
  binding: DesiredResource & { kind: 'roleBinding' },
  refusals: PlanRefusal[],
): boolean {
  const orgUid = p.live.org?.uid;
  if (orgUid === undefined) return false;
  // Bindings name their identity and role by path; only one named by uid is looked at.
  const identity = binding.fields.identity;
  const role = binding.fields.role;
  if (!('uid' in identity) && !('uid' in role)) return false;
  let dangling = false;
  for (const [field, key, kind] of [
    [referenceUidField('identity'), identity, 'identity'],
    [referenceUidField('role'), role, 'role'],
  ] as const) {
    if (!('uid' in key) || !key.uid.startsWith(`${orgUid}/`)) continue;
    // Normalising turned every uid the read found into a path: this one was not found. An
    // incomplete listing of that kind may simply have missed it; that read is refused anyway.
    if (p.live.incomplete.some((i) => i.kind === kind)) continue;
    dangling = true;
    refusals.push({
      rule: 'dangling-reference',
      message:
        `${binding.address} (${formatSource(binding.source)}) names ${field} ${key.uid}, which lies inside org ${p.desired.org.name} ` +
        `but is no ${kind} there; fix the uid, or name the ${kind} by its path`,
      addresses: [binding.address],
    });
  }
  return dangling;
}

/**
 * A pinned `org.uid` whose live root group has another name (DESIGN.md §4): a manifest cannot
 * take over another org by pinning its uid. Renaming the org needs `renamedFrom` on the org.
 */
function refusalOfPinnedOrgOfAnotherName(p: Pick<Planning, 'desired' | 'live'>): PlanRefusal | undefined {
  const { org } = p.desired;
  const live = p.live.org;
  if (org.uid === undefined || live === null || live.name === org.name) return undefined;
  const declared = p.desired.resources.find((r) => r.address === ORG_ADDRESS);
  if (declared?.renamedFrom === live.name) return undefined;
  return {
    rule: 'org-name-mismatch',
    message:
      `org.uid ${org.uid} is pinned, but that root group is named ${JSON.stringify(live.name)} live, not ${JSON.stringify(org.name)}: ` +
      `a manifest may not take over another org by its uid; fix org.uid, or to rename the org write renamedFrom: ${JSON.stringify(live.name)} on it`,
    addresses: [ORG_ADDRESS],
  };
}
