/** Image tags: children of a repo, published by CI; never declared in manifests, never updated. */
import { joinPath, tagAddress } from '../address.js';
import { bodyFieldNames, declaredFieldSpecs, type KindDescriptor } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { Declared, DeclaredWith } from './declared-types.js';

/** A tag's fields, as declared; live state always says whether it is deprecated. */
export type TagFields = DeclaredWith<'tag', { deprecated: boolean }>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.tag, {
  // A server-side state the API does not let a client set: shown, never compared.
  deprecated: { compared: false },
});

export const tag = {
  kind: 'tag',
  label: { one: 'tag', many: 'tags' },
  api: {
    collection: '/registry/v2/tags',
    plural: 'tags',
    nameFilter: false,
    createFields: bodyFieldNames(FIELDS),
    updatableFields: [],
  },
  parentKind: 'repo',
  keyField: 'name',
  fields: FIELDS,
  hasUpdate: false,
  renameable: false,
  holdsChildren: false,
  referenceable: false,
  manifest: null,
  goesWithParent: true,
  deleteReliesOn: ['tag'],
  ownsGroupPath: false,
  address: (_groupPath, fields, repo) => tagAddress(joinPath(repo.groupPath, String((repo.fields as { name?: unknown }).name)), String(fields.name)),
  describe: (key) => `tag ${JSON.stringify(key)}`,
} as const satisfies KindDescriptor<'tag'>;
