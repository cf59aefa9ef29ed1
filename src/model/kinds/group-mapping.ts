/**
 * Group mappings of an identity provider (DESIGN.md §2 ExternalGroupRoleMappings): people in an
 * external (IdP) group get a role on the org. Keyed by what they join, like role bindings; no
 * update — a changed mapping is a delete and a create. Declared under `groupMappings:` of an
 * identity provider; the API's `scope` is always the org's root group.
 */
import { namedAddress, referenceText, type RoleKey } from '../address.js';
import { bodyFieldNames, declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { DeclaredWith } from './declared-types.js';

/** A group mapping's fields, as declared; its role resolved to a key. */
export type GroupMappingFields = DeclaredWith<'groupMapping', { role: RoleKey }>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.groupMapping, {
  externalGroup: { apiName: 'externalGroupId' },
  role: { apiName: 'roleUid', type: 'roleRef' },
});

export const groupMapping = defineKind({
  kind: 'groupMapping',
  label: { one: 'group mapping', many: 'group mappings' },
  api: {
    collection: '/iam/v2/externalGroupRoleMappings',
    plural: 'externalGroupRoleMappings',
    createFields: [...bodyFieldNames(FIELDS), 'scope'],
  },
  parentKind: 'identityProvider',
  keyField: null,
  fields: FIELDS,
  orgScopeField: 'scope',
  manifest: { listKey: 'groupMappings', definition: 'groupMapping', form: 'nested', itemNoun: 'group mapping' },
  deleteReliesOn: ['groupMapping', 'role'],
  access: { is: 'grant', role: 'roleUid', to: 'externalGroup', principalField: 'externalGroupId', scopeField: 'scope' },
  // `groupMapping:identityProvider:<group path>/<idp>/<externalGroup>=<role>`, the role as a binding writes it.
  address: (groupPath, fields, parent) =>
    `groupMapping:${namedAddress('identityProvider', groupPath, String((parent.fields as { name?: unknown }).name))}/${String(fields.externalGroup)}=${fields.role ? referenceText(groupPath, fields.role as RoleKey) : '?'}`,
  describe: (key) => `group mapping of ${JSON.stringify(key)}`,
});
