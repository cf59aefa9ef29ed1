/**
 * Account associations (DESIGN.md §2): the cloud and code accounts a group is tied to (Amazon,
 * Google, Azure, GitHub, Chainguard). At most one per group, and its uid *is* the group's: so it
 * is addressed by its group (`accountAssociation:<group path>`, `accountAssociation:/` for the
 * org's), declared as a single `accountAssociation:` on the group, and updated by a PATCH
 * whose mask names the blocks that changed.
 */
import { declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { Declared } from './declared-types.js';

/** An account association's fields, as declared (declarations.ts). */
export type AccountAssociationFields = Declared<'accountAssociation'>;

export const ACCOUNT_BLOCKS = ['amazon', 'google', 'azure', 'github', 'chainguard'] as const;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.accountAssociation);

export const accountAssociation = defineKind({
  kind: 'accountAssociation',
  label: { one: 'account association', many: 'account associations' },
  api: {
    collection: '/iam/v2/accountAssociations',
    plural: 'accountAssociations',
  },
  keyField: null,
  uidIsParent: true,
  fields: FIELDS,
  hasUpdate: true,
  manifest: {
    listKey: 'accountAssociation',
    definition: 'accountAssociation',
    form: 'single',
    itemNoun: 'account association',
  },
  address: (groupPath) => `accountAssociation:${groupPath === '' ? '/' : groupPath}`,
  describe: () => 'account association',
});
