/**
 * What a caller may ask of the planner (`plan(desired, live, options)`), read by the phases that
 * need it.
 */
export interface PlanOptions {
  /**
   * `--target` addresses or address globs. Only matching steps are planned, plus every step
   * they depend on (the parents a create needs, the identity/role a binding references, the
   * children a delete must remove first).
   */
  targets?: string[];
  /** Largest share of a kind's managed live resources one plan may delete (default 0.25). */
  maxDeleteRatio?: number;
  /** Lift the mass-delete refusal. */
  allowMassDelete?: boolean;
  /**
   * `apply --rotate-secrets`: re-send every declared secret of a resource that exists (one PATCH
   * per resource, its mask naming the secret). Without it a secret is sent only by a create:
   * the API never returns one, so a changed secret cannot be detected.
   */
  rotateSecrets?: boolean;
  /**
   * Plan the create of the org when no root group of its name is visible (`--bootstrap`).
   * Without it a missing org is a refusal, never a `create org` step (DESIGN.md §4): a wrong
   * URL or another tenant's token looks exactly like an org that does not exist.
   */
  bootstrap?: boolean;
  /**
   * `--deny-new-access`: refuse a plan that gains any capability for anyone (rule `new-access`,
   * naming the steps that cause it); losing access is never refused by it (DESIGN.md §4).
   */
  denyNewAccess?: boolean;
  /**
   * The time of the plan (ms since the epoch): invites for members expire `settings.inviteTtl`
   * after it, and an invite is pending while it has not expired. The planner reads no clock:
   * planFromManifests gives the time of the run; a saved plan keeps the one it was made with.
   */
  now?: number;
  /**
   * `--reinvite EMAIL`: members lines of these e-mails whose invite is still open get a new one
   * (the open invite deleted, another created with a new code) — for a code that was lost.
   */
  reinvite?: string[];
}

export const DEFAULT_MAX_DELETE_RATIO = 0.25;
