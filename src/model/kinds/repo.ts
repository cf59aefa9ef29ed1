/**
 * Registry repos; the readme is a sub-resource with its own GET and PATCH (its `subResource`);
 * `bundles` are a set of keywords and `syncConfig` a catalog entitlement, updated leaf by leaf;
 * `tier` is the API's `catalogTier` (its zero value, unset, is not sent); `aliases` and
 * `activeTags` are sets (DESIGN.md §2 rev 5: managed as the provider manages them).
 */
import { namedAddress } from '../address.js';
import { canonicalJson, declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
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

/**
 * A syncConfig whose apkoOverlay (JSON text) is in one spelling — its JSON with keys sorted and no
 * spaces — so that the service re-serializing it, or a manifest writing it over several lines, is
 * no change (it compares as JSON, not as text); text that is not JSON is left as it is.
 */
function withCanonicalOverlay(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const overlay = (value as Record<string, unknown>).apkoOverlay;
  if (typeof overlay !== 'string' || overlay === '') return value;
  const parsed = jsonObjectOf(overlay);
  if (parsed === undefined) return value;
  const canonical = canonicalJson(parsed);
  return canonical === overlay ? value : { ...value, apkoOverlay: canonical };
}

/** A repo's fields, as declared (declarations.ts); the readme is a sub-resource of its own. */
export type RepoFields = Declared<'repo'>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.repo, {
  readme: { subResource: { path: 'readme', bodyField: 'content' }, block: true },
  syncConfig: { leafMask: true, instants: ['expiration'], normalize: withCanonicalOverlay },
  tier: { apiName: 'catalogTier', optional: true },
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
    return [{ pointer: ['syncConfig', 'apkoOverlay'], message: `syncConfig.apkoOverlay of repo ${JSON.stringify(key)} is not JSON text of an object; expected an apko configuration such as {"contents":{"packages":["curl"]}} (or "" for none)` }];
  },
});
