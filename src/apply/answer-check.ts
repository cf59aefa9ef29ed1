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
import {
  isPlainObject,
  liveDefault,
  listedFields,
  referenceUidField,
  sameLeafValue,
  sameValue,
} from '../model/kind-descriptor.js';
import { descriptorOf } from '../model/kinds.js';
import type { CreateStep, UpdateStep } from '../model/plan.js';
import { clearedFields, fieldsAfterStep, writtenPaths, type ApiFields } from '../model/step-effect.js';

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
  const descriptor = descriptorOf(step.kind);
  // A create whose body is not the kind's fields (an acceptance of terms) is answered in the body's shape, not the fields'.
  if (step.action === 'create' && descriptor.createBody !== undefined) return [];
  const written = { ...step, after: sent } as CreateStep | UpdateStep;
  const expected = fieldsAfterStep(step.action === 'update' ? step.before : undefined, written)!;
  const references = new Map<string, string>((descriptor.references ?? []).map((r) => [referenceUidField(r), r]));
  const out: AnswerDifference[] = [];
  for (const path of writtenPaths(written)) {
    if (descriptor.secretPaths?.includes(path)) continue;
    const [top, ...leaf] = path.split('.') as [string, ...string[]];
    const want = valueAtPath(expected[top], leaf);
    const reference = references.get(path);
    if (reference !== undefined) {
      const got = referencedUid(answer, reference);
      if (typeof want === 'string' && got !== want) out.push({ field: path, wrote: want, answered: got });
      continue;
    }
    const spec = descriptor.fields.find((f) => (f.apiName ?? f.name) === top);
    // A field no declaration describes (a group mapping's org scope) is the service's to fill.
    if (spec === undefined || spec.subResource !== undefined || spec.compared === false) continue;
    const got = valueAtPath(answer[top], leaf);
    if (leaf.length > 0) {
      // One leaf of an object updated leaf by leaf (`syncConfig.expiration`).
      if (!sameLeafValue(spec, leaf, got, want)) out.push({ field: path, wrote: want, answered: got });
      continue;
    }
    if (spec.type === 'roleRef') {
      if (typeof want === 'string' && got !== want) out.push({ field: path, wrote: want, answered: got });
      continue;
    }
    // The answer read as a listing is read (a string left out is '', a set in any order).
    const read = listedFields([spec])[0]!.read(got);
    if (!sameValue(spec, read ?? liveDefault(spec), want ?? liveDefault(spec)))
      out.push({ field: path, wrote: want, answered: got });
  }
  if (step.action === 'update') {
    for (const field of clearedFields(written as UpdateStep)) {
      const got = answer[field];
      if (got !== undefined && got !== null && got !== '') out.push({ field, wrote: undefined, answered: got });
    }
  }
  return out;
}
