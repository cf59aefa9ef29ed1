/**
 * Whether a resource holds what a create or update step wrote, walked once (issue 63: one reading
 * of a step): every path the step determines (model/step-effect.ts `writtenPaths`) compared as its
 * field's declaration compares it — a reference as the uid it names, one leaf of an object leaf
 * by leaf (instants as instants), a set as a set, an unset value as the field's default — and the
 * exclusive fields an update clears unset. A secret (never returned) is not compared.
 *
 * Two readers of a resource use it: the service's answer to the step (apply/answer-check.ts) and
 * a live resource read later (saved-plan/check-saved-plan.ts: was the plan applied already?).
 * What each reads is the reader's; what is compared, and how, is said here.
 */
import { type FieldSpec, liveDefault, referenceUidField, sameLeafValue, sameValue } from './kind-descriptor.js';
import { descriptorOf } from './kinds.js';
import type { CreateStep, UpdateStep } from './plan.js';
import { clearedFields, writtenPaths } from './step-effect.js';

/** How one resource is read where a step wrote. */
export interface HeldReader {
  /** The uid a reference (`identity`, `role`) of the resource names; undefined when it names none. */
  referenced(reference: string): unknown;
  /** The uid a role field (`roleRef`) names. */
  role(spec: FieldSpec): unknown;
  /** A declared field's value as a listing reads it; undefined when unset. */
  value(spec: FieldSpec): unknown;
  /** One leaf (`['expiration']`) of an object field. */
  leaf(spec: FieldSpec, leaf: readonly string[]): unknown;
  /** A field this reader cannot see (the answer to a step holds no sub-resource): not compared. */
  unseen?(spec: FieldSpec): boolean;
  /**
   * Whether a written path no field declares is left uncompared (the executor sends only the
   * kind's API fields, so the answer to it holds nothing else); otherwise such a path differs.
   */
  skipsUndeclared?: boolean;
}

/** A written path the resource holds otherwise: what the step wrote there, what the resource holds. */
export interface HeldDifference {
  /** The API path (`description`, `syncConfig.expiration`, `roleUid`). */
  field: string;
  /** The value written; undefined when the step unset it (or cleared it by setting another of its set). */
  wrote: unknown;
  held: unknown;
}

/**
 * Where the resource `reader` reads does not hold what `step` wrote; `wrote(path)` is the value the
 * step wrote at a path it determines, its references resolved to uids (undefined: none could be).
 * Empty when it holds every written value and every cleared field is unset.
 */
export function heldDifferences(
  step: CreateStep | UpdateStep,
  wrote: (path: string) => unknown,
  reader: HeldReader,
): HeldDifference[] {
  const descriptor = descriptorOf(step.kind);
  const references = new Map<string, string>((descriptor.references ?? []).map((r) => [referenceUidField(r), r]));
  const specOf = (apiName: string): FieldSpec | undefined =>
    descriptor.fields.find((f) => (f.apiName ?? f.name) === apiName);
  const out: HeldDifference[] = [];
  for (const path of writtenPaths(step)) {
    if (descriptor.secretPaths?.includes(path)) continue;
    const want = wrote(path);
    const reference = references.get(path);
    const [top, ...leaf] = path.split('.') as [string, ...string[]];
    const spec = reference === undefined ? specOf(top) : undefined;
    if (reference !== undefined || spec?.type === 'roleRef') {
      // A reference or a role: the uid it names.
      const held = reference !== undefined ? reader.referenced(reference) : reader.role(spec!);
      if (want === undefined || held !== want) out.push({ field: path, wrote: want, held });
      continue;
    }
    if (spec === undefined) {
      // The org's own uid in a child's scope is checked by the plan's org; any other is unknown here.
      if (path !== descriptor.orgScopeField && reader.skipsUndeclared !== true)
        out.push({ field: path, wrote: want, held: undefined });
      continue;
    }
    if (spec.compared === false || reader.unseen?.(spec) === true) continue;
    if (leaf.length > 0) {
      // One leaf of an object updated leaf by leaf (`syncConfig.expiration`).
      const held = reader.leaf(spec, leaf);
      if (!sameLeafValue(spec, leaf, held, want)) out.push({ field: path, wrote: want, held });
      continue;
    }
    const held = reader.value(spec);
    if (!sameValue(spec, held ?? liveDefault(spec), want ?? liveDefault(spec)))
      out.push({ field: path, wrote: want, held });
  }
  if (step.action === 'update') {
    for (const field of clearedFields(step)) {
      const spec = specOf(field);
      const held = spec === undefined ? undefined : reader.value(spec);
      if (held !== undefined && held !== null && held !== '') out.push({ field, wrote: undefined, held });
    }
  }
  return out;
}
