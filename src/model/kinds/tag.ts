/** Image tags: children of a repo, published by CI; never declared in manifests, never updated. */
import { joinPath, tagAddress } from '../address.js';
import type { KindDescriptor } from '../kind-descriptor.js';

export interface TagFields {
  name: string;
  digest: string;
  deprecated: boolean;
}

export const tag = {
  kind: 'tag',
  label: { one: 'tag', many: 'tags' },
  api: {
    collection: '/registry/v2/tags',
    plural: 'tags',
    nameFilter: false,
    createFields: ['name', 'digest'],
    updatableFields: [],
  },
  parentKind: 'repo',
  keyField: 'name',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'digest', type: 'string' },
    // A server-side state the API does not let a client set: shown, never compared.
    { name: 'deprecated', type: 'boolean', compared: false },
  ],
  hasUpdate: false,
  renameable: false,
  holdsChildren: false,
  referenceable: false,
  manifest: null,
  deleteReliesOn: ['tag'],
  ownsGroupPath: false,
  address: (_groupPath, fields, repo) => tagAddress(joinPath(repo.groupPath, String((repo.fields as { name?: unknown }).name)), String(fields.name)),
  describe: (key) => `tag ${JSON.stringify(key)}`,
} as const satisfies KindDescriptor<'tag'>;
