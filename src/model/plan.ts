/**
 * A plan is plain data (STYLE.md §2): the planner produces it, renderers and the executor only
 * read it, and `plan --out` saves it as JSON (DESIGN.md §5, schemas/plan.schema.json).
 */
import type { AccessRuleResult } from './access-rules.js';
import type { Kind } from './kinds.js';
import type { DesiredState, SecretRef, SourceLocation } from './resources.js';

export const PLAN_FORMAT_VERSION = 1;

export type Action = 'create' | 'update' | 'delete';

/**
 * A body field whose value is the uid of another resource that may be created by this same
 * plan: the executor fills it from the create response of the step with that address, or
 * from `uid` when the resource already exists.
 */
export interface UidReference {
  address: string;
  /** Known uid when the referenced resource already exists live. */
  uid?: string;
}

/** What every step has, whatever its action. */
interface StepBase {
  /**
   * Secrets the step sends, by dotted body path (`oidc.clientSecret`): where each is read at
   * apply time (DESIGN.md §3). Never a value: plans and plan files hold references only.
   */
  secrets?: Record<string, SecretRef>;
  kind: Kind;
  /** Unique within a plan: a step is identified by its address. */
  address: string;
  /** Address of the parent (`org`, `group:…`, `repo:…` for tags); null only for creating the org. */
  parent?: string | null;
  /** Parent's live uid when it exists already; otherwise filled from the parent's create step. */
  parentUid?: string;
  /** Addresses of steps that must be done before this one starts. */
  dependsOn?: string[];
  /** Where the desired resource was declared (creates and updates). */
  source?: SourceLocation;
  /** Why the step exists when it is not obvious (e.g. "tag of deleted repo nginx"). */
  reason?: string;
}

/**
 * Body fields that carry another resource's uid, by the API field they are sent in (a binding's
 * `identityUid` and `roleUid`, a role field such as `defaultRole`, a kind's `orgScopeField`):
 * which fields a kind has is its descriptor's to say, never this type's.
 */
export type StepRefs = { readonly [apiField: string]: UidReference };

/** POST under the parent. */
export interface CreateStep extends StepBase {
  action: 'create';
  parent: string | null;
  /** The managed fields the create sends (a sub-resource goes by its own PATCH afterwards). */
  after: Record<string, unknown>;
  refs?: StepRefs;
}

/** PATCH with `updateMask` naming exactly the changed fields. */
export interface UpdateStep extends StepBase {
  action: 'update';
  uid: string;
  /** A rename in place (`renamedFrom`): the address the resource has before this step; `updateMask` holds `name`. */
  previousAddress?: string;
  /**
   * Exactly the fields that change, in API names (`description`, `roleUid`). A sub-resource
   * field (KindDescriptor `subResource`) is sent by its own PATCH to that sub-resource.
   */
  updateMask: string[];
  /** Live values of the fields that change. */
  before: Record<string, unknown>;
  /** Desired values of the fields that change. */
  after: Record<string, unknown>;
  refs?: StepRefs;
}

/** DELETE by uid. */
export interface DeleteStep extends StepBase {
  action: 'delete';
  uid: string;
  /** The whole resource as it is live, for the reader. */
  before?: Record<string, unknown>;
}

/**
 * One step of a plan, by action (schemas/plan.schema.json has the same three shapes): the
 * executor reads what its action needs, and the type says it is there.
 */
export type PlanStep = CreateStep | UpdateStep | DeleteStep;

/** What a saved plan checks before apply: the live resources it read and their versions. */
export interface Fingerprint {
  address: string;
  uid: string;
  /** `updateTime` where the kind has one, else `sha256:<hex>` of the resource's fields. */
  version: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  delete: number;
}

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  org: { name: string; uid?: string };
  summary: PlanSummary;
  /** In a valid execution order (every step after its dependsOn). */
  steps: PlanStep[];
  /** Notes for the reader that do not block: e.g. deletes of a kind with pruning off, left alone. */
  warnings: string[];
  /**
   * Why this plan must not be applied (empty when it may be). A refused plan is still a plan:
   * its steps show what it would have done, every view shows both, and only apply stops
   * (`assertSafe`).
   */
  refusals: PlanRefusal[];
  /** Filled by `savePlan` (src/saved-plan) from the live state the plan was made from; empty otherwise. */
  fingerprints: Fingerprint[];
  /**
   * Set only when `--target` was given: how many changes the planner found but left out of
   * `steps` because no target needs them (0 when the targets cover every change). Renderers use
   * it so an empty targeted plan does not claim the org matches the manifests. Not saved.
   */
  untargeted?: number;
  /**
   * Saved plans only: what the plan was made from — the desired state and the planning options —
   * so that `apply plan.json` re-plans it against the live state it re-reads and refuses any step
   * that planning would not produce (a step added or altered by hand), by the same safety rules
   * (DESIGN.md §4).
   */
  basis?: PlanBasis;
  /** What the plan changes in effective access (DESIGN.md §4 "Access changes"); absent when nothing. */
  accessChanges?: AccessChange[];
  /** How the state the plan leads to holds to `org.accessRules` (DESIGN.md §4 rev 6); absent without rules. */
  accessRules?: AccessRuleResult[];
  /** What each `members` line comes to: present, pending (with its expiry) or invited; absent without members. */
  members?: MemberStatus[];
}

/** What a saved plan was planned from. */
export interface PlanBasis {
  desired: DesiredState;
  options: {
    targets?: string[];
    maxDeleteRatio?: number;
    allowMassDelete?: boolean;
    rotateSecrets?: boolean;
    bootstrap?: boolean;
    denyNewAccess?: boolean;
    now?: number;
    planTtlMs?: number;
    reinvite?: string[];
  };
}

/** One reason the planner refuses to produce a plan that would be unsafe. */
export interface PlanRefusal {
  /**
   * `declared-twice`: one resource declared twice, seen once references are normalised.
   * `dangling-reference`: an `identityUid`/`roleUid` inside the org that the full read did not find.
   * `rename-conflict`: `renamedFrom` names a live sibling, but the new name is live too.
   */
  rule:
    | 'not-empty'
    | 'protected'
    | 'mass-delete'
    | 'incomplete-read'
    | 'ambiguous-live'
    | 'declared-twice'
    | 'dangling-reference'
    | 'rename-conflict'
    | 'org-not-visible'
    | 'rename-ignored'
    | 'org-name-mismatch'
    | 'new-access'
    | 'access-rule'
    | 'invite-time'
    | 'unknown-target';
  message: string;
  /** Addresses involved (the blocked resource and what blocks it). */
  addresses: string[];
}

/** What a member line comes to in this plan. */
export interface MemberStatus {
  /** `member:<group path>/<email>=<role>`. */
  address: string;
  /** The group's address (`org`, `group:engineering`). */
  group: string;
  email: string;
  /** The role as the member line names it from its group. */
  role: string;
  state: 'present' | 'pending' | 'invited';
  /** The identity that holds the role (present). */
  identity?: string;
  /** When the open invite ends (pending), or the one the plan creates will (invited). */
  expirationTime?: string;
  /** An expired invite of the member that the plan deletes (invited), or an open one `--reinvite` replaces. */
  replaces?: string;
  /** The invite it replaces was still open: `--reinvite` asked for a new code. */
  reinvited?: boolean;
  /** The address of the invite the plan creates (invited). */
  invite?: string;
}

/** One change of effective access (JSON `accessChanges[]`). */
export interface AccessChange {
  /** Who: `identity:ci-bot`, `identity:ci-bot (subjectPattern "repo:.*")`, `email:alice@acme.dev`, `idp:okta/group:admins`, `idp:okta/*`. */
  principal: string;
  /** The identity's address, when the principal is an identity. */
  identity?: string;
  /** The address of the highest group where the change starts (`org` for the root). */
  scope: string;
  gained: string[];
  lost: string[];
  /** Groups where the capabilities really change: the scope and those of its descendants. */
  groups: number;
  /** Addresses of the steps that cause it. */
  causes: string[];
  /** A widened relationship: who can now present a token it accepts (shown beside the principal). */
  note?: string;
  /**
   * Who the principal admits, when that is broad, in a reviewer's words (access/admits.ts, the facts
   * audit judges): `any GitHub workflow`, `pull-request workflows of nw/infra`, `anyone who signs in to okta`.
   */
  admits?: string[];
  /** A gained escalating capability (DESIGN.md §4 "Escalation"): what it lets the principal obtain there, and how. */
  obtains?: string;
  /** When `gained` (`lost`) is exactly a built-in role's capabilities: its name, so that a view can say "all of owner". */
  gainedRole?: string;
  lostRole?: string;
}
