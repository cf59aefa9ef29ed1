/**
 * The resource model shared by both sides of the planner: manifests produce a DesiredState,
 * the API produces a LiveState, and both speak in the same Resource shape so that `plan()`
 * compares like with like (DESIGN.md §1).
 */
import type { AccessRule } from './access-rules.js';
import type { FieldsByKind, Kind } from './kinds.js';

/** Where a desired resource (or a setting) was written: 1-based line and column. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/**
 * Managed fields per kind (their interfaces live with each kind's descriptor). On the desired
 * side a field that is absent is *not managed* (the live value is kept); `description: ''` is
 * managed and clears it. On the live side every field the API returned is present.
 */
export type { FieldsByKind } from './kinds.js';
export type { ClaimMatch } from './kinds.js';

interface ResourceOf<K extends Kind> {
  kind: K;
  /** Canonical address (see address.ts); unique within one state. */
  address: string;
  /**
   * Path of the group that owns the resource ('' = org root). For a group, its own path.
   * For a tag, the group path of its repo.
   */
  groupPath: string;
  /** Address of the parent: the owning group (`org`, `group:a/b`) or, for a tag, its repo. */
  parentAddress: string | null;
  fields: FieldsByKind[K];
}

export type ResourceUnion = { [K in Kind]: ResourceOf<K> }[Kind];

/** A resource's fields by name, for code that walks a kind's field specs rather than one kind's type. */
export function fieldsOf(resource: ResourceUnion): Record<string, unknown> {
  return resource.fields as unknown as Record<string, unknown>;
}

/** A resource as the manifests want it. */
export type DesiredResource = ResourceUnion & {
  /** Where it was declared. */
  source: SourceLocation;
  /**
   * `renamedFrom`: the previous name of a renameable resource (group, identity, role, repo).
   * A live sibling of that name (and none of the new one) is renamed in place.
   */
  renamedFrom?: string;
  /** A pinned uid (`org.uid`); wins over address matching. */
  uid?: string;
  /** Secrets declared by reference, by dotted path (`oidc.clientSecret`); never a value (DESIGN.md §3). */
  secrets?: Record<string, SecretRef>;
};

/** Where a secret is read from at apply time: a PLATFORM_SYNC_SECRET_* variable, or a file relative to the operator's secrets directory (DESIGN.md §3). */
export type SecretRef = { fromEnv: string } | { fromFile: string };

/** A resource as the API reports it. */
export type LiveResource = ResourceUnion & {
  uid: string;
  /** Uid of the parent group (or repo for tags); null for the org root. */
  parentUid: string | null;
  createTime?: string;
  updateTime?: string;
  /** When an identity last logged in, as the API reports it (identities only). */
  lastSeenTime?: string;
  /** The e-mail a person signed in with, as the API reports it (identities only): what `members` match; never managed or exported. */
  email?: string;
};

/** `settings.prune`: true/false for every kind, or per kind (absent kinds default to true). */
export type PruneSetting = boolean | Partial<Record<Kind, boolean>>;

export interface Settings {
  prune: PruneSetting;
  /** Address globs left alone entirely (never created, updated or deleted). */
  ignore: string[];
  /** Address globs that may never be deleted. */
  protect: string[];
  /** `settings.inviteTtl` in milliseconds: how long an invite the plan creates stays open (default 7 days). */
  inviteTtlMs?: number;
}

/**
 * A `members` line (DESIGN.md §3, §4): who should hold a role on a group, by the e-mail they
 * sign in with; brought about by an invite until a binding of that role to an identity with
 * that e-mail exists (plan/phases/members.ts).
 */
export interface DesiredMember {
  /** `member:<group path>/<email, lower case>=<role>`. */
  address: string;
  groupPath: string;
  /** As written (compared case-insensitively). */
  email: string;
  role: import('./address.js').RoleKey;
  source: SourceLocation;
}

/** Everything the manifests say, validated and resolved. */
export interface DesiredState {
  org: {
    name: string;
    /** Pinned root group uid, when the manifest gives one. */
    uid?: string;
    source: SourceLocation;
  };
  /** Every resource, including the org root group itself (address `org`, groupPath ''). */
  resources: DesiredResource[];
  /** `members` lines, when the manifests have any. */
  members?: DesiredMember[];
  /** `org.accessRules`, when the manifests have any (src/model/access-rules.ts). */
  accessRules?: AccessRule[];
  settings: Settings;
  /** Files the state was read from, sorted. */
  files: string[];
}

/**
 * A List that did not read back consistently (a restarted cursor, a count that never matched
 * `totalCount`): the planner must not delete resources of that kind.
 */
export interface IncompleteRead {
  kind: Kind;
  reason: string;
}

/** Two live siblings of one kind with the same natural key: reported, never guessed at. */
export interface LiveAmbiguity {
  address: string;
  uids: string[];
}

/** What the API holds for one org. */
export interface LiveState {
  /** The org root group, or null when it does not exist yet (bootstrap). */
  org: { uid: string; name: string } | null;
  /** Every resource under the org, including the root group (address `org`). */
  resources: LiveResource[];
  incomplete: IncompleteRead[];
  ambiguities: LiveAmbiguity[];
  /**
   * Built-in roles by name → uid; the planner needs them to fill `roleUid` on bindings.
   * Always read, even for an empty org.
   */
  builtinRoles: Record<string, string>;
  /** Built-in roles by name → capabilities, as the roles list gives them (effective access reads them). */
  builtinRoleCapabilities?: Record<string, readonly string[]>;
}
