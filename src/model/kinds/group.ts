/** Groups: the org's tree. The org itself is the root group (address `org`). */
import { groupAddress } from '../address.js';
import type { KindDescriptor } from '../kind-descriptor.js';

export interface GroupFields {
  name: string;
  description?: string;
}

export const group = {
  kind: 'group',
  label: { one: 'group', many: 'groups' },
  api: {
    collection: '/iam/v2/groups',
    plural: 'groups',
    nameFilter: true,
    createFields: ['name', 'description'],
    updatableFields: ['name', 'description'],
  },
  parentKind: 'group',
  keyField: 'name',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'description', type: 'string' },
  ],
  hasUpdate: true,
  renameable: true,
  holdsChildren: true,
  referenceable: false,
  manifest: { listKey: 'groups', definition: 'group', form: 'group', itemNoun: 'group' },
  deleteReliesOn: '*',
  ownsGroupPath: true,
  address: (groupPath) => groupAddress(groupPath),
  describe: (key) => `group ${JSON.stringify(key)}`,
} as const satisfies KindDescriptor<'group'>;
