/**
 * The resource kinds platform-sync manages: the registry of their descriptors (one file each in
 * `kinds/`, see kind-descriptor.ts) and the tables other code reads, all derived from them.
 * Adding a kind is a descriptor file, one line here, its schema and its emulator part.
 */
import { parentPath } from './address.js';
import type { FieldSpec, KindDescriptor, SubResource } from './kind-descriptor.js';
import type { Declared } from './kinds/declared-types.js';
import { group, type GroupFields } from './kinds/group.js';
import { identity, type IdentityFields } from './kinds/identity.js';
import { role, type RoleFields } from './kinds/role.js';
import { roleBinding, type RoleBindingFields } from './kinds/role-binding.js';
import { repo, type RepoFields } from './kinds/repo.js';
import { tag, type TagFields } from './kinds/tag.js';
import { subscription, type SubscriptionFields } from './kinds/subscription.js';
import { identityProvider, type IdentityProviderFields } from './kinds/identity-provider.js';
import { groupMapping, type GroupMappingFields } from './kinds/group-mapping.js';
import { accountAssociation, type AccountAssociationFields } from './kinds/account-association.js';
import { terms, type TermsFields } from './kinds/terms.js';
import { groupInvite, type GroupInviteFields } from './kinds/group-invite.js';

export { BUILTIN_ROLE_NAMES, type BuiltinRoleName } from './kinds/role.js';
export type { ClaimMatch } from './kinds/identity.js';

/** Every managed kind, in the order manifests and views list them. */
export const DESCRIPTORS = [
  group,
  identity,
  role,
  roleBinding,
  repo,
  tag,
  subscription,
  identityProvider,
  groupMapping,
  accountAssociation,
  terms,
  groupInvite,
] as const;

export type Kind = (typeof DESCRIPTORS)[number]['kind'];
export const KINDS: readonly Kind[] = DESCRIPTORS.map((d) => d.kind);

/** Managed fields per kind (see resources.ts for how absent fields read). */
export interface FieldsByKind {
  group: GroupFields;
  identity: IdentityFields;
  role: RoleFields;
  roleBinding: RoleBindingFields;
  repo: RepoFields;
  tag: TagFields;
  subscription: SubscriptionFields;
  identityProvider: IdentityProviderFields;
  groupMapping: GroupMappingFields;
  accountAssociation: AccountAssociationFields;
  terms: TermsFields;
  groupInvite: GroupInviteFields;
}

/**
 * The build fails unless every kind's field type has exactly the declared fields (role bindings
 * aside: theirs are references, not fields); see declarations.ts. Types only: erased at run time.
 */
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type FieldTypesMatchDeclaration = { [K in Exclude<Kind, 'roleBinding'>]: SameKeys<FieldsByKind[K], Declared<K>> };
type AllTrue<T> = false extends T[keyof T] ? false : true;
export type FieldTypesAgree = AllTrue<FieldTypesMatchDeclaration> extends true ? true : never;
const fieldTypesAgree: FieldTypesAgree = true;
void fieldTypesAgree;

const BY_KIND = new Map<string, KindDescriptor>(DESCRIPTORS.map((d) => [d.kind, d]));

/** The descriptor of a kind. */
export function descriptorOf(kind: Kind): KindDescriptor<Kind> {
  return BY_KIND.get(kind) as KindDescriptor<Kind>;
}

/** The fields of a kind that name a role (type `roleRef`: an identity provider's default role, a mapping's role), found once per kind. */
export function roleRefFields(kind: Kind): readonly FieldSpec[] {
  let fields = ROLE_REF_FIELDS.get(kind);
  if (!fields) ROLE_REF_FIELDS.set(kind, (fields = descriptorOf(kind).fields.filter((f) => f.type === 'roleRef')));
  return fields;
}
const ROLE_REF_FIELDS = new Map<Kind, readonly FieldSpec[]>();

/** A field kept as a sub-resource at its own path (see KindDescriptor `subResource`). */
export type SubResourceField = FieldSpec & { readonly subResource: SubResource };

/** The fields of a kind that are sub-resources, found once per kind (none for most kinds). */
export function subResourceFields(kind: Kind): readonly SubResourceField[] {
  let fields = SUB_RESOURCE_FIELDS.get(kind);
  if (!fields)
    SUB_RESOURCE_FIELDS.set(
      kind,
      (fields = descriptorOf(kind).fields.filter((f): f is SubResourceField => f.subResource !== undefined)),
    );
  return fields;
}
const SUB_RESOURCE_FIELDS = new Map<Kind, readonly SubResourceField[]>();

/** The one kind whose descriptor says `is`; its type is checked when the module loads. */
function theKind<K extends Kind>(expected: K, is: (d: KindDescriptor) => boolean): K {
  const found = DESCRIPTORS.filter((d) => is(d as KindDescriptor)).map((d) => d.kind);
  if (found.length !== 1 || found[0] !== expected)
    throw new Error(`internal error: the descriptors make ${found.join(', ') || 'no kind'} what ${expected} is`);
  return expected;
}

/**
 * What a kind is to members and to structure (DESIGN.md §4), read from the descriptors once: an
 * identity is who can act (a person when the service reports an e-mail); an invite grants a role
 * to an e-mail; a binding grants one to an identity; a group owns a group path. Compared with a
 * resource's `kind` where it is read (`r.kind === INVITE_KIND`), which narrows its type — and
 * keeps each such read a property load of its own call site (a shared predicate made every one
 * polymorphic: issue 51).
 */
export const PRINCIPAL_KIND = theKind('identity', (d) => d.access?.is === 'principal');
export const INVITE_KIND = theKind('groupInvite', (d) => d.access?.is === 'grant' && d.access.to === 'email');
export const IDENTITY_GRANT_KIND = theKind(
  'roleBinding',
  (d) => d.access?.is === 'grant' && d.access.to === 'identity',
);
export const GROUP_KIND = theKind('group', (d) => d.ownsGroupPath);

/** The group a resource is declared in: a group is declared in its parent (its own path is its parent's plus its name). */
export function declaringGroupPath(r: { readonly kind: Kind; readonly groupPath: string }): string {
  return r.kind === GROUP_KIND ? parentPath(r.groupPath) : r.groupPath;
}

/** True when `value` names a managed kind. */
export function isKind(value: string): value is Kind {
  return BY_KIND.has(value);
}

/** Every kind the API serves, including the read-only ones platform-sync never plans. */
export type ApiKind = Kind | 'advisory';

/** What the API client and the emulator need of a kind (a view of the descriptors). */
export interface KindInfo {
  readonly collection: string;
  readonly plural: string;
  readonly keyField: 'name' | 'sink' | 'docId' | null;
  readonly createFields: readonly string[];
  readonly updatableFields: readonly string[];
  readonly nameFilter: boolean;
  readonly parentKind: 'group' | 'repo' | 'identityProvider';
  /** See KindDescriptor: a uid made for items the API gives none, and a create that may safely repeat. */
  readonly uidOf?: (item: Readonly<Record<string, unknown>>, parentUid: string) => string;
  readonly idempotentCreate?: boolean;
  /** See KindDescriptor `references`: what the kind's items reference, sent as `<reference>Uid`. */
  readonly references?: readonly string[];
  /** Items may stand without a parent (root groups: the kinds that own a group path). */
  readonly rootable?: true;
}

function kindInfo(d: KindDescriptor): KindInfo {
  return {
    ...d.api,
    keyField: d.keyField,
    parentKind: d.parentKind,
    ...(d.uidOf ? { uidOf: d.uidOf.bind(d) } : {}),
    ...(d.permanent ? { idempotentCreate: true } : {}),
    ...(d.references ? { references: d.references } : {}),
    ...(d.ownsGroupPath ? { rootable: true as const } : {}),
  };
}

export const KIND_INFO: Readonly<Record<ApiKind, KindInfo>> = {
  ...(Object.fromEntries(DESCRIPTORS.map((d) => [d.kind, kindInfo(d)])) as Record<Kind, KindInfo>),
  // Read-only, never planned: served by the emulator, listed by nobody here.
  advisory: {
    collection: '/vulnerabilities/v2/advisories',
    plural: 'advisories',
    keyField: null,
    createFields: [],
    updatableFields: [],
    nameFilter: false,
    parentKind: 'group',
  },
};

/**
 * Order in which kinds are created under one group: what others reference (groups, then
 * identities and roles) first, bindings after them, a repo's tags after the repo. The live-state
 * builder places resources in this order too (a parent and a referenced resource come first).
 */
export const CREATE_ORDER: readonly Kind[] = [
  group.kind,
  identity.kind,
  role.kind,
  identityProvider.kind,
  groupMapping.kind,
  accountAssociation.kind,
  terms.kind,
  repo.kind,
  subscription.kind,
  roleBinding.kind,
  groupInvite.kind,
  tag.kind,
];
/** Order in which kinds are deleted under one group: children and references first (DESIGN.md §4). */
export const DELETE_ORDER: readonly Kind[] = [
  roleBinding.kind,
  groupInvite.kind,
  tag.kind,
  groupMapping.kind,
  identityProvider.kind,
  accountAssociation.kind,
  terms.kind,
  identity.kind,
  repo.kind,
  subscription.kind,
  role.kind,
  group.kind,
];

/** Keys of a per-kind `prune` map: the manifest's list names, mapped to the kinds they hold. */
export const PRUNE_KEYS: Readonly<Record<string, Kind>> = Object.fromEntries(
  // A permanent kind (accepted terms) is never deleted: there is nothing to prune.
  DESCRIPTORS.flatMap((d): [string, Kind][] => {
    if ('pruneKey' in d && d.pruneKey !== undefined) return [[d.pruneKey, d.kind]];
    return d.manifest && !('permanent' in d && d.permanent) ? [[d.manifest.listKey, d.kind]] : [];
  }),
);

/** "repo", "role bindings": the kind as a reader says it, for `n` of them. */
export function kindLabel(kind: Kind, n: number): string {
  const { label } = descriptorOf(kind);
  return n === 1 ? label.one : label.many;
}

/** "1 repo", "3 role bindings". */
export function countLabel(kind: Kind, n: number): string {
  return `${n} ${kindLabel(kind, n)}`;
}

/** The kinds whose complete listing deleting a resource of `kind` relies on (see KindDescriptor). */
export function deleteReliesOn(kind: Kind): readonly Kind[] {
  const relies = descriptorOf(kind).deleteReliesOn;
  return relies === '*' ? KINDS : (relies as readonly Kind[]);
}

/**
 * Every capability the resources' roles hold (a kind whose access part is `capabilities`): what
 * live knows, beyond the service's catalog when the service added names since (DESIGN.md §2
 * rev 6) — an export carries them, and validates its files knowing them.
 */
export function capabilitiesHeld(resources: readonly { kind: Kind; fields: unknown }[]): Set<string> {
  const held = new Set<string>();
  for (const r of resources) {
    const access = descriptorOf(r.kind).access;
    const names = access?.is === 'capabilities' ? (r.fields as Record<string, unknown>)[access.field] : undefined;
    if (Array.isArray(names)) for (const name of names) held.add(String(name));
  }
  return held;
}
