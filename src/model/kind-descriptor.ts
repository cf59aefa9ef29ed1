/**
 * What a kind *is*, written once (STYLE.md §11): its API collection, parent, address, manifest
 * list, labels, managed fields and how each is compared, defaulted, created and masked, whether
 * it has an update, and where it sits in the create and delete orders. One descriptor per kind
 * lives in `src/model/kinds/`; `src/model/kinds.ts` collects them. The resolver, live-state
 * builder, planner, exporter and views iterate descriptors instead of switching on kind names.
 */
import type { SourceLocation } from './resources.js';
import { withInstants } from './field-values.js';

/**
 * How a managed field behaves, by the shape of its value:
 * - `string`: compared exactly; an absent live value is `''` (the API leaves strings empty);
 * - `stringSet`: a list whose order carries no meaning; absent live is `[]`;
 * - `object`: a nested object compared as a whole (canonical JSON); absent live is absent;
 * - `boolean`: absent live is `false`;
 * - `roleRef`: a role, as a role binding names one (`RoleKey`): the API sends its uid, the
 *   manifest its name or path, which the resolver resolves; absent live is absent.
 */
export type FieldType = 'string' | 'stringSet' | 'object' | 'boolean' | 'roleRef';

export interface FieldSpec {
  /** The field's name in the manifest (and in the API and plan steps, unless `apiName` says otherwise). */
  readonly name: string;
  /** The field's name in the API and in plan steps, when it is not `name` (`externalGroupId`). */
  readonly apiName?: string;
  readonly type: FieldType;
  /** Compared with live to decide an update (default true); false = shown only (a tag's `deprecated`). */
  readonly compared?: boolean;
  /**
   * The field is a sub-resource of its own (DESIGN.md §2), not a member of the resource's body:
   * listings leave it out, it is read and written at its own path, and only where managed.
   */
  readonly subResource?: SubResource;
  /** Written by `export` as a block literal (markdown text) rather than a plain scalar. */
  readonly block?: boolean;
  /** One spelling for values the API or a manifest may write two ways (applied when read from either). */
  readonly normalize?: (value: unknown) => unknown;
  /** How `export` writes a value in a manifest, when a manifest spells it otherwise than the API (a tier, short). */
  readonly manifestForm?: (value: unknown) => unknown;
  /** A `string` that may be unset (absent or `""` from the API reads as unset, not as `""`). */
  readonly optional?: boolean;
  /**
   * An `object` updated leaf by leaf: when both sides hold one, an update's mask names each
   * member that changed (`syncConfig.expiration`), not the whole object (DESIGN.md §2).
   */
  readonly leafMask?: boolean;
  /**
   * Where the field holds an RFC 3339 time, compared as an instant (DESIGN.md §4 "Timestamps"):
   * `''` for the field itself, else the names of its members that do (`syncConfig.expiration`).
   * Read from the API or a manifest in one spelling (UTC, milliseconds, Z), so that
   * `2027-06-30T00:00:00Z` declared and `2027-06-30T00:00:00.000Z` live are one value in every
   * comparison (plan, drift, export round trip, saved-plan freshness).
   */
  readonly instants?: readonly string[];
}

/** A managed field as the one declaration (kinds/declarations.ts) gives it: its name and JSON type. */
export interface DeclaredField {
  readonly name: string;
  readonly json: string;
}

/** How a declared field behaves beyond its JSON type (see FieldSpec); `type` defaults from the JSON type. */
export type FieldBehaviour = Partial<Omit<FieldSpec, 'name'>>;

const TYPE_OF_JSON: Readonly<Record<string, FieldType>> = {
  string: 'string',
  array: 'stringSet',
  object: 'object',
  boolean: 'boolean',
};

/**
 * A kind's field specs from its declared fields (kinds/declared-fields.ts), in declaration order:
 * a string is compared exactly, an array as a set, an object as a whole, unless `behaviour` says
 * more of a field (a role reference, a sub-resource, a normalization). Every declared field is
 * managed; `behaviour` can name only declared fields.
 */
export function declaredFieldSpecs<D extends readonly DeclaredField[]>(
  declared: D,
  behaviour: { readonly [N in D[number]['name']]?: FieldBehaviour } = {},
): FieldSpec[] {
  const extra = behaviour as Readonly<Record<string, FieldBehaviour | undefined>>;
  return declared.map((f) => {
    const type = TYPE_OF_JSON[f.json];
    if (type === undefined)
      throw new Error(`declared field ${f.name} has JSON type ${f.json}, which no field type reads`);
    const more = extra[f.name];
    // Instants are read in one spelling, after any other normalization of the field.
    const instants = more?.instants;
    const prior = more?.normalize;
    const normalize = instants === undefined ? prior : (v: unknown) => withInstants(instants, prior ? prior(v) : v);
    return { name: f.name, type, ...more, ...(normalize ? { normalize } : {}) };
  });
}

/** The API names of the fields a create body (or a PATCH) carries: every field but sub-resources and shown-only ones. */
export function bodyFieldNames(fields: readonly FieldSpec[]): string[] {
  return fields.filter((f) => !f.subResource && f.compared !== false).map((f) => f.apiName ?? f.name);
}

/**
 * A field the API keeps at `{collection}/{uid}/{path}` as `{[bodyField]: text}`: one GET reads it,
 * one `PATCH ?updateMask={bodyField}` writes it; a resource without one (404) reads as `''`.
 * The create of its resource cannot send it, so it is written right after the create.
 */
export interface SubResource {
  readonly path: string;
  readonly bodyField: string;
}

/** A problem a kind's own manifest check found in one item. */
export interface ItemProblem {
  /** Path inside the item ([] = the item itself). */
  pointer: (string | number)[];
  message: string;
  /** The item is not declared at all (its key is unusable), rather than declared with a note. */
  fatal?: boolean;
}

/** Where a resource of a parent kind sits, for addresses of its children. */
export interface ParentPlace {
  groupPath: string;
  fields: object;
}

/** How a kind appears in the manifests, when it does. */
export interface ManifestForm {
  /** The list a group holds them in (`identities`), also the kind's `settings.prune` key. */
  readonly listKey: string;
  /** The schema definition of one item (for typo-tolerant key lookup and messages). */
  readonly definition: string;
  /**
   * `item`: a plain list item keyed by `keyField`; `group`: a nested group (recursive);
   * `binding`: a role binding whose references resolve once every document is read;
   * `nested`: a list inside an item of its parent kind (an identity provider's groupMappings),
   * resolved once every document is read; `single`: not a list but one object on its group
   * (an account association), `listKey` then being that key; `values`: a list of plain keys
   * (the org's acceptedTerms document ids).
   */
  readonly form: 'item' | 'group' | 'binding' | 'nested' | 'single' | 'values';
  /** Singular noun for a list item in schema messages ("role binding 2 of org"). */
  readonly itemNoun: string;
}

/**
 * What a kind is to effective access:
 * - `scope`: holds access and passes it to its descendants (groups);
 * - `capabilities`: a set of capabilities, in `field` (roles);
 * - `principal`: someone who can act, through the `relationship` fields (who can present a token
 *   it accepts) and, for a person, the `email` the service reports (identities);
 * - `grant`: gives the role in the API field `role` to a principal, on the group it lies under
 *   (`on: 'parent'`) or on the group its `scopeField` names: the identity in `principalField`
 *   (`to: 'identity'`), whoever holds the code, for the e-mail in `principalField` (`to: 'email'`,
 *   invites), everyone in the external group in `principalField` of the provider it lies under
 *   (`to: 'externalGroup'`), or everyone who signs in through it (`to: 'signIn'`).
 */
export type AccessPart =
  | { readonly is: 'scope' }
  | { readonly is: 'capabilities'; readonly field: string }
  | { readonly is: 'principal'; readonly relationship: readonly string[] }
  | {
      readonly is: 'grant';
      readonly role: string;
      readonly to: 'identity' | 'email' | 'externalGroup' | 'signIn';
      readonly principalField?: string;
      readonly scopeField?: string;
      /** When the grant stops (an invite's expiry): an RFC 3339 field. */
      readonly expiryField?: string;
    };

export interface KindDescriptor<K extends string = string> {
  readonly kind: K;
  /** "role binding" / "role bindings": the kind as a reader says it. */
  readonly label: { readonly one: string; readonly many: string };
  readonly api: {
    /** `GET` lists, `POST {collection}/{parent}` creates, `{collection}/{uid}` is one item. */
    readonly collection: string;
    /** Name of the array in a List envelope. */
    readonly plural: string;
    /** Whether List accepts the exact-match `name` filter. */
    readonly nameFilter: boolean;
    /** Fields the API accepts in a create body. */
    readonly createFields: readonly string[];
    /** Fields PATCH may change; empty means the kind has no update. */
    readonly updatableFields: readonly string[];
  };
  /** Kind of the parent: the resource's uid is `<parent uid>/<16 hex>`. */
  readonly parentKind: 'group' | 'repo' | 'identityProvider';
  /**
   * The resource's uid is its parent's (an account association is its group's): there is at most
   * one per parent, and maps keyed by uid must tell it from the parent by kind.
   */
  readonly uidIsParent?: boolean;
  /** Never deleted (an acceptance of terms): a live one the manifests leave out is a note, not a step. */
  readonly permanent?: boolean;
  /** Listed by `GET {collection}/{parent uid}` (the org's), not under `uidp.descendants_of`. */
  readonly listedPerParent?: boolean;
  /** The uid of an item the API gives none (an acceptance): made from the item and its parent's uid. */
  uidOf?(item: Readonly<Record<string, unknown>>, parentUid: string): string;
  /** The create body, when it is not the create fields as they are (terms: `{documentIds: [id]}`). */
  createBody?(after: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** A create-body field the API wants set to the org's root group uid (a group mapping's `scope`). */
  readonly orgScopeField?: string;
  /** Natural key among siblings (what an address names), or null when the key is derived. */
  readonly keyField: 'name' | 'sink' | 'docId' | null;
  /**
   * Fields that reference another resource by its kind's name (`identity`, `role`): the API
   * sends them hydrated (`identity: {uid, …}`) or flat (`identityUid`); the model keeps a
   * canonical key (address.ts `IdentityKey`/`RoleKey`). Only role bindings have them.
   */
  readonly references?: readonly string[];
  /**
   * Resources made outside the manifests that go with their parent (a repo's tags, published by
   * CI): one is pruned on its own only when the manifests declare some for its parent, and the
   * delete of the parent deletes it too, shown with a note (DESIGN.md §4).
   */
  readonly goesWithParent?: boolean;
  /**
   * What the kind is to effective access (DESIGN.md §4 "Effective access", STYLE.md 17); the
   * access module reads this and names no kind. Kinds without one do not change access.
   */
  readonly access?: AccessPart;
  /** Names the service defines for every org (built-in roles): a resource of the kind may not take one. */
  readonly builtinNames?: readonly string[];
  /** Managed fields in the order plans and exports show them. */
  readonly fields: readonly FieldSpec[];
  /**
   * Secrets inside the resource, as dotted paths (`oidc.clientSecret`): write-only (the API never
   * returns them), declared only as references (`{fromEnv}`/`{fromFile}`), kept out of fields,
   * plans and exports, and sent only by the request that sets them (DESIGN.md §3).
   */
  readonly secretPaths?: readonly string[];
  /**
   * Fields of which a resource has at most one (an API oneof: an identity's relationship). A
   * manifest that sets one manages them all: the others are cleared by the same PATCH, which
   * names only the one set.
   */
  readonly exclusiveFields?: readonly string[];
  /** A changed field can be PATCHed; false = immutable (a change is reported, not planned). */
  readonly hasUpdate: boolean;
  /** `name` can be changed by PATCH (a rename keeps uid, children and bindings). */
  readonly renameable: boolean;
  /** Resources of this kind hold others (their uid is a parent uid): groups and repos. */
  readonly holdsChildren: boolean;
  /** Role bindings reference resources of this kind by path (identities, roles). */
  readonly referenceable: boolean;
  /** How the manifests declare it; null when they do not (tags are published by CI). */
  readonly manifest: ManifestForm | null;
  /**
   * Kinds whose complete listing a delete of this kind relies on: its own, the kinds that can
   * block it with RESOURCE_NOT_EMPTY, and those its address is built from. `'*'` = every kind.
   */
  readonly deleteReliesOn: readonly string[] | '*';
  /**
   * Address of a resource of this kind in group `groupPath` (its own path, for a group); `uid`
   * is given for a live one, for a kind whose key may be its uid (an invite without an e-mail).
   */
  address(groupPath: string, fields: Readonly<Record<string, unknown>>, parent: ParentPlace, uid?: string): string;
  /** The key under `settings.prune` of a kind the manifests declare through another list (invites, through `members`). */
  readonly pruneKey?: string;
  /** A group's path is its parent's plus its name; every other kind sits in its parent's group. */
  readonly ownsGroupPath: boolean;
  /** How a resource is named in a "declared twice" message: `identity "ci-bot"`. */
  describe(key: string): string;
  /** Kind-specific checks of one manifest item beyond the schema. `where` names its group. */
  checkItem?(item: Readonly<Record<string, unknown>>, key: string, where: string): readonly ItemProblem[];
  /** How a resource reads shown whole, when its fields are not plain values (a binding's references). */
  display?(groupPath: string, fields: Readonly<Record<string, unknown>>): Record<string, unknown>;
  /** False for listed items that are not resources of the org (built-in roles). */
  isOrgResource?(item: { uid: string }): boolean;
}

/** The members of a descriptor that have a default (see {@link defineKind}). */
type Defaulted =
  | 'hasUpdate'
  | 'renameable'
  | 'holdsChildren'
  | 'referenceable'
  | 'ownsGroupPath'
  | 'deleteReliesOn'
  | 'parentKind';
type DefaultedApi = 'createFields' | 'updatableFields' | 'nameFilter';

/** What a kind file says: its descriptor, less what {@link defineKind} defaults. */
export type KindDefinition<K extends string> = Omit<KindDescriptor<K>, Defaulted | 'api'> &
  Partial<Pick<KindDescriptor<K>, Defaulted>> & {
    readonly api: Omit<KindDescriptor<K>['api'], DefaultedApi> & Partial<Pick<KindDescriptor<K>['api'], DefaultedApi>>;
  };

/**
 * A kind's descriptor from what its file says (one per kind, src/model/kinds/), with the defaults
 * most kinds share written once: it sits in a group (and owns no group path), holds no children,
 * is referenced by nothing, has no update and no rename, and its delete relies on its own listing
 * alone; its API creates — and, with an update, PATCHes — every body field of its declaration,
 * and has no name filter.
 */
export function defineKind<const K extends string>(definition: KindDefinition<K>): KindDescriptor<K> {
  const hasUpdate = definition.hasUpdate ?? false;
  return {
    parentKind: 'group',
    hasUpdate,
    renameable: false,
    holdsChildren: false,
    referenceable: false,
    ownsGroupPath: false,
    deleteReliesOn: [definition.kind],
    ...definition,
    api: {
      nameFilter: false,
      createFields: bodyFieldNames(definition.fields),
      updatableFields: hasUpdate ? bodyFieldNames(definition.fields) : [],
      ...definition.api,
    },
  };
}

/** Where a desired resource was declared, re-exported for descriptor files. */
export type { SourceLocation };
/** A field's values, re-exported so that a kind file and its readers import one module. */
export {
  canonicalInstant,
  canonicalJson,
  copyValue,
  isPlainObject,
  type ListedField,
  listedField,
  listedFields,
  liveDefault,
  readManifestValue,
  sameJson,
  sameLeafValue,
  sameValue,
  withInstants,
} from './field-values.js';

/** The API field a reference is sent in: `identity` → `identityUid` (KindDescriptor `references`). */
export function referenceUidField<R extends string>(reference: R): `${R}Uid` {
  return `${reference}Uid`;
}
