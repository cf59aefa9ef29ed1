/**
 * Registry repos; the readme is a sub-resource with its own GET and PATCH (its `subResource`);
 * `bundles` are a set of keywords and `syncConfig` a catalog entitlement, updated leaf by leaf.
 */
import { namedAddress } from '../address.js';
import { bodyFieldNames, declaredFieldSpecs, type KindDescriptor } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { Declared } from './declared-types.js';

/** A repo's fields, as declared (declarations.ts); the readme is a sub-resource of its own. */
export type RepoFields = Declared<'repo'>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.repo, {
  readme: { subResource: { path: 'readme', bodyField: 'content' }, block: true },
  syncConfig: { leafMask: true, instants: ['expiration'] },
});

export const repo = {
  kind: 'repo',
  label: { one: 'repo', many: 'repos' },
  api: {
    collection: '/registry/v2/repos',
    plural: 'repos',
    nameFilter: true,
    createFields: bodyFieldNames(FIELDS),
    updatableFields: bodyFieldNames(FIELDS),
  },
  parentKind: 'group',
  keyField: 'name',
  fields: FIELDS,
  hasUpdate: true,
  renameable: true,
  holdsChildren: true,
  referenceable: false,
  manifest: { listKey: 'repos', definition: 'repo', form: 'item', itemNoun: 'repo' },
  deleteReliesOn: ['repo', 'tag'],
  ownsGroupPath: false,
  address: (groupPath, fields) => namedAddress('repo', groupPath, String(fields.name)),
  describe: (key) => `repo ${JSON.stringify(key)}`,
} as const satisfies KindDescriptor<'repo'>;
