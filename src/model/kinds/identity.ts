/** Identities: who may log in (a workload matched by the claims of its OIDC token). */
import { namedAddress } from '../address.js';
import type { KindDescriptor } from '../kind-descriptor.js';
import { isUrl } from '../../util/url.js';

export interface ClaimMatch {
  issuer: string;
  subject: string;
}

export interface IdentityFields {
  name: string;
  description?: string;
  claimMatch?: ClaimMatch;
}

export const identity = {
  kind: 'identity',
  label: { one: 'identity', many: 'identities' },
  api: {
    collection: '/iam/v2/identities',
    plural: 'identities',
    nameFilter: true,
    createFields: ['name', 'description', 'claimMatch'],
    updatableFields: ['name', 'description', 'claimMatch'],
  },
  parentKind: 'group',
  keyField: 'name',
  fields: [
    { name: 'name', type: 'string' },
    { name: 'description', type: 'string' },
    { name: 'claimMatch', type: 'object' },
  ],
  hasUpdate: true,
  renameable: true,
  holdsChildren: false,
  referenceable: true,
  manifest: { listKey: 'identities', definition: 'identity', form: 'item', itemNoun: 'identity' },
  deleteReliesOn: ['identity', 'roleBinding'],
  ownsGroupPath: false,
  address: (groupPath, fields) => namedAddress('identity', groupPath, String(fields.name)),
  describe: (key) => `identity ${JSON.stringify(key)}`,
  checkItem(item, key) {
    const claim = item.claimMatch;
    const issuer = typeof claim === 'object' && claim !== null ? (claim as Record<string, unknown>).issuer : undefined;
    if (typeof issuer !== 'string' || issuer === '' || isUrl(issuer)) return [];
    return [
      {
        pointer: ['claimMatch', 'issuer'],
        message: `issuer ${JSON.stringify(issuer)} of identity ${JSON.stringify(key)} is not a URL; expected the token issuer's URL, e.g. https://token.actions.githubusercontent.com`,
      },
    ];
  },
} as const satisfies KindDescriptor<'identity'>;
