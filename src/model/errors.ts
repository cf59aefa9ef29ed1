/**
 * The few error classes platform-sync raises on purpose (STYLE.md §5). Each has a stable
 * `code`; the CLI prints a UserError as one clear line and any other error as a bug with a stack.
 * No error message ever contains the API token.
 */
import type { SourceLocation } from './resources.js';
import type { PlanRefusal } from './plan.js';

/** Base for errors caused by input or by the world, not by a bug in platform-sync. */
export class UserError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** One problem found in the manifests. */
export interface Diagnostic {
  location: SourceLocation;
  /** JSON path inside the document, e.g. `/org/groups/0/name`. */
  path: string;
  message: string;
  /**
   * A capability outside the service's catalog, when that is the whole problem: one live roles
   * may hold (the service's catalog grew), which a run that reads live accepts (DESIGN.md §2 rev 6).
   */
  unknownCapability?: string;
}

/** `file:line:col: message (at /path)`; a problem of a whole file or directory (line 0) is `path: message`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.location.line > 0 ? `${d.location.file}:${d.location.line}:${d.location.column}` : d.location.file;
  return `${where}: ${d.message}${d.path ? ` (at ${d.path})` : ''}`;
}

/** The manifests are invalid: carries every diagnostic found, never only the first. */
export class ManifestError extends UserError {
  readonly diagnostics: Diagnostic[];
  constructor(diagnostics: Diagnostic[]) {
    super(
      'MANIFEST_INVALID',
      `${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'} in the manifests:\n` +
        diagnostics.map(formatDiagnostic).join('\n'),
    );
    this.diagnostics = diagnostics;
  }
}

/** The planner refuses to produce a plan (protected delete, mass delete, not-empty group, …). */
export class UnsafePlanError extends UserError {
  readonly refusals: PlanRefusal[];
  constructor(refusals: PlanRefusal[]) {
    super('PLAN_UNSAFE', `the plan is refused:\n${refusals.map((r) => `  - ${r.message}`).join('\n')}`);
    this.refusals = refusals;
  }
}

/**
 * A saved plan no longer matches live state. Who changed it cannot be known: someone else, or an
 * earlier apply of this same plan that stopped part-way (`live` of its `steps` are live then) —
 * either way a new plan, made from live as it is now, holds exactly what is left.
 */
export class StalePlanError extends UserError {
  readonly changed: { address: string; reason: string }[];
  constructor(changed: { address: string; reason: string }[], done?: { live: number; steps: number }) {
    const partly =
      done !== undefined && done.live > 0 ? `: ${done.live} of its ${done.steps} steps are live already` : '';
    super(
      'PLAN_STALE',
      `the saved plan is stale: live state changed since it was made (by someone else, or by an earlier apply of this plan that stopped part-way${partly}):\n` +
        changed.map((c) => `  - ${c.address}: ${c.reason}`).join('\n') +
        '\nNothing was applied: a saved plan is never applied over changes it did not read. To finish, plan again ' +
        '(`platform-sync plan <paths> --out plan.json`, then `apply plan.json`; or `platform-sync apply <paths>`): ' +
        'the new plan holds exactly what is left.',
    );
    this.changed = changed;
  }
}

/**
 * No root group of the org's name is visible: it may not exist yet, but a wrong base URL,
 * another tenant's token or a token scoped below the org look exactly the same, so it is never
 * taken for "create it" without `--bootstrap`.
 */
export class OrgNotVisibleError extends UserError {
  readonly org: string;
  constructor(org: string, baseUrl: string) {
    super(
      'ORG_NOT_VISIBLE',
      `org "${org}" is not visible at ${baseUrl}: no root group of that name is visible to this token. ` +
        `Likely causes: a wrong base URL, a token of another tenant, or a token scoped below the org. ` +
        `If the org does not exist yet, create it with \`platform-sync apply --bootstrap\` (or plan --bootstrap to see it first).`,
    );
    this.org = org;
  }
}
