/**
 * `settings` of a manifest set: prune per kind, ignore and protect address globs.
 * Several documents may carry settings: `prune` must then agree (like any scalar set twice),
 * while `ignore` and `protect` lists are joined in file order without repeats.
 */
import { KINDS, type Kind } from '../model/kinds.js';
import { ORG_ADDRESS } from '../model/address.js';
import type { PruneSetting } from '../model/resources.js';
import { suggestClosest } from './suggest.js';

/** Keys of a per-kind `prune` map: the manifest's list names, mapped to the kinds they hold. */
export const PRUNE_KEYS: Readonly<Record<string, Kind>> = {
  groups: 'group',
  identities: 'identity',
  roles: 'role',
  roleBindings: 'roleBinding',
  repos: 'repo',
  subscriptions: 'subscription',
};

/**
 * Converts a `prune` value that passed the schema to the model's PruneSetting (keys become
 * kinds; keys the schema rejects are dropped); undefined when it is not a boolean or a mapping
 * (the schema reports that).
 *
 * A mapping keeps the value as written for messages: JSON.stringify of the result gives the
 * manifest's own `{"widgets":true}` or `{"roleBindings":false}`, not the converted `{}` or
 * `{"roleBinding":false}` — a message that quotes a value the file does not contain sends the
 * reader looking for the wrong thing. The `toJSON` is not enumerable, so comparisons and
 * `Object.entries` see the kinds only.
 */
export function toPruneSetting(value: unknown): PruneSetting | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const out: Partial<Record<Kind, boolean>> = {};
  for (const [key, v] of Object.entries(value)) {
    const kind = PRUNE_KEYS[key];
    if (kind !== undefined && typeof v === 'boolean') out[kind] = v;
  }
  const written = { ...(value as Record<string, unknown>) };
  Object.defineProperty(out, 'toJSON', { value: () => written, enumerable: false });
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
  if (glob === ORG_ADDRESS) return undefined;
  const colon = glob.indexOf(':');
  const prefix = colon < 0 ? glob : glob.slice(0, colon);
  const prefixes = KINDS.map((k) => `${k}:`).join(', ');
  if (colon > 0 && (KINDS as readonly string[]).includes(prefix)) {
    if (colon === glob.length - 1) return `address glob ${JSON.stringify(glob)} in settings.${list} has nothing after "${prefix}:"; expected e.g. "${prefix}:*" or "${prefix}:<path>"`;
    return undefined;
  }
  const kind = suggestClosest(prefix, [...KINDS, ORG_ADDRESS]) ?? (prefix.endsWith('s') ? suggestClosest(prefix.slice(0, -1), KINDS) : undefined);
  const hint = kind === undefined ? '' : ` (did you mean ${JSON.stringify(kind === ORG_ADDRESS ? ORG_ADDRESS : `${kind}${colon < 0 ? ':*' : glob.slice(colon)}`)}?)`;
  return `invalid address glob ${JSON.stringify(glob)} in settings.${list}; expected "org" or a glob that starts with a kind prefix (${prefixes})${hint}`;
}
