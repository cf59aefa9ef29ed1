/** Registry repos; the readme is a sub-resource with its own GET and PATCH (its `subResource`). */
import { namedAddress } from '../address.js';
import type { KindDescriptor } from '../kind-descriptor.js';

export interface RepoFields {
  name: string;
  description?: string;
  /** Markdown readme; a sub-resource on the API (`/registry/v2/repos/{uid}/readme`). */
  readme?: string;
}

export const repo = {
  kind: 'repo',
  label: { one: 'repo', many: 'repos' },
  api: {
    collection: '/registry/v2/repos',
    plural: 'repos',
    nameFilter: true,
    createFields: ['name', 'description'],
    updatableFields: ['name', 'description'],
  },
  parentKind: 'group',
  keyField: 'name',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'description', type: 'string' },
    { name: 'readme', type: 'string', subResource: { path: 'readme', bodyField: 'content' }, block: true },
  ],
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
