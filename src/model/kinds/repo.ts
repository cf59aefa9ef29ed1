/**
 * Registry repos; the readme is a sub-resource with its own GET and PATCH (its `subResource`);
 * `bundles` are a set of keywords and `syncConfig` a catalog entitlement, updated leaf by leaf;
 * `tier` is the API's `catalogTier` enum (sent in full; its zero value, `""` and absence are unset);
 * `aliases` (image references with a tag) and `activeTags` are sets; syncConfig's mirrors are
 * repository strings (DESIGN.md §2 rev 6: the service's shapes, managed as the provider manages them).
 */
import { namedAddress } from '../address.js';
import { canonicalJson, declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { fullCatalogTier, shortCatalogTier } from '../vocabulary.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { Declared } from './declared-types.js';

/** JSON text of an object (an apko overlay): its value, else undefined. */
const jsonObjectOf = (text: string): object | undefined => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
};

/** The zero values of syncConfig's optional members: what the service's JSON gateway sends for one that is unset. */
const SYNC_ZERO_VALUES: Readonly<Record<string, unknown>> = {
  syncApks: false,
  uniqueTags: false,
  gracePeriod: false,
  amazon: '',
  google: '',
  azure: '',
  apkoOverlay: '',
};

/**
 * A syncConfig in one spelling, read from the API or a manifest alike: whole — a member left out
 * holds its zero value (`false`, `""`), as the service reads an unset member and answers it
 * (DESIGN.md §2 rev 6: every field sent, zero values included), so that a manifest that leaves
 * `gracePeriod` out and a service that answers `gracePeriod: false` agree, and a create sends
 * every member exactly — and the apkoOverlay (JSON text) as its JSON with keys sorted and no
 * spaces, so that the service re-serializing it, or a manifest writing it over several lines, is
 * no change (it compares as JSON, not as text); overlay text that is not JSON is left as it is.
 */
function normalSyncConfig(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const config = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const member of Object.keys(SYNC_ZERO_VALUES))
    if (config[member] === undefined) (out ??= { ...config })[member] = SYNC_ZERO_VALUES[member];
  const overlay = config.apkoOverlay;
  if (typeof overlay === 'string' && overlay !== '') {
    const parsed = jsonObjectOf(overlay);
    const canonical = parsed === undefined ? overlay : canonicalJson(parsed);
    if (canonical !== overlay) (out ??= { ...config }).apkoOverlay = canonical;
  }
  return out ?? value;
}

/** A syncConfig as a manifest writes it: the members at their zero value left out (they mean the same). */
function syncConfigAsWritten(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(
    Object.entries(value).filter(([member, v]) => !(member in SYNC_ZERO_VALUES) || v !== SYNC_ZERO_VALUES[member]),
  );
}

/** A repo's fields, as declared (declarations.ts); the readme is a sub-resource of its own. */
export type RepoFields = Declared<'repo'>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.repo, {
  readme: { subResource: { path: 'readme', bodyField: 'content' }, block: true },
  syncConfig: {
    leafMask: true,
    instants: ['expiration'],
    normalize: normalSyncConfig,
    manifestForm: syncConfigAsWritten,
  },
  // Sent in full (CATALOG_TIER_FIPS), read in full or short; the zero value is unset; a manifest spells it short.
  tier: { apiName: 'catalogTier', optional: true, normalize: fullCatalogTier, manifestForm: shortCatalogTier },
});

export const repo = defineKind({
  kind: 'repo',
  label: { one: 'repo', many: 'repos' },
  api: {
    collection: '/registry/v2/repos',
    plural: 'repos',
    nameFilter: true,
  },
  keyField: 'name',
  fields: FIELDS,
  hasUpdate: true,
  renameable: true,
  holdsChildren: true,
  manifest: { listKey: 'repos', definition: 'repo', form: 'item', itemNoun: 'repo' },
  deleteReliesOn: ['repo', 'tag'],
  address: (groupPath, fields) => namedAddress('repo', groupPath, String(fields.name)),
  describe: (key) => `repo ${JSON.stringify(key)}`,
  checkItem(item, key) {
    // The schema checks the type; the text must also be what it says it is: a JSON object.
    const overlay = (item.syncConfig as Record<string, unknown> | undefined)?.apkoOverlay;
    if (typeof overlay !== 'string' || overlay === '' || jsonObjectOf(overlay)) return [];
    return [
      {
        pointer: ['syncConfig', 'apkoOverlay'],
        message: `syncConfig.apkoOverlay of repo ${JSON.stringify(key)} is not JSON text of an object; expected an apko configuration such as {"contents":{"packages":["curl"]}} (or "" for none)`,
      },
    ];
  },
});
