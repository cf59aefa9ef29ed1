/**
 * Identity providers: SSO for people through an OIDC provider (DESIGN.md §2). Its `defaultRole`
 * is a role reference resolved like a binding's; its client secret is write-only and declared
 * only as a reference (`{fromEnv}`/`{fromFile}`), sent by the create and by
 * `apply --rotate-secrets`, and never kept anywhere else.
 */
import { namedAddress, type RoleKey } from '../address.js';
import { bodyFieldNames, declaredFieldSpecs, defineKind, type ItemProblem } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { Declared, DeclaredWith } from './declared-types.js';
import { isHttpsUrl, nonAsciiUrlProblem } from '../../util/url.js';

/** The OIDC settings as declared, without the client secret: that is a secret reference (DesiredResource.secrets). */
export type Oidc = Omit<Declared<'identityProvider'>['oidc'], 'clientSecret'>;

/** An identity provider's fields, as declared; its default role resolved to a key, and optional on live ones. */
export type IdentityProviderFields = DeclaredWith<'identityProvider', { defaultRole?: RoleKey; oidc?: Oidc }>;

/** The one secret of an identity provider, as a dotted path into its body. */
export const CLIENT_SECRET = 'oidc.clientSecret';

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.identityProvider, { defaultRole: { type: 'roleRef' } });

export const identityProvider = defineKind({
  kind: 'identityProvider',
  label: { one: 'identity provider', many: 'identity providers' },
  api: {
    collection: '/iam/v2/identityProviders',
    plural: 'identityProviders',
    nameFilter: true,
    updatableFields: [...bodyFieldNames(FIELDS), CLIENT_SECRET],
  },
  keyField: 'name',
  fields: FIELDS,
  secretPaths: [CLIENT_SECRET],
  hasUpdate: true,
  renameable: true,
  // Its group mappings are its children.
  holdsChildren: true,
  manifest: {
    listKey: 'identityProviders',
    definition: 'identityProvider',
    form: 'item',
    itemNoun: 'identity provider',
  },
  deleteReliesOn: ['identityProvider', 'groupMapping'],
  access: { is: 'grant', role: 'defaultRole', to: 'signIn' },
  address: (groupPath, fields) => namedAddress('identityProvider', groupPath, String(fields.name)),
  describe: (key) => `identity provider ${JSON.stringify(key)}`,
  checkItem(item, key) {
    const oidc = item.oidc;
    if (typeof oidc !== 'object' || oidc === null) return [];
    const o = oidc as Record<string, unknown>;
    const problems: ItemProblem[] = [];
    const ascii =
      typeof o.issuer === 'string'
        ? nonAsciiUrlProblem(`oidc.issuer of identity provider ${JSON.stringify(key)}`, o.issuer)
        : undefined;
    if (ascii) problems.push({ pointer: ['oidc', 'issuer'], message: ascii });
    else if (typeof o.issuer === 'string' && !isHttpsUrl(o.issuer)) {
      problems.push({
        pointer: ['oidc', 'issuer'],
        message: `oidc.issuer ${JSON.stringify(o.issuer)} of identity provider ${JSON.stringify(key)} is not an https URL; expected the OIDC issuer, e.g. https://acme.okta.com`,
      });
    }
    const secret = o.clientSecret;
    if (secret !== undefined && (typeof secret !== 'object' || secret === null || Array.isArray(secret))) {
      problems.push({
        pointer: ['oidc', 'clientSecret'],
        message: `the client secret of identity provider ${JSON.stringify(key)} is written literally; a secret is never kept in manifests: expected {fromEnv: VARIABLE} or {fromFile: path}`,
      });
    }
    return problems;
  },
});
