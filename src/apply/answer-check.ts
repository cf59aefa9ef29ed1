/**
 * What the executor expects of the service's answer to a create or update: that it holds what
 * the step wrote — the step's effect (model/step-effect.ts) on the resource as the executor had
 * it, compared on every path the step determines, each as its field's declaration compares it
 * (DESIGN.md §4 "Timestamps": instants as instants, sets as sets), and the exclusive fields an
 * update clears unset. A secret (never returned), a sub-resource (written by its own PATCH, not
 * in the answer) and a create whose body is not the kind's fields (`createBody`: terms) are not
 * compared.
 */
import { referencedUid } from '../api/hydrated.js';
import type { ApiObject } from '../api/types.js';
import { valueAtPath } from '../model/field-path.js';
import { isPlainObject, listedField } from '../model/kind-descriptor.js';
import { descriptorOf } from '../model/kinds.js';
import type { CreateStep, UpdateStep } from '../model/plan.js';
import { fieldsAfterStep, type ApiFields } from '../model/step-effect.js';
import { heldDifferences } from '../model/step-holds.js';

/** A path a step wrote that the service's answer holds otherwise: what was written, what it answered. */
export interface AnswerDifference {
  /** The API path (`description`, `syncConfig.expiration`, `roleUid`). */
  field: string;
  /** The value written; undefined when the step unset it (or cleared it by setting another of its set). */
  wrote: unknown;
  answered: unknown;
}

/**
 * Where `answer` does not hold what `step` wrote. `sent` is the step's `after` with its references
 * resolved to the uids sent (the executor's); an update's effect is applied to the values it had
 * before (`step.before`). Empty when the answer holds every written value.
 */
export function answerDifferences(
  step: CreateStep | UpdateStep,
  sent: ApiFields,
  answered: ApiObject,
): AnswerDifference[] {
  // Untrusted: an answer that is no object holds none of what was written.
  const answer: ApiObject = isPlainObject(answered) ? answered : { uid: '' };
  // A create whose body is not the kind's fields (an acceptance of terms) is answered in the body's shape, not the fields'.
  if (step.action === 'create' && descriptorOf(step.kind).createBody !== undefined) return [];
  const written = { ...step, after: sent } as CreateStep | UpdateStep;
  const expected = fieldsAfterStep(step.action === 'update' ? step.before : undefined, written)!;
  const wrote = (path: string): unknown => {
    const [top, ...leaf] = path.split('.') as [string, ...string[]];
    return valueAtPath(expected[top], leaf);
  };
  return heldDifferences(written, wrote, {
    referenced: (reference) => referencedUid(answer, reference),
    role: (spec) => answer[spec.apiName ?? spec.name],
    // The answer read as a listing is read (a string left out is '', a set in any order).
    value: (spec) => listedField(spec).read(answer[spec.apiName ?? spec.name]),
    leaf: (spec, leaf) => valueAtPath(answer[spec.apiName ?? spec.name], leaf),
    // A sub-resource is written by its own PATCH and is not in the answer.
    unseen: (spec) => spec.subResource !== undefined,
    // What no field declares was not sent (a group mapping's org scope is the service's to fill).
    skipsUndeclared: true,
  }).map(({ field, wrote, held }) => ({ field, wrote, answered: held }));
}
