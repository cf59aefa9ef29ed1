/**
 * What a step does to a resource, said once (DESIGN.md §2): a create makes it with the step's
 * fields, an update writes each path its mask names — the value the step's `after` holds there,
 * or nothing when it holds none —, and a delete removes it. Where a kind holds one field of a set
 * at most (its descriptor's `exclusiveFields`: an identity's relationships), setting one clears
 * the others, as the service does.
 *
 * Fields are the API's (a step's `after`, by API name). Read by the access state
 * (access/state.ts: the org a plan leads to) and the saved-plan check (saved-plan/: was a plan
 * applied already?); test/unit/step-effect.test.ts holds it to the emulator's own answers.
 */
import { isPlainObject } from './field-values.js';
import { descriptorOf } from './kinds.js';
import type { CreateStep, PlanStep, UpdateStep } from './plan.js';

/** A resource's API fields. */
export type ApiFields = Record<string, unknown>;

/** One path an update writes, with the exclusive fields that writing it clears. */
export interface MaskedWrite {
  path: string;
  /** The value written there; undefined unsets it. */
  value: unknown;
  clears: readonly string[];
}

/**
 * The writes of an update, in mask order (a later write of an exclusive set wins, as on the
 * service). A step's `after` holds each masked path's value under the path itself
 * (`after['syncConfig.expiration']`, as the planner writes a leaf change).
 */
export function updateWrites(step: UpdateStep): MaskedWrite[] {
  const exclusive = descriptorOf(step.kind).exclusiveFields ?? [];
  return step.updateMask.map((path) => {
    const top = path.split('.')[0]!;
    const value = step.after[path];
    const sets = exclusive.includes(top) && value !== undefined && value !== null;
    return { path, value, clears: sets ? exclusive.filter((other) => other !== top) : [] };
  });
}

/** The paths a create or update determines: a create's fields, an update's mask. */
export function writtenPaths(step: CreateStep | UpdateStep): string[] {
  return step.action === 'update' ? [...step.updateMask] : Object.keys(step.after);
}

/** The exclusive fields an update leaves unset (cleared by setting another, and not written after). */
export function clearedFields(step: UpdateStep): string[] {
  const cleared = new Set<string>();
  for (const write of updateWrites(step)) {
    for (const field of write.clears) cleared.add(field);
    cleared.delete(write.path.split('.')[0]!);
  }
  return [...cleared];
}

/**
 * The fields a resource holds after `step`, from those it held before (undefined: it did not
 * exist). A create's are its `after`; a delete leaves nothing (undefined). Never changes `before`.
 */
export function fieldsAfterStep(before: ApiFields | undefined, step: PlanStep): ApiFields | undefined {
  if (step.action === 'delete') return undefined;
  if (step.action === 'create') return { ...step.after };
  const fields: ApiFields = { ...(before ?? {}) };
  for (const write of updateWrites(step)) {
    for (const other of write.clears) delete fields[other];
    writePath(fields, write.path, write.value);
  }
  return fields;
}

/** Sets a dotted path (`claimMatch.subject`) in `fields`, copying the objects on the way; undefined removes it. */
function writePath(fields: ApiFields, path: string, value: unknown): void {
  const parts = path.split('.');
  let into = fields;
  for (const part of parts.slice(0, -1)) {
    const next = into[part];
    into = into[part] = isPlainObject(next) ? { ...next } : {};
  }
  const last = parts[parts.length - 1]!;
  if (value === undefined) delete into[last];
  else into[last] = value;
}
