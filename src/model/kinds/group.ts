/** Groups: the org's tree. The org itself is the root group (address `org`). */
import { groupAddress } from '../address.js';
import { declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { Declared } from './declared-types.js';

/** A group's fields, as declared (declarations.ts). */
export type GroupFields = Declared<'group'>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.group);

export const group = defineKind({
  kind: 'group',
  label: { one: 'group', many: 'groups' },
  api: {
    collection: '/iam/v2/groups',
    plural: 'groups',
    nameFilter: true,
  },
  keyField: 'name',
  fields: FIELDS,
  hasUpdate: true,
  renameable: true,
  holdsChildren: true,
  access: { is: 'scope' },
  manifest: { listKey: 'groups', definition: 'group', form: 'group', itemNoun: 'group' },
  deleteReliesOn: '*',
  ownsGroupPath: true,
  address: (groupPath) => groupAddress(groupPath),
  describe: (key) => `group ${JSON.stringify(key)}`,
});
