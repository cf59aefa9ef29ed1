/**
 * `settings` of a manifest set: prune per kind, ignore and protect address globs.
 * Several documents may carry settings: `prune` must then agree (like any scalar set twice),
 * while `ignore` and `protect` lists are joined in file order without repeats.
 */
import { KINDS, PRUNE_KEYS, type Kind } from '../model/kinds.js';
import { findAddressPatternProblem } from '../model/address-pattern.js';
import type { PruneSetting } from '../model/resources.js';

/**
 * Converts a `prune` value that passed the schema to the model's PruneSetting (keys become
 * kinds; keys the schema rejects are dropped); undefined when it is not a boolean or a mapping
 * (the schema reports that).
 */
export function toPruneSetting(value: unknown): PruneSetting | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Partial<Record<Kind, boolean>> = {};
  for (const [key, v] of Object.entries(value)) {
    const kind = PRUNE_KEYS[key];
    if (kind !== undefined && typeof v === 'boolean') out[kind] = v;
  }
  return out;
}

/** A canonical text of a PruneSetting, for "set twice with different values" checks. */
export function pruneKey(p: PruneSetting): string {
  if (typeof p === 'boolean') return String(p);
  return JSON.stringify(Object.fromEntries(Object.entries(p).sort(([a], [b]) => (a < b ? -1 : 1))));
}

/**
 * Checks an address glob of `ignore`/`protect`: it is `org` or starts with a kind prefix
 * (`repo:`, `identity:` …) followed by something. Returns the problem, or undefined.
 */
export function checkAddressGlob(glob: string, list: 'ignore' | 'protect'): string | undefined {
  const found = findAddressPatternProblem(glob);
  if (found === undefined) return undefined;
  if (found.problem === 'member-line') {
    const instead = list === 'ignore' ? "to leave a person's access alone" : "to keep a person's access";
    return `address glob ${JSON.stringify(glob)} in settings.${list} names members lines, which are not live resources; ${instead}, name their role binding (roleBinding:<group path>/<identity>=<role>) or identity`;
  }
  if (found.problem === 'nothing-after-kind') {
    return `address glob ${JSON.stringify(glob)} in settings.${list} has nothing after "${found.kind}:"; expected e.g. "${found.kind}:*" or "${found.kind}:<path>"`;
  }
  const prefixes = KINDS.map((k) => `${k}:`).join(', ');
  const hint = found.suggestion === undefined ? '' : ` (did you mean ${JSON.stringify(found.suggestion)}?)`;
  return `invalid address glob ${JSON.stringify(glob)} in settings.${list}; expected "org" or a glob that starts with a kind prefix (${prefixes})${hint}`;
}
