/** Custom roles: named sets of capabilities owned by a group (built-in roles are not managed). */
import { BUILTIN_ROLE_NAMES_OF_SERVICE } from '../../service/catalog.js';
import { namedAddress } from '../address.js';
import { declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { DeclaredWith } from './declared-types.js';

/**
 * Built-in roles: flat 40-hex uids, no parent, read-only, visible to every token. Their names are
 * the service's (src/service/capabilities.json); what each can do is read from the roles list.
 */
export const BUILTIN_ROLE_NAMES: readonly string[] = BUILTIN_ROLE_NAMES_OF_SERVICE;
export type BuiltinRoleName = string;

/** A role's fields, as declared; a live role may come without capabilities. */
export type RoleFields = DeclaredWith<'role', { capabilities?: string[] }>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.role);

export const role = defineKind({
  kind: 'role',
  label: { one: 'role', many: 'roles' },
  api: {
    collection: '/iam/v2/roles',
    plural: 'roles',
    nameFilter: true,
  },
  keyField: 'name',
  fields: FIELDS,
  hasUpdate: true,
  renameable: true,
  referenceable: true,
  access: { is: 'capabilities', field: 'capabilities' },
  builtinNames: BUILTIN_ROLE_NAMES,
  manifest: { listKey: 'roles', definition: 'role', form: 'item', itemNoun: 'role' },
  deleteReliesOn: ['role', 'roleBinding'],
  address: (groupPath, fields) => namedAddress('role', groupPath, String(fields.name)),
  describe: (key) => `role ${JSON.stringify(key)}`,
  checkItem(_item, key, where) {
    if (!BUILTIN_ROLE_NAMES.includes(key)) return [];
    return [
      {
        pointer: ['name'],
        message: `custom role ${JSON.stringify(key)} in ${where} has the name of a built-in role and would shadow it; expected a name other than ${BUILTIN_ROLE_NAMES.join(', ')}`,
        fatal: true,
      },
    ];
  },
  // A built-in role, should a scoped listing ever include one: flat uid, not the org's.
  isOrgResource: (item) => item.uid.includes('/'),
});
