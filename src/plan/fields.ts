/**
 * Per-kind knowledge of managed fields: which fields of a desired resource differ from live,
 * what a create sends, and how a resource reads when it is shown whole (on delete).
 * Pure; the planner and the fingerprinting both use it so that "what counts as a change" is
 * defined once.
 */
import { referenceText } from '../model/address.js';
import type { ClaimMatch, DesiredResource, LiveResource, ResourceUnion } from '../model/resources.js';

/** One managed field that differs: its API name and both values (live first). */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
}

/**
 * Fields compared for each kind, in API names. Role bindings are compared by address (their
 * identity and role are the key), tags by name + digest only: `deprecated` is a server-side
 * state the API does not let a client set.
 */
const COMPARED_FIELDS: Record<Exclude<ResourceUnion['kind'], 'roleBinding'>, readonly string[]> = {
  group: ['name', 'description'],
  identity: ['name', 'description', 'claimMatch'],
  role: ['name', 'description', 'capabilities'],
  repo: ['name', 'description', 'readme'],
  subscription: ['sink'],
  tag: ['name', 'digest'],
};

/** Fields a create carries in its body (`readme` is sent afterwards by its own PATCH). */
const CREATE_FIELDS: Record<Exclude<ResourceUnion['kind'], 'roleBinding'>, readonly string[]> = COMPARED_FIELDS;

function fieldsOf(resource: ResourceUnion): Record<string, unknown> {
  return resource.fields as unknown as Record<string, unknown>;
}

/**
 * The API leaves a string field empty rather than absent, and a role may hold no
 * capabilities: an absent live value means the empty one.
 */
function liveValue(field: string, value: unknown): unknown {
  if (value !== undefined) return value;
  if (field === 'capabilities') return [];
  if (field === 'claimMatch') return undefined;
  return '';
}

function sameClaimMatch(a: ClaimMatch | undefined, b: ClaimMatch | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.issuer === b.issuer && a.subject === b.subject;
}

/** Capabilities are a set: the API keeps the order it was sent, but order carries no meaning. */
function sameCapabilitySet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const sa = [...a].sort();
  const sb = [...b].sort();
  return sa.every((v, i) => v === sb[i]);
}

function sameValue(field: string, live: unknown, desired: unknown): boolean {
  if (field === 'claimMatch') return sameClaimMatch(live as ClaimMatch | undefined, desired as ClaimMatch | undefined);
  if (field === 'capabilities') return sameCapabilitySet(live as string[], desired as string[]);
  return live === desired;
}

/**
 * The managed fields (present on the desired side) whose live value differs, in the kind's
 * field order. Role bindings never appear here: their role change is decided by matching.
 */
export function diffManagedFields(desired: DesiredResource, live: LiveResource): FieldChange[] {
  if (desired.kind === 'roleBinding') return [];
  const want = fieldsOf(desired);
  const have = fieldsOf(live);
  const changes: FieldChange[] = [];
  for (const field of COMPARED_FIELDS[desired.kind]) {
    const after = want[field];
    if (after === undefined) continue; // not managed: the live value is kept
    const before = liveValue(field, have[field]);
    if (!sameValue(field, before, after)) changes.push({ field, before: copyValue(before), after: copyValue(after) });
  }
  return changes;
}

/** The managed fields a create sends (body fields, plus `readme` for repos that have one). */
export function createFields(desired: DesiredResource): Record<string, unknown> {
  if (desired.kind === 'roleBinding') return {};
  const want = fieldsOf(desired);
  const body: Record<string, unknown> = {};
  for (const field of CREATE_FIELDS[desired.kind]) {
    if (want[field] !== undefined) body[field] = copyValue(want[field]);
  }
  return body;
}

/** The whole resource as a reader wants to see it (delete steps, fingerprints). */
export function displayFields(resource: ResourceUnion): Record<string, unknown> {
  if (resource.kind === 'roleBinding') {
    return {
      identity: referenceText(resource.groupPath, resource.fields.identity),
      role: referenceText(resource.groupPath, resource.fields.role),
    };
  }
  const out: Record<string, unknown> = {};
  const have = fieldsOf(resource);
  for (const field of [...COMPARED_FIELDS[resource.kind], ...(resource.kind === 'tag' ? ['deprecated'] : [])]) {
    if (have[field] !== undefined) out[field] = copyValue(have[field]);
  }
  return out;
}

/** Plans are plain data handed to other code: never share arrays/objects with the inputs. */
function copyValue(value: unknown): unknown {
  if (Array.isArray(value)) return [...value];
  if (value !== null && typeof value === 'object') return { ...(value as object) };
  return value;
}
