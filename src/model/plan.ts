/**
 * A plan is plain data (STYLE.md §2): the planner produces it, renderers and the executor only
 * read it, and `plan --out` saves it as JSON (DESIGN.md §5, schemas/plan.schema.json).
 */
import type { Kind } from './kinds.js';
import type { SourceLocation } from './resources.js';

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

export interface PlanStep {
  action: Action;
  kind: Kind;
  /** Unique within a plan: a step is identified by its address. */
  address: string;
  /** Live uid (update, delete). */
  uid?: string;
  /** Address of the parent (`org`, `group:…`, `repo:…` for tags); null only for creating the org. */
  parent?: string | null;
  /** Parent's live uid when it exists already; otherwise filled from the parent's create step. */
  parentUid?: string;
  /** Managed fields before (live values of the fields that change; the whole resource on delete). */
  before?: Record<string, unknown>;
  /** Managed fields after (the body of a create; the changed fields of an update). */
  after?: Record<string, unknown>;
  /**
   * Update: exactly the fields that change, in API names (`description`, `roleUid`, `readme`).
   * `readme` is sent by its own PATCH to the repo's readme sub-resource.
   */
  updateMask?: string[];
  /** Create/update of a role binding: body fields that carry another resource's uid. */
  refs?: { identityUid?: UidReference; roleUid?: UidReference };
  /** Addresses of steps that must be done before this one starts. */
  dependsOn?: string[];
  /** Where the desired resource was declared (creates and updates). */
  source?: SourceLocation;
  /** Why the step exists when it is not obvious (e.g. "tag of deleted repo nginx"). */
  reason?: string;
}

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
  /** Filled for saved plans; empty otherwise. */
  fingerprints: Fingerprint[];
  /**
   * Set only when `--target` was given: how many changes the planner found but left out of
   * `steps` because no target needs them (0 when the targets cover every change). Renderers use
   * it so an empty targeted plan does not claim the org matches the manifests. Not saved.
   */
  untargeted?: number;
}

/** One reason the planner refuses to produce a plan that would be unsafe. */
export interface PlanRefusal {
  /** `declared-twice`: one resource declared twice, seen once references are normalised. */
  rule: 'not-empty' | 'protected' | 'mass-delete' | 'incomplete-read' | 'ambiguous-live' | 'declared-twice';
  message: string;
  /** Addresses involved (the blocked resource and what blocks it). */
  addresses: string[];
}
