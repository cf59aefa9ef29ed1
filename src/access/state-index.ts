/**
 * A state's records indexed by who they can concern, read without making a relation of them
 * (issue 61): the records every relation needs whole (groups, roles, and the grants to e-mails,
 * codes, external groups and sign-ins, which are few), and the identities and the bindings to them
 * by *bucket* — the identities whose relationships may be one principal or may accept another's
 * every token (covering.ts `bucketOf`). A relation of the records of some buckets holds each of
 * their principals whole (touched-relations.ts). Live's records are made only when asked for, and
 * a binding's identity path is resolved only when its identity is.
 */
import { accessPartOf, type AccessRecord, type AccessStateRecords, liveRecordReader } from './state.js';
import { relationshipOf } from './relationships.js';
import { bucketOf } from './covering.js';
import type { AccessPart } from '../model/kind-descriptor.js';
import type { LiveResource, LiveState } from '../model/resources.js';

export interface StateIndex {
  builtinCapabilities: Map<string, readonly string[]>;
  builtinNames: Map<string, string>;
  /** Whether no two records share a key (the index decides nothing otherwise). */
  unique: boolean;
  /** The rank (place in the state's order) of each record asked for by key when indexing that the state holds. */
  asked: Map<string, number>;
  /** The rank of each identity, by key. */
  identityRank: Map<string, number>;
  /** The record at a rank (made when first asked for). */
  record(rank: number): AccessRecord;
  /** Ranks of the records every relation reads whole, in order. */
  always: number[];
  /** Ranks of the identities in each bucket, in order. */
  identitiesIn: Map<string, number[]>;
  /** Ranks of every grant to an identity (the ones `grantsNaming` finds), unordered. */
  identityGrants: number[];
  /** Ranks of the grants to an identity that name `key`, in order (`address`: of the identity `key` is, when it is one). */
  grantsNaming(key: string, address: string | undefined): number[];
}

interface Filing {
  index: StateIndex;
  seen: Set<string>;
  asking: ReadonlySet<string>;
  /** Grants to an identity by the key they name, and (live) by the path they name it by. */
  byKey: Map<string, number[]>;
  byPath: Map<string, number[]>;
}

function filing(
  builtinCapabilities: Map<string, readonly string[]>,
  builtinNames: Map<string, string>,
  record: (rank: number) => AccessRecord,
  asking: ReadonlySet<string>,
  pathKey: (path: string) => string | undefined,
): Filing {
  const byKey = new Map<string, number[]>();
  const byPath = new Map<string, number[]>();
  const index: StateIndex = {
    builtinCapabilities,
    builtinNames,
    unique: true,
    asked: new Map(),
    identityRank: new Map(),
    record,
    always: [],
    identitiesIn: new Map(),
    identityGrants: [],
    grantsNaming(key, address) {
      const direct = byKey.get(key) ?? [];
      const path = address?.startsWith('identity:') ? address.slice('identity:'.length) : undefined;
      const byItsPath = path === undefined ? undefined : byPath.get(path);
      if (byItsPath === undefined || pathKey(path!) !== key) return direct;
      return [...direct, ...byItsPath].sort((a, b) => a - b);
    },
  };
  return { index, seen: new Set(), asking, byKey, byPath };
}

const push = (map: Map<string, number[]>, key: string, rank: number): void => {
  const list = map.get(key);
  if (list) list.push(rank);
  else map.set(key, [rank]);
};

/**
 * Files record `rank` (key `key`, its part `part`): an identity by its relationship, a grant to
 * one by the key it names (or the path it names it by), anything else among those read whole.
 */
function file(
  f: Filing,
  rank: number,
  key: string,
  part: AccessPart,
  relationship: { field: string; value: unknown } | undefined,
  named: unknown,
  path: string | undefined,
): void {
  const { index } = f;
  const size = f.seen.size;
  if (f.seen.add(key).size === size) index.unique = false;
  if (f.asking.has(key)) index.asked.set(key, rank);
  if (part.is === 'principal') {
    index.identityRank.set(key, rank);
    push(index.identitiesIn, bucketOf(relationship, key), rank);
  } else if (path !== undefined) {
    push(f.byPath, path, rank);
    index.identityGrants.push(rank);
  } else if (part.is === 'grant' && part.to === 'identity' && typeof named === 'string') {
    push(f.byKey, named, rank);
    index.identityGrants.push(rank);
  } else index.always.push(rank);
}

/** The index of a state whose records are made already (`asking`: the keys whose ranks `asked` holds). */
export function indexOfState(state: AccessStateRecords, asking: ReadonlySet<string>): StateIndex {
  const records = [...state.records.values()];
  const f = filing(
    state.builtinCapabilities,
    state.builtinNames,
    (rank) => records[rank]!,
    asking,
    () => undefined,
  );
  for (let rank = 0; rank < records.length; rank++) {
    const r = records[rank]!;
    const part = accessPartOf(r.kind);
    if (!part) continue;
    const relationship = part.is === 'principal' ? relationshipOf(r.fields, part.relationship) : undefined;
    const named = part.is === 'grant' && part.principalField !== undefined ? r.fields[part.principalField] : undefined;
    file(f, rank, r.key, part, relationship, named, undefined);
  }
  return f.index;
}

/**
 * The index of live as `stateOfLive` reads it (the same records, in the same order), making the
 * record of none until asked (`asking`: the keys whose ranks `asked` holds).
 */
export function indexOfLive(
  live: LiveState,
  asking: ReadonlySet<string>,
  byAddress?: (address: string) => { uid: string } | undefined,
): StateIndex {
  const reader = liveRecordReader(live, byAddress);
  const resources: LiveResource[] = [];
  const parts: AccessPart[] = [];
  const made = new Map<number, AccessRecord>();
  const record = (rank: number): AccessRecord => {
    let r = made.get(rank);
    if (r === undefined) made.set(rank, (r = reader.record(resources[rank]!, parts[rank]!)));
    return r;
  };
  const f = filing(reader.builtinCapabilities, reader.builtinNames, record, asking, (path) =>
    reader.identityKey({ path }),
  );
  const all = live.resources;
  for (let i = 0; i < all.length; i++) {
    const r = all[i]!;
    const part = accessPartOf(r.kind);
    if (!part) continue;
    const rank = resources.length;
    resources.push(r);
    parts.push(part);
    // Of an identity its relationship, of a grant to one what it names: read alone, no record made.
    const relationship = part.is === 'principal' ? reader.relationship(r, part) : undefined;
    const toIdentity = part.is === 'grant' && part.to === 'identity' ? part.principalField : undefined;
    const path = toIdentity === undefined ? undefined : reader.identityPath(r, part, toIdentity);
    const named = toIdentity === undefined || path !== undefined ? undefined : reader.field(r, part, toIdentity);
    file(f, rank, r.uid, part, relationship, named, path);
  }
  return f.index;
}
