/**
 * Account associations (DESIGN.md §2): the cloud and code accounts a group is tied to (Amazon,
 * Google, Azure, GitHub, Chainguard). At most one per group, and its uid *is* the group's: so it
 * is addressed by its group (`accountAssociation:<group path>`, `accountAssociation:/` for the
 * org's), declared as a single `accountAssociation:` on the group, and updated by a PATCH
 * whose mask names the blocks that changed.
 */
import type { KindDescriptor } from '../kind-descriptor.js';

export interface AccountAssociationFields {
  name: string;
  description?: string;
  amazon?: { account: string };
  google?: { projectId?: string; projectNumber?: string };
  azure?: { tenantId: string; clientIds?: Record<string, string> };
  github?: { installations: { installationId: string; name?: string }[] };
  chainguard?: { serviceBindings?: Record<string, string> };
}

export const ACCOUNT_BLOCKS = ['amazon', 'google', 'azure', 'github', 'chainguard'] as const;

export const accountAssociation = {
  kind: 'accountAssociation',
  label: { one: 'account association', many: 'account associations' },
  api: {
    collection: '/iam/v2/accountAssociations',
    plural: 'accountAssociations',
    nameFilter: false,
    createFields: ['name', 'description', ...ACCOUNT_BLOCKS],
    updatableFields: ['name', 'description', ...ACCOUNT_BLOCKS],
  },
  parentKind: 'group',
  keyField: null,
  uidIsParent: true,
  fields: [
    { name: 'name', type: 'string' },
    { name: 'description', type: 'string' },
    ...ACCOUNT_BLOCKS.map((name) => ({ name, type: 'object' as const })),
  ],
  hasUpdate: true,
  renameable: false,
  holdsChildren: false,
  referenceable: false,
  manifest: { listKey: 'accountAssociation', definition: 'accountAssociation', form: 'single', itemNoun: 'account association' },
  deleteReliesOn: ['accountAssociation'],
  ownsGroupPath: false,
  address: (groupPath) => `accountAssociation:${groupPath === '' ? '/' : groupPath}`,
  describe: () => 'account association',
} as const satisfies KindDescriptor<'accountAssociation'>;
