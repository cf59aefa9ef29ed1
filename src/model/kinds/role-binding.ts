/**
 * Role bindings: an identity granted a role on a group. Their key is what they join (identity
 * and role, see address.ts), so they have no managed fields of their own; a changed role is one
 * PATCH of `roleUid`.
 */
import { referenceText, roleBindingAddress, type IdentityKey, type RoleKey } from '../address.js';
import { declaredFieldSpecs, defineKind, referenceUidField } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';

export interface RoleBindingFields {
  identity: IdentityKey;
  role: RoleKey;
}

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.roleBinding);
/** What a binding references: sent as `identityUid` and `roleUid`, kept as keys (address.ts). */
const REFERENCES = ['identity', 'role'] as const;

export const roleBinding = defineKind({
  kind: 'roleBinding',
  label: { one: 'role binding', many: 'role bindings' },
  api: {
    collection: '/iam/v2/roleBindings',
    plural: 'roleBindings',
    createFields: REFERENCES.map(referenceUidField),
    // A binding's identity is what it is; its role may change (one PATCH of roleUid).
    updatableFields: [referenceUidField('role')],
  },
  keyField: null,
  references: REFERENCES,
  fields: FIELDS,
  hasUpdate: true,
  access: { is: 'grant', role: 'roleUid', to: 'identity', principalField: 'identityUid' },
  manifest: { listKey: 'roleBindings', definition: 'roleBinding', form: 'binding', itemNoun: 'role binding' },
  deleteReliesOn: ['roleBinding', 'identity', 'role'],
  address: (groupPath, fields) => roleBindingAddress(groupPath, fields.identity as IdentityKey, fields.role as RoleKey),
  describe: () => 'role binding',
  display: (groupPath, fields) => ({
    identity: referenceText(groupPath, fields.identity as IdentityKey),
    role: referenceText(groupPath, fields.role as RoleKey),
  }),
});
