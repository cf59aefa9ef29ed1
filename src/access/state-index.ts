/**
 * A state's records, found by who they can concern without making a relation of them (issue 61):
 * the records every relation reads whole (groups, and the grants to e-mails, codes, external
 * groups and sign-ins, which are few), the roles, the identities of some *buckets* — the identities whose
 * relationships may be one principal or may accept another's every token (covering.ts
 * `bucketOf`) —, and the grants that name some identities. A relation of the records of some
 * buckets holds each of their principals whole (touched-relations.ts). A question is answered at
 * the addresses the plan's steps name where the planner's index of live knows them (`KnownLive`),
 * else by one pass over the identities or the grants to them that only reads; live's records are
 * made only for what is asked, and a binding's identity path is resolved only when it may name
 * one asked for.
 */
import { accessPartOf, type AccessRecord, type AccessStateRecords, liveRecordReader } from './state.js';
import { relationshipOfRecord } from './relation.js';
import { inBuckets } from './covering.js';
import type { AccessPart } from '../model/kind-descriptor.js';
import type { LiveResource, LiveState } from '../model/resources.js';
import { type Kind, KINDS } from '../model/kinds.js';

type Relationship = { field: string; value: unknown } | undefined;

export interface StateIndex {
  builtinCapabilities: Map<string, readonly string[]>;
  builtinNames: Map<string, string>;
  /** The rank (place in the state's order) of each record asked for when indexing, by key, when the state holds it. */
  asked: Map<string, number>;
  /** The record at a rank (made when first asked for). */
  record(rank: number): AccessRecord;
  /** Ranks of the records every relation reads whole, in order (roles aside). */
  always: readonly number[];
  /** Ranks of the roles, in order: a relation needs those its grants give. */
  roles: readonly number[];
  /** The key of the record at a rank. */
  keyAt(rank: number): string;
  /** The ranks of the identities among `keys`, by key (the last in the state's order). */
  identitiesOf(keys: ReadonlySet<string>): Map<string, number>;
  /** Ranks of the identities in `buckets`. */
  identitiesIn(buckets: ReadonlySet<string>): number[];
  /** Ranks of the grants to an identity that name one of `keys` (identities among them with their `addresses`). */
  grantsNaming(keys: ReadonlySet<string>, addresses: ReadonlyMap<string, string>): number[];
  /** Ranks of every grant to an identity. */
  identityGrants: readonly number[];
  /**
   * Whether no key of `keys` is held by two records — nor by any record, a key the index was asked
   * for but did not look up (a create's `new:` key, which live holds only when a uid is spelled so).
   */
  uniqueAmong(keys: ReadonlySet<string>): boolean;
}

/** The keys an index is asked for (those of the records a plan's steps write), each with the address its step names. */
export type Asking = ReadonlyMap<string, string>;

/** How a state's records read: its keys, and of an identity its relationship, of a grant to one what it names. */
interface Reader {
  keyAt(rank: number): string;
  relationshipAt(rank: number): Relationship;
  /** The path a grant names its identity by (resolved by `keyOfPath`); undefined: it names a key, `namedAt`. */
  pathAt(rank: number): string | undefined;
  namedAt(rank: number): unknown;
  keyOfPath(path: string): string | undefined;
}

/** The ranks of a state's records, by what they are to access. */
interface Ranks {
  always: readonly number[];
  roles: readonly number[];
  identities: readonly number[];
  identityGrants: readonly number[];
  /** The ranks of every record, in lists (of no order among them). */
  access: readonly (readonly number[])[];
}

/** Where a record of `part` goes among the `Ranks` lists. */
function listOf(part: AccessPart): 'always' | 'roles' | 'identities' | 'identityGrants' {
  if (part.is === 'principal') return 'identities';
  if (part.is === 'grant' && part.to === 'identity') return 'identityGrants';
  return part.is === 'capabilities' ? 'roles' : 'always';
}

/**
 * What an index finds without a pass: the rank of an identity by key (undefined: a pass must tell),
 * and the keys it did not look up (held by no record, or the index decides nothing).
 */
interface Found {
  identityRank(key: string): number | undefined;
  unlooked: Set<string>;
}

function indexOfRanks(
  ranks: Ranks,
  asked: Map<string, number>,
  reader: Reader,
  record: (rank: number) => AccessRecord,
  builtins: Pick<StateIndex, 'builtinCapabilities' | 'builtinNames'>,
  found?: Found,
): StateIndex {
  const { identities, identityGrants } = ranks;
  return {
    ...builtins,
    asked,
    record,
    always: ranks.always,
    roles: ranks.roles,
    keyAt: reader.keyAt,
    identityGrants,
    identitiesOf(keys) {
      const out = new Map<string, number>();
      const without = found === undefined ? undefined : foundWithoutPass(keys, found);
      if (without !== undefined) return without;
      if (keys.size > 0)
        for (const rank of identities) {
          const key = reader.keyAt(rank);
          if (keys.has(key)) out.set(key, rank);
        }
      return out;
    },
    identitiesIn(buckets) {
      const out: number[] = [];
      const held = inBuckets(buckets);
      for (const rank of identities) if (held(reader.relationshipAt(rank), reader.keyAt(rank))) out.push(rank);
      return out;
    },
    grantsNaming(keys, addresses) {
      // The paths the identities asked for are at: a grant naming one by path names it when the path resolves to it.
      const paths = new Set<string>();
      for (const address of addresses.values())
        if (address.startsWith('identity:')) paths.add(address.slice('identity:'.length));
      const resolved = new Map<string, boolean>();
      const out: number[] = [];
      for (const rank of identityGrants) {
        const path = reader.pathAt(rank);
        if (path === undefined) {
          const named = reader.namedAt(rank);
          if (typeof named === 'string' && keys.has(named)) out.push(rank);
          continue;
        }
        if (!paths.has(path)) continue;
        let names = resolved.get(path);
        if (names === undefined) {
          const key = reader.keyOfPath(path);
          resolved.set(path, (names = key !== undefined && keys.has(key)));
        }
        if (names) out.push(rank);
      }
      return out;
    },
    uniqueAmong(keys) {
      const seen = new Set<string>();
      const unlooked = found?.unlooked;
      for (const list of ranks.access)
        for (const rank of list) {
          const key = reader.keyAt(rank);
          if (unlooked !== undefined && unlooked.size > 0 && unlooked.has(key)) return false;
          if (!keys.has(key)) continue;
          if (seen.has(key)) return false;
          seen.add(key);
        }
      return true;
    },
  };
}

/**
 * The ranks of the identities of `keys` found without a pass (a create's key is held by none: left
 * unlooked); undefined when a key needs one.
 */
function foundWithoutPass(keys: ReadonlySet<string>, found: Found): Map<string, number> | undefined {
  const out = new Map<string, number>();
  const created: string[] = [];
  for (const key of keys) {
    if (key.startsWith(NEW)) {
      created.push(key);
      continue;
    }
    const rank = found.identityRank(key);
    if (rank === undefined) return undefined;
    out.set(key, rank);
  }
  for (const key of created) found.unlooked.add(key);
  return out;
}

/** How the key of a record a plan creates starts (state.ts `newKey`). */
const NEW = 'new:';

/**
 * One pass over a state's `size` records: the rank of each that is something to access, in the
 * list of what it is and in all of them, and of each key asked for (the last in the state's order).
 */
function ranksInOnePass(
  size: number,
  partAt: (rank: number) => AccessPart | undefined,
  keyAt: (rank: number) => string,
  asking: Asking,
): { lists: Record<ReturnType<typeof listOf>, number[]>; access: number[]; asked: Map<string, number> } {
  const lists = {
    always: [] as number[],
    roles: [] as number[],
    identities: [] as number[],
    identityGrants: [] as number[],
  };
  const access: number[] = [];
  const asked = new Map<string, number>();
  for (let rank = 0; rank < size; rank++) {
    const part = partAt(rank);
    if (!part) continue;
    access.push(rank);
    lists[listOf(part)].push(rank);
    const key = keyAt(rank);
    if (asking.has(key)) asked.set(key, rank);
  }
  return { lists, access, asked };
}

/** The index of a state whose records are made already (`asking`: the keys whose ranks `asked` holds). */
export function indexOfState(state: AccessStateRecords, asking: Asking): StateIndex {
  const records = [...state.records.values()];
  const parts = records.map((r) => accessPartOf(r.kind));
  const { lists, access, asked } = ranksInOnePass(
    records.length,
    (rank) => parts[rank],
    (rank) => records[rank]!.key,
    asking,
  );
  const reader: Reader = {
    keyAt: (rank) => records[rank]!.key,
    relationshipAt: (rank) => relationshipOfRecord(records[rank]),
    pathAt: () => undefined,
    namedAt(rank) {
      const part = parts[rank];
      return part?.is === 'grant' && part.principalField !== undefined
        ? records[rank]!.fields[part.principalField]
        : undefined;
    },
    keyOfPath: () => undefined,
  };
  return indexOfRanks({ ...lists, access: [access] }, asked, reader, (rank) => records[rank]!, state);
}

/**
 * What a caller that has indexed live already knows of it (the planner's index, src/plan/live-index.ts),
 * of the very resources of the live state it is given with: the resource at an address, and the ranks
 * of each kind's resources in live's order.
 */
export interface KnownLive {
  at(address: string): { uid: string } | undefined;
  /** Address → rank (ambiguous addresses left out). */
  rankOf: ReadonlyMap<string, number>;
  /** The ranks of the resources of each of `kinds`, in live's order. */
  ranksOfKinds(kinds: readonly Kind[]): ReadonlyMap<Kind, readonly number[]>;
}

/** The kinds that are something to access. */
const ACCESS_KINDS: readonly Kind[] = KINDS.filter((kind) => accessPartOf(kind) !== undefined);

/** The ranks of some kinds, in live's order. */
function ranksOfKinds(lists: (readonly number[])[]): readonly number[] {
  if (lists.length === 1) return lists[0]!;
  return lists.flat().sort((a, b) => a - b);
}

/**
 * The index of live as `stateOfLive` reads it (the same records, in the same order), making the
 * record of none until asked (`asking`: the keys whose ranks `asked` holds). Its records are found
 * by kind, of `known`'s ranks when the caller has them, and an identity a step names at the
 * address its reference gives (`named`: key → address).
 */
export function indexOfLive(
  live: LiveState,
  asking: Asking,
  known?: KnownLive,
  named: ReadonlyMap<string, string> = new Map(),
): StateIndex {
  const reader = liveRecordReader(live, known?.at);
  const resources: readonly LiveResource[] = live.resources;
  const partAt = (rank: number): AccessPart | undefined => accessPartOf(resources[rank]!.kind);
  const byList: Record<ReturnType<typeof listOf>, (readonly number[])[]> = {
    always: [],
    roles: [],
    identities: [],
    identityGrants: [],
  };
  const accessRanks: (readonly number[])[] = [];
  /** The rank of each key asked for that live holds (the last in its order), by a pass when there is one. */
  let asked: Map<string, number> | undefined;
  if (known !== undefined)
    for (const [kind, ranks] of known.ranksOfKinds(ACCESS_KINDS)) {
      const part = accessPartOf(kind);
      if (!part) continue;
      accessRanks.push(ranks);
      byList[listOf(part)].push(ranks);
    }
  else {
    // No caller's index: one pass over live, each record's rank in the list of what it is.
    const pass = ranksInOnePass(resources.length, partAt, (rank) => resources[rank]!.uid, asking);
    const { lists, access } = pass;
    asked = pass.asked;
    accessRanks.push(access);
    for (const list of ['always', 'roles', 'identities', 'identityGrants'] as const) byList[list].push(lists[list]);
  }
  // The record a step writes, at the address its step names (a create's is new: left unlooked); a
  // key found elsewhere, or not at all, is looked for in a pass over every record.
  const rankOfKey = (key: string, address: string | undefined): number | undefined => {
    const rank = address === undefined ? undefined : known?.rankOf.get(address);
    return rank !== undefined && resources[rank]!.uid === key && partAt(rank) !== undefined ? rank : undefined;
  };
  const unlooked = new Set<string>();
  if (known !== undefined) {
    asked = new Map();
    for (const [key, address] of asking) {
      if (key.startsWith(NEW)) unlooked.add(key);
      else {
        const rank = rankOfKey(key, address);
        if (rank === undefined) {
          asked = undefined;
          unlooked.clear();
          break;
        }
        asked.set(key, rank);
      }
    }
  }
  if (asked === undefined) {
    asked = new Map();
    // The last of live's order holding a key asked for (as a pass in that order keeps it).
    for (const ranks of accessRanks)
      for (const rank of ranks) {
        const key = resources[rank]!.uid;
        if (asking.has(key) && !(asked.get(key)! > rank)) asked.set(key, rank);
      }
  }
  const made = new Map<number, AccessRecord>();
  const record = (rank: number): AccessRecord => {
    let r = made.get(rank);
    if (r === undefined) made.set(rank, (r = reader.record(resources[rank]!, partAt(rank)!)));
    return r;
  };
  const principalField = (part: AccessPart | undefined): string | undefined =>
    part?.is === 'grant' && part.to === 'identity' ? part.principalField : undefined;
  const liveReader: Reader = {
    keyAt: (rank) => resources[rank]!.uid,
    relationshipAt(rank) {
      const part = partAt(rank);
      return part?.is === 'principal' ? reader.relationship(resources[rank]!, part) : undefined;
    },
    pathAt(rank) {
      const part = partAt(rank);
      const field = principalField(part);
      return field === undefined ? undefined : reader.identityPath(resources[rank]!, part!, field);
    },
    namedAt(rank) {
      const part = partAt(rank);
      const field = principalField(part);
      return field === undefined ? undefined : reader.field(resources[rank]!, part!, field);
    },
    keyOfPath: (path) => reader.identityKey({ path }),
  };
  const ranks: Ranks = {
    always: ranksOfKinds(byList.always),
    roles: ranksOfKinds(byList.roles),
    identities: ranksOfKinds(byList.identities),
    identityGrants: ranksOfKinds(byList.identityGrants),
    access: accessRanks,
  };
  const found: Found | undefined =
    known === undefined
      ? undefined
      : {
          unlooked,
          identityRank(key) {
            const rank = rankOfKey(key, reader.identityAddressOf(key) ?? named.get(key));
            return rank !== undefined && partAt(rank)!.is === 'principal' ? rank : undefined;
          },
        };
  return indexOfRanks(ranks, asked, liveReader, record, reader, found);
}
