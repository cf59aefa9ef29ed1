/**
 * The relation of the state a plan leads to, built from live's by the records the plan's steps
 * change (issue 61): a plan that changes no access record has live's relation itself; any other
 * recomputes the groups and roles it writes and the principals its records reach — the identities
 * it writes, the grants it writes, and the grants that name an identity or lie under a provider it
 * writes —, and shares every other principal and grant list with live's. Everything comes out as
 * `relationOf` of that state would make it, in the same order (relationOf stays the reference:
 * test/unit/planned-relation.test.ts holds the two equal over generated states and steps, and the
 * invariants hold the plan's access changes to their oracle). Pure.
 */
import { accessPartOf, type AccessRecord, type AccessStateRecords, stepsOverState } from './state.js';
import {
  type AccessRelation,
  addPrincipal,
  assembleRelation,
  capabilitiesOfRecord,
  childrenOf,
  type Grant,
  grantOfRecord,
  identityPrincipal,
  orgKeyOf,
  type Principal,
  relationOf,
  relationParts,
} from './relation.js';
import { addTouched, rolesChanged, touchedPrincipals } from './access-diff.js';
import type { PlanStep } from '../model/plan.js';

export interface PlannedRelation {
  relation: AccessRelation;
  /** The principals whose access can differ from live's (what `touchedPrincipals` of the two finds). */
  touched: Set<string>;
}

/** The relation of the state `steps` lead to from `live`'s (`now`: as relationOf takes it). */
export function plannedRelation(live: AccessRelation, steps: readonly PlanStep[], now?: number): PlannedRelation {
  if (!steps.some((s) => accessPartOf(s.kind) !== undefined)) return { relation: live, touched: new Set() };
  const over = stepsOverState(live.state, steps);
  if (over.changed.size === 0) return { relation: live, touched: new Set() };
  const parts = relationParts(live);
  const after = over.state;
  const scratch = (): PlannedRelation => {
    const relation = relationOf(after, now);
    return { relation, touched: touchedPrincipals(live, relation) };
  };
  if (parts === undefined || parts.now !== now) return scratch();
  const { changed } = over;
  const order = orderOf(live.state, over.appended);

  // Groups and roles: live's, with the changed records written over them.
  const groups = keyedAfter(live.groups, changed, order, after, 'scope', (r) => ({
    address: r.address,
    parent: r.parent,
  }));
  const orgKey = orgKeyOf(groups);
  // A grant whose scope field holds no key lies on the org: another org moves them all.
  if (orgKey !== parts.orgKey) return scratch();
  const roles = keyedAfter(parts.roles, changed, order, after, 'capabilities', capabilitiesOfRecord);
  const roleNames = keyedAfter(parts.roleNames, changed, order, after, 'capabilities', (r) => r.address);

  // The identity and grant records that change: those written, and the grants that read one.
  const identityKeys = new Set<string>();
  const grantKeys = new Set<string>();
  for (const key of changed) {
    const r = after.records.get(key) ?? live.state.records.get(key)!;
    const is = accessPartOf(r.kind)?.is;
    if (is === 'principal') identityKeys.add(key);
    else if (is === 'grant') grantKeys.add(key);
  }
  for (const key of identityKeys)
    for (const id of [parts.identities.get(key)?.id, `identity:${key}`])
      for (const g of live.grantsOf.get(id ?? '') ?? [])
        if (namesIdentity(live.state, g.record, key)) grantKeys.add(g.record);
  // Who can differ from live (touchedPrincipals): live's side found from the records, not from every grant.
  const touched = new Set<string>();
  for (const p of live.principals.values()) {
    if (p.kind !== 'externalGroup') continue;
    if (p.record && changed.has(p.record)) touched.add(p.id);
    for (const g of live.grantsOf.get(p.id) ?? [])
      if (changed.has(live.state.records.get(g.record)?.parent ?? '')) grantKeys.add(g.record);
  }

  // The principals they reach, before and after: each is made again from what gives it after.
  const reached = new Set<string>();
  const freshIdentity = new Map<string, Principal>();
  for (const key of identityKeys) {
    const was = parts.identities.get(key);
    if (was) reached.add(was.id);
    if (was && live.grantsOf.has(was.id)) touched.add(was.id);
    const r = after.records.get(key);
    if (r) {
      const p = identityPrincipal(key, r);
      freshIdentity.set(key, p);
      reached.add(p.id);
    }
  }
  const identitiesAfter = {
    get: (key: string): Principal | undefined =>
      identityKeys.has(key) ? freshIdentity.get(key) : parts.identities.get(key),
  };
  const grantsAfter = new Map<string, { principal: Principal; grant: Grant }>();
  for (const key of grantKeys) {
    const was = live.state.records.get(key);
    const before = was && grantOfRecord(was, live.state, parts.identities, parts.orgKey, now);
    if (before) reached.add(before.grant.principal);
    if (before && changed.has(key)) touched.add(before.grant.principal);
    const r = after.records.get(key);
    const found = r && grantOfRecord(r, after, identitiesAfter, orgKey, now);
    if (found) {
      grantsAfter.set(key, found);
      reached.add(found.grant.principal);
    }
  }
  const identityRecords = new Map<string, string[]>();
  const grantLists = new Map<string, Grant[]>();
  for (const id of reached) {
    identityRecords.set(
      id,
      (live.principals.get(id)?.records ?? []).filter((k) => !identityKeys.has(k)),
    );
    grantLists.set(
      id,
      (live.grantsOf.get(id) ?? []).filter((g) => !grantKeys.has(g.record)),
    );
  }
  for (const [key, p] of freshIdentity) identityRecords.get(p.id)!.push(key);
  for (const { grant } of grantsAfter.values()) grantLists.get(grant.principal)!.push(grant);
  for (const keys of identityRecords.values()) order.learn(keys);
  for (const grants of grantLists.values()) order.learn(grants.map((g) => g.record));
  const remade: [string, Principal][] = [];
  const remadeGrants: [string, Grant[]][] = [];
  for (const id of reached) {
    const keys = identityRecords.get(id)!.sort((a, b) => order.of(a) - order.of(b));
    const grants = grantLists.get(id)!.sort((a, b) => order.of(a.record) - order.of(b.record));
    let p: Principal | undefined;
    if (keys.length > 0) {
      // As relationOf merges them: in the state's order, the first address naming the principal.
      const merged = new Map<string, Principal>();
      for (const key of keys)
        p = addPrincipal(merged, freshIdentity.get(key) ?? identityPrincipal(key, after.records.get(key)!));
    } else if (grants.length > 0) {
      const first = grants[0]!.record;
      p = (grantsAfter.get(first) ?? grantOfRecord(after.records.get(first)!, after, identitiesAfter, orgKey, now))!
        .principal;
    }
    if (p) remade.push([id, p]);
    if (grants.length > 0) remadeGrants.push([id, grants]);
  }

  // In relationOf's order: identities by their first record, then the others by their first grant.
  const firstGrant = order.cursor();
  const grantsOf = mergeInOrder(
    live.grantsOf,
    reached,
    remadeGrants.map(([id, grants]) => [id, grants, order.of(grants[0]!.record)]),
    (_, grants) => firstGrant(grants[0]!.record),
    order.last,
  );
  const byGrant = live.state.records.size + over.appended.size;
  const [firstIdentity, firstOwnGrant] = [order.cursor(), order.cursor()];
  const principals = mergeInOrder(
    live.principals,
    reached,
    remade.map(([id, p]) => [
      id,
      p,
      p.records !== undefined ? order.of(p.records[0]!) : byGrant + order.of(grantsOf.get(id)![0]!.record),
    ]),
    (id, p) =>
      p.records !== undefined
        ? firstIdentity(p.records[0]!)
        : byGrant + firstOwnGrant(live.grantsOf.get(id)![0]!.record),
    byGrant + order.last,
  );
  const children = groups === live.groups ? live.children : childrenOf(groups);
  const relation = assembleRelation(after, { groups, principals, grantsOf, children }, roles, roleNames);
  const roleChanges = rolesChanged(live, relation, changed);
  if (roleChanges.size > 0)
    for (const [id, grants] of live.grantsOf) if (grants.some((g) => roleChanges.has(g.role))) touched.add(id);
  addTouched(relation, changed, roleChanges, reached, touched);
  return { relation, touched };
}

/** Whether grant record `key` of `state` gives its role to the identity record `identity`. */
function namesIdentity(state: AccessStateRecords, key: string, identity: string): boolean {
  const r = state.records.get(key);
  const part = r && accessPartOf(r.kind);
  return (
    part?.is === 'grant' &&
    part.to === 'identity' &&
    part.principalField !== undefined &&
    r!.fields[part.principalField] === identity
  );
}

/** Where records stand in the state a plan leads to: live's in live's order, then what the steps added, in turn. */
interface Order {
  /** The first rank past live's records: what the steps added ranks from here. */
  last: number;
  /** The rank of a record the steps added or whose rank was learnt. */
  of(key: string): number;
  /** Learns the ranks of some of live's records (one pass over live's records for all of them). */
  learn(keys: Iterable<string>): void;
  /** A reader of the ranks of live's records asked in their order: one pass over live's records for all. */
  cursor(): (key: string) => number;
}

function orderOf(live: AccessStateRecords, appended: ReadonlyMap<string, number>): Order {
  const known = new Map<string, number>();
  const wanted = new Set<string>();
  const of = (key: string): number => {
    const end = appended.get(key);
    if (end !== undefined) return live.records.size + end;
    if (wanted.size > 0) {
      let rank = 0;
      for (const k of live.records.keys()) {
        if (wanted.has(k)) known.set(k, rank);
        rank++;
      }
      wanted.clear();
    }
    const rank = known.get(key);
    if (rank === undefined) throw new Error(`internal: no rank learnt for record ${key}`);
    return rank;
  };
  return {
    last: live.records.size,
    of,
    learn(keys) {
      for (const key of keys) if (!appended.has(key) && !known.has(key)) wanted.add(key);
    },
    cursor() {
      let keys = live.records.keys();
      let rank = -1;
      return (key) => {
        const end = appended.get(key);
        if (end !== undefined) return live.records.size + end;
        // Forward from the last asked; from the start again when asked out of order.
        for (let restarted = false; ; ) {
          const next = keys.next();
          if (next.done) {
            if (restarted) throw new Error(`internal: record ${key} is not live's`);
            [keys, rank, restarted] = [live.records.keys(), -1, true];
            continue;
          }
          rank++;
          if (next.value === key) return rank;
        }
      };
    },
  };
}

/**
 * A map by record key of one part of access (groups, roles), live's with the changed records
 * written over it in the state's order: the same map when none of them is of that part.
 */
function keyedAfter<V>(
  base: ReadonlyMap<string, V>,
  changed: ReadonlySet<string>,
  order: Order,
  after: AccessStateRecords,
  is: 'scope' | 'capabilities',
  entryOf: (r: AccessRecord) => V,
): Map<string, V> {
  const mine = [...changed].filter((key) => {
    const r = after.records.get(key);
    return (r !== undefined && accessPartOf(r.kind)?.is === is) || base.has(key);
  });
  if (mine.length === 0) return base as Map<string, V>;
  const adds: [string, V, number][] = [];
  order.learn(mine);
  for (const key of mine) {
    const r = after.records.get(key);
    if (r && accessPartOf(r.kind)?.is === is) adds.push([key, entryOf(r), order.of(key)]);
  }
  const rankOf = order.cursor();
  return mergeInOrder(base, new Set(mine), adds, (key) => rankOf(key), order.last);
}

/**
 * `base` without `drop`, with `adds` (each with its rank) put where its rank places it among
 * `base`'s entries, which are in the order of their ranks already (`rank`, asked in that order);
 * a rank from `last` on follows them all (what the steps added), and needs none of theirs.
 */
function mergeInOrder<V>(
  base: ReadonlyMap<string, V>,
  drop: ReadonlySet<string>,
  adds: readonly [string, V, number][],
  rank: (key: string, value: V) => number,
  last: number,
): Map<string, V> {
  const sorted = [...adds].sort((a, b) => a[2] - b[2]);
  const out = new Map<string, V>();
  let next = 0;
  for (const [key, value] of base) {
    if (drop.has(key)) continue;
    if (next < sorted.length && sorted[next]![2] < last) {
      const at = rank(key, value);
      while (next < sorted.length && sorted[next]![2] < at) out.set(sorted[next]![0], sorted[next++]![1]);
    }
    out.set(key, value);
  }
  for (; next < sorted.length; next++) out.set(sorted[next]![0], sorted[next]![1]);
  return out;
}
