/**
 * The resource kinds platform-sync manages, and the facts about each that the emulator, the
 * API client, the live-state reader, the planner and the executor all share (DESIGN.md §2).
 * One table, so that a path or a field name is written exactly once.
 */

export const KINDS = ['group', 'identity', 'role', 'roleBinding', 'repo', 'tag', 'subscription'] as const;
export type Kind = (typeof KINDS)[number];

/** Every kind the API serves, including the read-only ones platform-sync never plans. */
export type ApiKind = Kind | 'advisory';

export interface KindInfo {
  /** Collection path: `GET` lists, `POST {collection}/{parent}` creates, `{collection}/{uid}` is one item. */
  readonly collection: string;
  /** Name of the array in a List envelope. */
  readonly plural: string;
  /** Natural key field among siblings (what an address names), or null when the key is derived. */
  readonly keyField: 'name' | 'sink' | null;
  /** Fields the API accepts on create (body). */
  readonly createFields: readonly string[];
  /** Fields PATCH may change; empty means the kind has no update. */
  readonly updatableFields: readonly string[];
  /** Whether List accepts the exact-match `name` filter. */
  readonly nameFilter: boolean;
  /** Parent kind: the resource's uid is `<parent uid>/<16 hex>`. */
  readonly parentKind: 'group' | 'repo';
}

export const KIND_INFO: Readonly<Record<ApiKind, KindInfo>> = {
  group: {
    collection: '/iam/v2/groups',
    plural: 'groups',
    keyField: 'name',
    createFields: ['name', 'description'],
    updatableFields: ['name', 'description'],
    nameFilter: true,
    parentKind: 'group',
  },
  identity: {
    collection: '/iam/v2/identities',
    plural: 'identities',
    keyField: 'name',
    createFields: ['name', 'description', 'claimMatch'],
    updatableFields: ['name', 'description', 'claimMatch'],
    nameFilter: true,
    parentKind: 'group',
  },
  role: {
    collection: '/iam/v2/roles',
    plural: 'roles',
    keyField: 'name',
    createFields: ['name', 'description', 'capabilities'],
    updatableFields: ['name', 'description', 'capabilities'],
    nameFilter: true,
    parentKind: 'group',
  },
  roleBinding: {
    collection: '/iam/v2/roleBindings',
    plural: 'roleBindings',
    keyField: null,
    createFields: ['identityUid', 'roleUid'],
    updatableFields: ['roleUid'],
    nameFilter: false,
    parentKind: 'group',
  },
  repo: {
    collection: '/registry/v2/repos',
    plural: 'repos',
    keyField: 'name',
    createFields: ['name', 'description'],
    updatableFields: ['name', 'description'],
    nameFilter: true,
    parentKind: 'group',
  },
  tag: {
    collection: '/registry/v2/tags',
    plural: 'tags',
    keyField: 'name',
    createFields: ['name', 'digest'],
    updatableFields: [],
    nameFilter: false,
    parentKind: 'repo',
  },
  subscription: {
    collection: '/events/v2/subscriptions',
    plural: 'subscriptions',
    keyField: 'sink',
    createFields: ['sink'],
    updatableFields: [],
    nameFilter: false,
    parentKind: 'group',
  },
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

/** Built-in roles: flat 40-hex uids, no parent, read-only, visible to every token. */
export const BUILTIN_ROLE_NAMES = ['viewer', 'editor', 'owner', 'registry.pull', 'registry.push'] as const;
export type BuiltinRoleName = (typeof BUILTIN_ROLE_NAMES)[number];

/** Capabilities a custom role may hold; anything else is code 3 at the API and an error in validation. */
export const CAPABILITIES = [
  'groups.list',
  'groups.create',
  'groups.update',
  'groups.delete',
  'identity.list',
  'identity.create',
  'identity.update',
  'identity.delete',
  'role_bindings.list',
  'role_bindings.create',
  'role_bindings.delete',
  'repo.list',
  'repo.create',
  'repo.update',
  'repo.delete',
  'tag.list',
  'tag.create',
  'tag.delete',
  'subscriptions.list',
  'subscriptions.create',
  'subscriptions.delete',
  'advisories.list',
] as const;

/** Names of groups, identities, repos and roles (spec: Identity name pattern). */
export const NAME_PATTERN = /^[a-z0-9 ._-]{1,}$/;
export const NAME_PATTERN_SOURCE = '^[a-z0-9 ._-]{1,}$';

/** Order in which kinds are deleted under one group: children first (DESIGN.md §4). */
export const DELETE_ORDER: readonly Kind[] = ['roleBinding', 'tag', 'identity', 'repo', 'subscription', 'role', 'group'];
/** Order in which kinds are created under one group: what others reference first. */
export const CREATE_ORDER: readonly Kind[] = ['group', 'identity', 'role', 'repo', 'subscription', 'roleBinding', 'tag'];

/** Keys of a per-kind `prune` map: the manifest's list names, mapped to the kinds they hold. */
export const PRUNE_KEYS: Readonly<Record<string, Kind>> = {
  groups: 'group',
  identities: 'identity',
  roles: 'role',
  roleBindings: 'roleBinding',
  repos: 'repo',
  subscriptions: 'subscription',
};
