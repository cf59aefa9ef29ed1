/**
 * The relations a plan's access changes are read from, each holding only the principals the plan
 * can change and those that may cover them (issue 61): live's relation of the records of their
 * buckets (state-index.ts), of the records every relation reads whole (groups, invites, mappings,
 * providers), of the roles their grants give and of the records the steps write, and the planned
 * relation built from it (planned-relation.ts). Every principal such a relation holds, it holds
 * whole — all its identities and grants, in the order of the whole relation —, so what
 * `diffRelations` reads of them is what it reads of the whole relations: the same access changes,
 * for relations that grow with what the plan touches (finding their records still reads live
 * once over, without making anything of what it passes). An identity the plan changes but not as a
 * principal touches no one by itself. undefined: a plan this does not decide (the whole relations
 * then): live with two records of one key, a create whose parent is named by an address no
 * earlier step makes, a principal any claimMatch identity may cover. Pure.
 */
import { type AccessRecord, type AccessStateRecords, accessPartOf, stepsOverState } from './state.js';
import type { StateIndex } from './state-index.js';
import { bucketOf, bucketsThatMayHold } from './covering.js';
import {
  type AccessRelation,
  capabilitiesOfRecord,
  identityPrincipal,
  relationOf,
  relationshipOfRecord,
  sameCapabilities,
} from './relation.js';
import { plannedRelation } from './planned-relation.js';
import type { PlanStep, UidReference } from '../model/plan.js';

export interface TouchedRelations {
  live: AccessRelation;
  planned: AccessRelation;
  /** The principals whose access can differ between the two. */
  touched: ReadonlySet<string>;
}

export function touchedRelations(
  index: StateIndex,
  steps: readonly PlanStep[],
  now: number | undefined,
): TouchedRelations | undefined {
  const accessSteps = steps.filter((s) => accessPartOf(s.kind) !== undefined);
  // The records the steps write (of live).
  const written = new Set<number>();
  const made = new Set<string>();
  for (const step of accessSteps) {
    const rank = index.asked.get(stepKey(step));
    if (rank !== undefined) written.add(rank);
    // A parent named by address is looked up among all of live's records (state.ts): not decided here.
    if (step.action === 'create' && step.parentUid === undefined && step.parent && !made.has(step.parent))
      return undefined;
    if (step.action !== 'delete') made.add(step.address);
  }
  // What the steps make of them (a step reads only the record it writes, and a parent made before it).
  const over = stepsOverState(stateOfRanks(index, written), accessSteps);

  // The buckets of every principal a changed record can reach, before and after.
  const buckets = new Set<string>();
  let everyClaimMatch = false;
  const touch = (relationship: Relationship, key: string): void => {
    const held = bucketsThatMayHold(relationship, key);
    if (held === undefined) everyClaimMatch = true;
    else for (const b of held) buckets.add(b);
    buckets.add(bucketOf(relationship, key));
  };
  /** The identity keys the changed grants name (or grants of a role whose capabilities change). */
  const named = new Set<string>();
  const nameOf = (r: AccessRecord): void => {
    const part = accessPartOf(r.kind);
    const key = part?.is === 'grant' && part.to === 'identity' ? r.fields[part.principalField!] : undefined;
    if (typeof key === 'string') named.add(key);
  };
  const changedRoles = new Set<string>();
  // Identities the steps change but not as principals (a description, a name): of these below.
  const unmoved = new Map<string, AccessRecord>();
  for (const key of over.changed) {
    const rank = index.asked.get(key);
    const was = rank === undefined ? undefined : index.record(rank);
    const now = over.state.records.get(key);
    if (was !== undefined && now !== undefined && accessPartOf(was.kind)?.is === 'principal') {
      if (samePrincipal(key, was, now)) {
        unmoved.set(key, was);
        continue;
      }
    }
    for (const r of [now, was]) {
      if (r === undefined) continue;
      if (accessPartOf(r.kind)?.is === 'principal') touch(relationshipOfRecord(r), key);
      else nameOf(r);
    }
    if (was !== undefined && accessPartOf(was.kind)?.is === 'capabilities') {
      const after = now ? capabilitiesOfRecord(now) : (index.builtinCapabilities.get(key) ?? []);
      const before = capabilitiesOfRecord(was);
      if (!sameCapabilities(before, after)) changedRoles.add(key);
    }
  }
  // A role whose capabilities change touches every principal it is granted to.
  if (changedRoles.size > 0)
    for (const rank of index.identityGrants) {
      const r = index.record(rank);
      const part = accessPartOf(r.kind);
      if (part?.is === 'grant' && changedRoles.has(r.fields[part.role] as string)) nameOf(r);
    }
  // The principal a grant names an identity as, live and after the steps.
  const namedRanks = index.identitiesOf(named);
  for (const key of named) {
    const rank = namedRanks.get(key);
    const live = rank === undefined ? undefined : index.record(rank);
    touch(relationshipOfRecord(live), key);
    touch(relationshipOfRecord(over.changed.has(key) ? over.state.records.get(key) : live), key);
  }
  // An identity that stays the principal it was changes no one's access by itself: unless its
  // principal is touched otherwise (its step is then among the causes), its steps are left out —
  // but not when a group is made or removed (then a principal touched by any change of its own
  // records is held to what it holds on the groups that are not there on one side).
  const regrouped = accessSteps.some((s) => s.action !== 'update' && accessPartOf(s.kind)?.is === 'scope');
  const left = new Set<string>();
  if (regrouped) for (const [key, was] of unmoved) touch(relationshipOfRecord(was), key);
  else
    for (const [key, was] of unmoved)
      if (!buckets.has(bucketOf(relationshipOfRecord(was), key))) {
        left.add(key);
        written.delete(index.asked.get(key)!);
      }
  if (everyClaimMatch) return undefined;
  const kept = left.size === 0 ? accessSteps : accessSteps.filter((s) => s.action !== 'update' || !left.has(s.uid));

  // The records of those buckets: their identities and the grants that name them (or a key no
  // identity has), with what every relation reads whole and what the steps write.
  const ranks = new Set(written);
  for (const rank of index.always) ranks.add(rank);
  const identities = new Map<string, string>();
  const keys = new Set<string>();
  for (const rank of index.identitiesIn(buckets)) {
    const r = index.record(rank);
    ranks.add(rank);
    identities.set(r.key, r.address);
    keys.add(r.key);
  }
  for (const bucket of buckets) if (bucket.startsWith('identity:')) keys.add(bucket.slice('identity:'.length));
  for (const rank of index.grantsNaming(keys, identities)) ranks.add(rank);
  // The roles their grants give, live and after the steps (those the steps write are written already).
  const given = new Set<string>();
  const give = (r: AccessRecord): void => {
    const part = accessPartOf(r.kind);
    if (part?.is === 'grant' && typeof r.fields[part.role] === 'string') given.add(r.fields[part.role] as string);
  };
  for (const rank of ranks) give(index.record(rank));
  for (const r of over.state.records.values()) give(r);
  for (const rank of index.roles) if (given.has(index.keyAt(rank))) ranks.add(rank);
  const state = stateOfRanks(index, ranks);
  // Two records of one key: live's relation keeps the first place and the last record (state.ts); not decided here.
  if (!index.uniqueAmong(new Set([...state.records.keys(), ...left]))) return undefined;
  const live = relationOf(state, now);
  const planned = plannedRelation(live, kept, now);
  return { live, planned: planned.relation, touched: planned.touched };
}

type Relationship = { field: string; value: unknown } | undefined;

/**
 * Whether an identity is the principal it was (`identityPrincipal`'s ids equal). Its id is read of
 * its relationship alone: one the steps left as it was (the same field, the very same value: a
 * description or a name changed) is not made into an id twice.
 */
function samePrincipal(key: string, was: AccessRecord, now: AccessRecord): boolean {
  const before = relationshipOfRecord(was);
  const after = relationshipOfRecord(now);
  if (before !== undefined && after !== undefined && before.field === after.field && before.value === after.value)
    return true;
  return identityPrincipal(key, was).id === identityPrincipal(key, now).id;
}

/** The key of the record a step writes (what `asked` of the index of live must hold: see `keysOfSteps`). */
function stepKey(step: PlanStep): string {
  return step.action === 'create' ? `new:${step.address}` : step.uid;
}

/** The keys of the records `steps` write, each with the address its step names: the ones to ask the index of live for. */
export function keysOfSteps(steps: readonly PlanStep[]): Map<string, string> {
  const keys = new Map<string, string>();
  for (const step of steps) if (accessPartOf(step.kind) !== undefined) keys.set(stepKey(step), step.address);
  return keys;
}

/** The keys the steps' references name (the uids a step sends, of what exists), each with the address it names. */
export function referencesOfSteps(steps: readonly PlanStep[]): Map<string, string> {
  const named = new Map<string, string>();
  for (const step of steps) {
    if (step.action === 'delete' || accessPartOf(step.kind) === undefined || step.refs === undefined) continue;
    for (const ref of Object.values(step.refs as Record<string, UidReference | undefined>))
      if (ref?.uid !== undefined && !named.has(ref.uid)) named.set(ref.uid, ref.address);
  }
  return named;
}

/** The state of the records at some ranks, in their order. */
function stateOfRanks(index: StateIndex, ranks: ReadonlySet<number>): AccessStateRecords {
  const records = new Map<string, AccessRecord>();
  for (const rank of [...ranks].sort((a, b) => a - b)) {
    const r = index.record(rank);
    records.set(r.key, r);
  }
  return {
    records,
    builtinCapabilities: index.builtinCapabilities,
    builtinNames: index.builtinNames,
    removed: new Map(),
  };
}
