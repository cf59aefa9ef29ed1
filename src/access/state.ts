/**
 * The states effective access is computed from (DESIGN.md §4 "Effective access"): the org as it
 * is live, and the org as a plan leaves it. A state is a list of records, one per resource a kind
 * says something about to access (its descriptor's `access`), each with its API fields and every
 * reference as a key: the uid of what exists, `new:<address>` of what a plan creates.
 *
 * The state a plan leads to is live with each step's result written over it, the same for every
 * kind, as the model says a step acts (model/step-effect.ts: a create adds its record, an update
 * writes the fields its mask names, a delete removes it): what a step *means* to access is never
 * read here, only in relation.ts, from the state.
 */
import type { PlanStep, UidReference } from '../model/plan.js';
import type { LiveResource, LiveState } from '../model/resources.js';
import { descriptorOf, type Kind } from '../model/kinds.js';
import type { AccessPart, FieldSpec } from '../model/kind-descriptor.js';
import type { IdentityKey, RoleKey } from '../model/address.js';
import { fieldsAfterStep, writtenPaths } from '../model/step-effect.js';

/** One resource of a state, as access reads it. */
export interface AccessRecord {
  kind: Kind;
  /** Its uid, or `new:<address>` when a plan creates it. */
  key: string;
  address: string;
  /** The key of the group (or provider) it lies under; null for the org. */
  parent: string | null;
  /** API fields; a reference holds the key of what it names. */
  fields: Record<string, unknown>;
  /** The step that made, changed or removed it (the states a plan leads to only). */
  step?: string;
}

export interface AccessStateRecords {
  records: Map<string, AccessRecord>;
  /** Capabilities of built-in roles, by their key (uid). */
  builtinCapabilities: Map<string, readonly string[]>;
  /** Built-in role keys → names. */
  builtinNames: Map<string, string>;
  /** Records a plan removed, by key, with the step that removed them (for "which steps cause it"). */
  removed: Map<string, AccessRecord>;
}

const newKey = (address: string): string => `new:${address}`;

/** What a kind is to access; undefined when nothing. */
export function accessPartOf(kind: Kind): AccessPart | undefined {
  return descriptorOf(kind).access;
}

const apiName = (spec: FieldSpec): string => spec.apiName ?? spec.name;

/**
 * Live as a state. `fields` of a live resource are the model's: a reference is a key (a path, a
 * uid, a built-in's name), turned here into the key of what it names; the rest by API name.
 */
export function stateOfLive(
  live: LiveState,
  byAddressGiven?: (address: string) => { uid: string } | undefined,
): AccessStateRecords {
  const reader = liveRecordReader(live, byAddressGiven);
  const records = new Map<string, AccessRecord>();
  for (const r of live.resources) {
    const part = accessPartOf(r.kind);
    if (part) records.set(r.uid, reader.record(r, part));
  }
  return {
    records,
    builtinCapabilities: reader.builtinCapabilities,
    builtinNames: reader.builtinNames,
    removed: new Map(),
  };
}

/** How live resources read as records of a state: one at a time, as `stateOfLive` reads them all (state-index.ts reads a few). */
export interface LiveRecordReader {
  builtinCapabilities: Map<string, readonly string[]>;
  builtinNames: Map<string, string>;
  /** The record of a live resource whose kind has `part` to access. */
  record(r: LiveResource, part: AccessPart): AccessRecord;
  /**
   * What `record(r, part).fields[field]` holds, without making the record (state-index.ts reads
   * the identity a binding names of every binding, and makes the records of only a few).
   */
  field(r: LiveResource, part: AccessPart, field: string): unknown;
  /**
   * The path of the identity a grant names in `field`, when it names one by path (what
   * `record(r, part).fields[field]` holds is then `identityKey({ path })`); undefined: it does not.
   */
  identityPath(r: LiveResource, part: AccessPart, field: string): string | undefined;
  /** An identity's relationship, as `relationshipOf` reads it of `record(r, part).fields`. */
  relationship(
    r: LiveResource,
    part: Extract<AccessPart, { is: 'principal' }>,
  ): { field: string; value: unknown } | undefined;
  /** The key an identity reference names (undefined: a path live does not hold). */
  identityKey(k: IdentityKey): string | undefined;
  /** The address of the identity a path `identityKey` resolved names (undefined: no path resolved to `key`). */
  identityAddressOf(key: string): string | undefined;
}

export function liveRecordReader(
  live: LiveState,
  byAddressGiven?: (address: string) => { uid: string } | undefined,
): LiveRecordReader {
  const builtinCapabilities = new Map<string, readonly string[]>();
  const builtinNames = new Map<string, string>();
  for (const [name, uid] of Object.entries(live.builtinRoles)) {
    builtinCapabilities.set(uid, live.builtinRoleCapabilities?.[name] ?? []);
    builtinNames.set(uid, name);
  }
  // Paths to uids through the caller's index of live addresses when it has one (the planner's).
  let uidAt: (address: string) => string | undefined;
  if (byAddressGiven) uidAt = (address) => byAddressGiven(address)?.uid;
  else {
    let byAddress: Map<string, string> | undefined;
    uidAt = (address) => {
      if (!byAddress) {
        byAddress = new Map();
        for (const r of live.resources) if (accessPartOf(r.kind)) byAddress.set(r.address, r.uid);
      }
      return byAddress.get(address);
    };
  }
  // Each path looked up once: bindings name the same identities and roles again and again.
  const identityUids = new Map<string, string | undefined>();
  const roleUids = new Map<string, string | undefined>();
  /** Identity uid → the address a path resolved it at (the first). */
  const identityAddresses = new Map<string, string>();
  const byPath = (uids: Map<string, string | undefined>, prefix: string, path: string): string | undefined => {
    if (uids.has(path)) return uids.get(path);
    const address = `${prefix}${path}`;
    const uid = uidAt(address);
    uids.set(path, uid);
    if (uid !== undefined && uids === identityUids && !identityAddresses.has(uid)) identityAddresses.set(uid, address);
    return uid;
  };
  const identityKey = (k: IdentityKey): string | undefined =>
    'uid' in k ? k.uid : byPath(identityUids, 'identity:', k.path);
  const roleKey = (k: RoleKey): string | undefined =>
    'builtin' in k ? live.builtinRoles[k.builtin] : 'uid' in k ? k.uid : byPath(roleUids, 'role:', k.path);
  const orgUid = live.org?.uid ?? null;
  return {
    builtinCapabilities,
    builtinNames,
    field: (r, part, field) => readField(r, part, fieldRead(r.kind, part, field), identityKey, roleKey, orgUid),
    identityPath(r, part, field) {
      if ((field === 'email' && r.email !== undefined) || (part.is === 'grant' && part.scopeField === field)) return;
      // As readField reads it: the reference sent in that field, when it holds a value.
      const reference = referenceIn(r.kind, field);
      const value =
        reference === undefined
          ? undefined
          : ((r.fields as unknown as Record<string, unknown>)[reference] as IdentityKey | undefined);
      return reference === 'identity' && value !== undefined && 'path' in value ? value.path : undefined;
    },
    identityKey,
    identityAddressOf: (key) => identityAddresses.get(key),
    relationship(r, part) {
      // Each identity's: how its kind reads each relationship field is found once per kind.
      for (const read of relationshipReads(r.kind, part)) {
        const value = readField(r, part, read, identityKey, roleKey, orgUid);
        if (value !== undefined && value !== null) return { field: read.field, value };
      }
      return undefined;
    },
    record: (r, part) => ({
      kind: r.kind,
      key: r.uid,
      address: r.address,
      parent: r.parentUid,
      fields: liveFields(r, part, identityKey, roleKey, orgUid),
    }),
  };
}

/** The access fields of a kind (`accessFieldsOf`) sent in API field `field`, in order. */
const ACCESS_FIELDS_NAMED = new Map<Kind, Map<string, readonly FieldSpec[]>>();
function accessFieldsNamed(kind: Kind, part: AccessPart, field: string): readonly FieldSpec[] {
  let byName = ACCESS_FIELDS_NAMED.get(kind);
  if (!byName) {
    byName = new Map();
    for (const spec of accessFieldsOf(kind, part))
      byName.set(apiName(spec), [...(byName.get(apiName(spec)) ?? []), spec]);
    ACCESS_FIELDS_NAMED.set(kind, byName);
  }
  return byName.get(field) ?? NO_FIELDS;
}
const NO_FIELDS: readonly FieldSpec[] = [];

/** The reference a kind sends in API field `field` (`identity` in `identityUid`), the last if more; undefined: none. */
const REFERENCE_IN = new Map<Kind, Map<string, string>>();
function referenceIn(kind: Kind, field: string): string | undefined {
  let byField = REFERENCE_IN.get(kind);
  if (!byField) {
    byField = new Map();
    for (const reference of descriptorOf(kind).references ?? []) byField.set(`${reference}Uid`, reference);
    REFERENCE_IN.set(kind, byField);
  }
  return byField.get(field);
}

/** The fields access reads of a kind (its descriptor's `access`): only those are taken from live. */
const ACCESS_FIELDS = new Map<Kind, readonly FieldSpec[]>();
function accessFieldsOf(kind: Kind, part: AccessPart): readonly FieldSpec[] {
  let fields = ACCESS_FIELDS.get(kind);
  if (!fields) {
    const names =
      part.is === 'principal'
        ? [...part.relationship]
        : part.is === 'capabilities'
          ? [part.field]
          : part.is === 'grant'
            ? [part.role, part.principalField, part.expiryField, part.scopeField].filter(
                (f): f is string => f !== undefined,
              )
            : [];
    // `oidc`: an identity provider's people are its issuer's (relation.ts).
    const wanted = new Set([...names, 'oidc']);
    ACCESS_FIELDS.set(kind, (fields = descriptorOf(kind).fields.filter((spec) => wanted.has(apiName(spec)))));
  }
  return fields;
}

function liveFields(
  r: LiveResource,
  part: AccessPart,
  identityKey: (k: IdentityKey) => string | undefined,
  roleKey: (k: RoleKey) => string | undefined,
  orgUid: string | null,
): Record<string, unknown> {
  const model = r.fields as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const descriptor = descriptorOf(r.kind);
  for (const spec of accessFieldsOf(r.kind, part)) {
    const value = model[spec.name];
    if (value === undefined) continue;
    out[apiName(spec)] = spec.type === 'roleRef' ? roleKey(value as RoleKey) : value;
  }
  // A kind whose references are keys of their own (a binding's identity and role).
  for (const reference of descriptor.references ?? []) {
    const value = model[reference] as IdentityKey | RoleKey | undefined;
    if (value === undefined) continue;
    out[`${reference}Uid`] = reference === 'identity' ? identityKey(value as IdentityKey) : roleKey(value as RoleKey);
  }
  if (part.is === 'grant' && part.scopeField !== undefined && out[part.scopeField] === undefined)
    out[part.scopeField] = orgUid;
  if (r.email !== undefined) out.email = r.email;
  return out;
}

/** How `readField` reads API field `field` of a kind: the access fields sent in it, and the reference sent in it. */
interface FieldRead {
  field: string;
  specs: readonly FieldSpec[];
  reference: string | undefined;
}

/** The reads of a kind's relationship fields, in order (found once per kind). */
const RELATIONSHIP_READS = new Map<Kind, readonly FieldRead[]>();
function relationshipReads(kind: Kind, part: Extract<AccessPart, { is: 'principal' }>): readonly FieldRead[] {
  let reads = RELATIONSHIP_READS.get(kind);
  if (!reads) {
    reads = part.relationship.map((field) => fieldRead(kind, part, field));
    RELATIONSHIP_READS.set(kind, reads);
  }
  return reads;
}

function fieldRead(kind: Kind, part: AccessPart, field: string): FieldRead {
  return { field, specs: accessFieldsNamed(kind, part, field), reference: referenceIn(kind, field) };
}

/** One field of `liveFields`, as it writes it: the email last, the org when a scope field is unset, a reference over a field. */
function readField(
  r: LiveResource,
  part: AccessPart,
  read: FieldRead,
  identityKey: (k: IdentityKey) => string | undefined,
  roleKey: (k: RoleKey) => string | undefined,
  orgUid: string | null,
): unknown {
  const { field, reference } = read;
  if (field === 'email' && r.email !== undefined) return r.email;
  const model = r.fields as unknown as Record<string, unknown>;
  let out: unknown;
  for (const spec of read.specs) {
    const value = model[spec.name];
    if (value !== undefined) out = spec.type === 'roleRef' ? roleKey(value as RoleKey) : value;
  }
  const value = reference === undefined ? undefined : (model[reference] as IdentityKey | RoleKey | undefined);
  if (value !== undefined)
    out = reference === 'identity' ? identityKey(value as IdentityKey) : roleKey(value as RoleKey);
  if (part.is === 'grant' && part.scopeField === field && out === undefined) out = orgUid;
  return out;
}

/** The key a step's reference field names: the uid sent, else the one known, else what the plan creates. */
function refKey(ref: UidReference | undefined, value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (ref?.uid !== undefined) return ref.uid;
  return ref ? newKey(ref.address) : undefined;
}

/**
 * The state `steps` lead to from `before` (a copy; `before` is not changed): each step's result
 * written over it, whatever its kind. A create's parent is its `parentUid`, or the key of the
 * create of its parent address in the same plan.
 */
export function stateAfterSteps(before: AccessStateRecords, steps: readonly PlanStep[]): AccessStateRecords {
  return stepsOverState(before, steps).state;
}

/** What steps did to a state: the state they lead to, and which records they wrote or removed. */
export interface StepsOverState {
  state: AccessStateRecords;
  /** The keys of the records the steps changed: each one written that the state holds, each one of `before` it no longer holds. */
  changed: Set<string>;
  /** The records the steps added at the end of the state's order (creates), by their rank there. */
  appended: Map<string, number>;
}

/** `stateAfterSteps`, with what the steps changed (planned-relation.ts builds from it). */
export function stepsOverState(before: AccessStateRecords, steps: readonly PlanStep[]): StepsOverState {
  const records = new Map(before.records);
  const removed = new Map(before.removed);
  const wrote: string[] = [];
  const appended = new Map<string, number>();
  let ends = 0;
  // Addresses → keys, built only when a create names its parent by address alone.
  let keyOfAddress: Map<string, string> | undefined;
  const moved = new Map<string, string>();
  const keyAt = (address: string): string | undefined => {
    const known = moved.get(address);
    if (known !== undefined) return known;
    if (!keyOfAddress) {
      keyOfAddress = new Map();
      for (const r of before.records.values()) keyOfAddress.set(r.address, r.key);
    }
    return keyOfAddress.get(address);
  };
  for (const step of steps) {
    if (!accessPartOf(step.kind)) continue;
    if (step.action === 'delete') {
      const gone = records.get(step.uid);
      if (gone) removed.set(gone.key, { ...gone, step: step.address });
      records.delete(step.uid);
      wrote.push(step.uid);
      continue;
    }
    const refs = (step.refs ?? {}) as Record<string, UidReference | undefined>;
    if (step.action === 'create') {
      const fields = fieldsAfterStep(undefined, step)!;
      for (const [field, ref] of Object.entries(refs)) fields[field] = refKey(ref, step.after[field]);
      const parent = step.parentUid ?? (step.parent ? (keyAt(step.parent) ?? newKey(step.parent)) : null);
      const key = newKey(step.address);
      if (!records.has(key)) appended.set(key, ends++);
      records.set(key, { kind: step.kind, key, address: step.address, parent, fields, step: step.address });
      moved.set(step.address, key);
      wrote.push(key);
      continue;
    }
    const was = records.get(step.uid);
    if (!was) continue;
    const fields = fieldsAfterStep(was.fields, step)!;
    const written = writtenPaths(step);
    for (const [field, ref] of Object.entries(refs))
      if (written.includes(field)) fields[field] = refKey(ref, step.after[field]);
    records.set(step.uid, { ...was, address: step.address, fields, step: step.address });
    moved.set(step.address, step.uid);
    wrote.push(step.uid);
  }
  const changed = new Set<string>();
  for (const key of wrote)
    if (records.get(key)?.step !== undefined || (!records.has(key) && before.records.has(key))) changed.add(key);
  return {
    state: { records, builtinCapabilities: before.builtinCapabilities, builtinNames: before.builtinNames, removed },
    changed,
    appended,
  };
}
