/**
 * Managed fields, read from the kind descriptors: which fields of a desired resource differ
 * from live, what a create sends, and how a resource reads when it is shown whole (on delete).
 * Pure; the planner and the fingerprinting both use it so that "what counts as a change" is
 * defined once.
 */
import { copyValue, isPlainObject, liveDefault, sameJson, sameValue } from '../model/kind-descriptor.js';
import { descriptorOf } from '../model/kinds.js';
import { fieldsOf, type DesiredResource, type LiveResource, type ResourceUnion } from '../model/resources.js';

/** One managed field that differs: its API name (what an update mask names) and both values (live first). */
export interface FieldChange {
  field: string;
  before: unknown;
  after: unknown;
  /**
   * Cleared as a side effect: another of the kind's exclusive fields is set (an identity that
   * changes from claimMatch to awsIdentity). Shown, but not in the update mask: the PATCH names
   * only the field it sets, and the API clears the rest.
   */
  cleared?: true;
}

/** What diffManagedFields gives for a resource that matches (most of a plan's): one frozen array, not one per resource. */
const NO_CHANGES: readonly FieldChange[] = Object.freeze([]);

/**
 * The managed fields (present on the desired side) whose live value differs, in the kind's
 * field order. Role bindings have none: their role change is decided by matching.
 */
export function diffManagedFields(desired: DesiredResource, live: LiveResource): readonly FieldChange[] {
  const want = fieldsOf(desired);
  const have = fieldsOf(live);
  const descriptor = descriptorOf(desired.kind);
  let changes: FieldChange[] | undefined;
  // Indexed: this runs per matched resource, mostly before V8 optimises it (a for…of allocates then).
  const specs = descriptor.fields;
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i]!;
    if (spec.compared === false) continue;
    const after = want[spec.name];
    if (after === undefined) continue; // not managed: the live value is kept
    const before = have[spec.name] ?? liveDefault(spec);
    if (sameValue(spec, before, after)) continue;
    const field = spec.apiName ?? spec.name;
    if (spec.leafMask === true && isPlainObject(before) && isPlainObject(after)) {
      // Leaf by leaf: the mask names `syncConfig.expiration`, and only what changed is sent.
      for (const leaf of [...new Set([...Object.keys(after), ...Object.keys(before)])]) {
        if (!sameJson(before[leaf], after[leaf]))
          (changes ??= []).push({
            field: `${field}.${leaf}`,
            before: copyValue(before[leaf]),
            after: copyValue(after[leaf]),
          });
      }
      continue;
    }
    (changes ??= []).push({ field, before: copyValue(before), after: copyValue(after) });
  }
  // An exclusive field set in the manifests replaces whichever other one is live.
  const exclusive = descriptor.exclusiveFields;
  if (exclusive !== undefined && exclusive.length > 0) {
    let wanted = false;
    for (let i = 0; i < exclusive.length && !wanted; i++) wanted = want[exclusive[i]!] !== undefined;
    for (let i = 0; wanted && i < exclusive.length; i++) {
      const field = exclusive[i]!;
      if (want[field] === undefined && have[field] !== undefined && have[field] !== '')
        (changes ??= []).push({ field, before: copyValue(have[field]), after: undefined, cleared: true });
    }
  }
  return changes ?? NO_CHANGES;
}

/** The managed fields a create sends (body fields, plus any sub-resource, written right after). */
export function createFields(desired: DesiredResource): Record<string, unknown> {
  const want = fieldsOf(desired);
  const body: Record<string, unknown> = {};
  for (const spec of descriptorOf(desired.kind).fields) {
    if (spec.compared !== false && want[spec.name] !== undefined)
      body[spec.apiName ?? spec.name] = copyValue(want[spec.name]);
  }
  return body;
}

/** The whole resource as a reader wants to see it (delete steps, fingerprints). */
export function displayFields(resource: ResourceUnion): Record<string, unknown> {
  const descriptor = descriptorOf(resource.kind);
  const have = fieldsOf(resource);
  if (descriptor.display) return descriptor.display(resource.groupPath, have);
  const out: Record<string, unknown> = {};
  for (const spec of descriptor.fields) {
    if (have[spec.name] !== undefined) out[spec.name] = copyValue(have[spec.name]);
  }
  return out;
}
