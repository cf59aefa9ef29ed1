/**
 * A managed field's values (kind-descriptor.ts FieldSpec): how a value is read from the API or a
 * manifest, copied, compared with its live counterpart and spelled canonically — instants in the
 * service's one spelling, JSON with its keys sorted.
 */
import { rfc3339Millis } from '../util/time.js';
import { setOwnKey } from '../util/own-key.js';
import type { FieldSpec, FieldType } from './kind-descriptor.js';

type Obj = Record<string, unknown>;

/** An RFC 3339 time in the service's one spelling (UTC, milliseconds, Z); anything else as it was. */
export function canonicalInstant(value: unknown): unknown {
  if (typeof value !== 'string' || !RFC3339.test(value)) return value;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? rfc3339Millis(ms) : value;
}
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** A field's value with its instants (FieldSpec `instants`) in one spelling. */
export function withInstants(instants: readonly string[] | undefined, value: unknown): unknown {
  if (instants === undefined || instants.length === 0 || value === undefined) return value;
  if (instants.includes('')) return canonicalInstant(value);
  if (!isPlainObject(value)) return value;
  let out: Obj | undefined;
  for (const at of instants) {
    if (!(at in value)) continue;
    const v = canonicalInstant(value[at]);
    if (v !== value[at]) (out ??= { ...value })[at] = v;
  }
  return out ?? value;
}

/** An object that is not an array (or null): what JSON calls an object. */
export function isPlainObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A JSON-safe deep copy (plans are plain data: never share objects with inputs). */
export function copyValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyValue);
  if (isPlainObject(value)) {
    const out: Obj = {};
    for (const k in value) {
      if (!Object.hasOwn(value, k) || value[k] === undefined) continue;
      setOwnKey(out, k, copyValue(value[k]));
    }
    return out;
  }
  return value;
}

/**
 * Whether two JSON values are equal as canonicalJson compares them (key order and undefined
 * members aside), without building the texts: the planner compares every object field of every
 * matched resource.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    let defined = 0;
    for (const k in a) {
      if (!Object.hasOwn(a, k) || a[k] === undefined) continue;
      defined++;
      if (!Object.hasOwn(b, k) || !sameJson(a[k], b[k])) return false;
    }
    for (const k in b) if (Object.hasOwn(b, k) && b[k] !== undefined) defined--;
    return defined === 0;
  }
  return !isPlainObject(b) && JSON.stringify(a) === JSON.stringify(b); // NaN reads as null there, as in canonicalJson
}

/** Canonical JSON: keys sorted at every level, so two equal objects give one text (and one hash). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/** The value an absent live field means. */
export function liveDefault(spec: FieldSpec): unknown {
  switch (spec.type) {
    case 'string':
      return spec.optional ? undefined : '';
    case 'stringSet':
      return [];
    case 'boolean':
      return false;
    case 'object':
    case 'roleRef':
      return undefined;
  }
}

/**
 * How one field is read from a listed API object, decided once per kind (issue 51): the API key
 * it is under, the name it is kept as, and one small reader for its type — so that the per-resource
 * loop is the same few instructions for every kind, and each reader is compiled once.
 */
export interface ListedField {
  readonly key: string;
  readonly name: string;
  readonly read: (value: unknown) => unknown;
}

/** A field's value as the API sent it, by type (untrusted: a wrong type reads as absent). */
const READERS: Readonly<Record<FieldType, (value: unknown) => unknown>> = {
  string: (value) => (typeof value === 'string' ? value : ''),
  stringSet: (value) => (Array.isArray(value) ? value.map(String) : []),
  boolean: (value) => value === true,
  object: (value) => (isPlainObject(value) ? copyValue(value) : undefined),
  roleRef: (value) => (typeof value === 'string' && value !== '' ? { uid: value } : undefined),
};
/** A `string` that may be unset: absent or `""` reads as unset. */
const readOptionalString = (value: unknown): unknown => (typeof value === 'string' && value !== '' ? value : undefined);

/** How one field is read from a listed API object (sub-resources aside: they are fetched on their own), normalized. */
export function listedField(spec: FieldSpec): ListedField {
  const read = spec.type === 'string' && spec.optional ? readOptionalString : READERS[spec.type];
  const normalize = spec.normalize;
  return {
    key: spec.apiName ?? spec.name,
    name: spec.name,
    read: normalize
      ? (v: unknown) => {
          const r = read(v);
          return r === undefined ? r : normalize(r);
        }
      : read,
  };
}

/** The fields a listing carries (sub-resources are fetched on their own), each with its reader, normalized. */
export function listedFields(fields: readonly FieldSpec[]): ListedField[] {
  return fields.filter((spec) => !spec.subResource).map(listedField);
}

/** A field's value as a manifest wrote it; undefined = not managed (or the schema reports it). */
export function readManifestValue(spec: FieldSpec, value: unknown): unknown {
  const read = readManifestValueOfType(spec, value);
  return spec.normalize && read !== undefined ? spec.normalize(read) : read;
}

function readManifestValueOfType(spec: FieldSpec, value: unknown): unknown {
  switch (spec.type) {
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'stringSet':
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'object':
      return isPlainObject(value) ? copyValue(value) : undefined;
    case 'roleRef':
      return undefined; // a name or path: the resolver resolves it in its group
  }
}

/** Whether one leaf of an object field (`syncConfig.expiration`) holds the same value: an instant as an instant. */
export function sameLeafValue(spec: FieldSpec, leaf: readonly string[], live: unknown, desired: unknown): boolean {
  const instant = spec.instants?.includes(leaf.join('.')) === true;
  return instant ? sameJson(canonicalInstant(live), canonicalInstant(desired)) : sameJson(live, desired);
}

/** Whether a live value and a desired value are the same for this field. */
export function sameValue(spec: FieldSpec, live: unknown, desired: unknown): boolean {
  if (spec.instants !== undefined) {
    live = withInstants(spec.instants, live);
    desired = withInstants(spec.instants, desired);
  }
  switch (spec.type) {
    case 'stringSet': {
      const a = live as readonly string[];
      const b = desired as readonly string[];
      if (a.length !== b.length) return false;
      // Listed in the same order (as most are, and every empty one): equal without two sorted copies.
      let same = 0;
      while (same < a.length && a[same] === b[same]) same++;
      if (same === a.length) return true;
      const sa = [...a].sort();
      const sb = [...b].sort();
      return sa.every((v, i) => v === sb[i]);
    }
    case 'object':
    case 'roleRef':
      return live === undefined || desired === undefined ? live === desired : sameJson(live, desired);
    default:
      return live === desired;
  }
}
