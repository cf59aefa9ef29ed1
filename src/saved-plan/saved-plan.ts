/**
 * Saved plans (`plan --out plan.json`, `apply plan.json`): the steps plus a fingerprint of
 * every live resource the plan read (DESIGN.md §4). The file holds no token and nothing
 * secret: only what the plan shows. This module does the file I/O; checking a saved plan
 * against live state is pure (`checkFingerprints` in fingerprint.ts).
 */
import { FileReadError, readFileBounded } from '../io/read-file.js';
import { environmentRedactor } from '../io/redact.js';
import { writeUserFile } from '../io/write-file.js';
import { UnsafePlanError, UserError } from '../model/errors.js';
import type { LiveState } from '../model/resources.js';
import { fingerprintLive } from './fingerprint.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanBasis } from '../model/plan.js';
import { KINDS } from '../model/kinds.js';
import { toPlanDocument } from '../model/plan-document.js';
import { validatePlanDocument } from './plan-schema.js';

/** A file given as a saved plan is not one (or not one this version reads). */
export class PlanFileError extends UserError {
  constructor(path: string, problem: string) {
    super('PLAN_FILE_INVALID', `${path} is not a usable platform-sync plan: ${problem}`);
  }
}

/** How a plan is written: `redact` filters the file's text (the CLI's Output redacts the token; by default the secrets of the environment). */
export interface SavePlanOptions {
  redact?: (text: string) => string;
  /** What the plan was planned from: `apply` re-plans it and refuses any step planning would not produce. */
  basis: PlanBasis;
}

/**
 * Writes the plan with a fingerprint of every live resource it was made from (`live`), so that
 * `apply plan.json` can refuse it once live state moved; atomically, so a crash never leaves
 * half a plan. A refused plan is never saved: there is nothing it could apply.
 */
export async function savePlan(path: string, plan: Plan, live: LiveState, options: SavePlanOptions): Promise<void> {
  if (plan.refusals.length > 0) throw new UnsafePlanError(plan.refusals);
  const json = `${JSON.stringify(toPlanDocument({ ...plan, fingerprints: fingerprintLive(live), basis: options.basis }, { fingerprints: true }), null, 2)}\n`;
  writeUserFile(path, json, 'the plan', { redact: options.redact ?? environmentRedactor() });
}

/** Largest saved plan read: a 100,000-resource org's plan is far below it. */
export const MAX_PLAN_FILE_BYTES = 512 * 1024 * 1024;

/** Reads a saved plan back, checking its version and shape; every problem is named. */
export async function loadSavedPlan(path: string): Promise<Plan> {
  let text: string;
  try {
    text = (await readFileBounded(path, { maxBytes: MAX_PLAN_FILE_BYTES })).toString('utf8');
  } catch (err) {
    throw new UserError(
      'PLAN_FILE_READ',
      `cannot read the plan file ${err instanceof FileReadError ? err.message : path}`,
      { cause: err },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // Where, never what: the file may be anything a link or a typo named (DESIGN.md §8 rev 4).
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new PlanFileError(
      path,
      `it is not JSON${at === undefined ? '' : ` (a syntax error at byte ${at})`}; nothing of it is quoted`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new PlanFileError(path, 'it is not a JSON object');
  const version = (value as { formatVersion?: unknown }).formatVersion;
  if (version === undefined)
    throw new PlanFileError(path, 'it has no formatVersion (is it a plan saved with `plan --out`?)');
  if (version !== PLAN_FORMAT_VERSION) {
    throw new PlanFileError(
      path,
      `formatVersion ${JSON.stringify(version)} is not supported (this version reads ${PLAN_FORMAT_VERSION})`,
    );
  }
  const problems = validatePlanDocument(value);
  if (problems.length > 0) throw new PlanFileError(path, problems.slice(0, 10).join('; '));
  const doc = value as Plan & { fingerprints?: Plan['fingerprints'] };
  if (!Array.isArray(doc.fingerprints)) {
    throw new PlanFileError(
      path,
      'it has no fingerprints: save plans with `plan --out`, not by redirecting `--format json`',
    );
  }
  if (!doc.org || typeof doc.org.name !== 'string') throw new PlanFileError(path, 'it does not name its org');
  const basisProblem = checkBasisShape(doc.basis);
  if (basisProblem) throw new PlanFileError(path, `${basisProblem}; make a new plan with \`platform-sync plan --out\``);
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    org: doc.org,
    summary: doc.summary,
    steps: doc.steps,
    warnings: doc.warnings ?? [],
    // Never saved refused; a file that says it is refused stays refused.
    refusals: Array.isArray(doc.refusals) ? doc.refusals : [],
    fingerprints: doc.fingerprints,
    ...(typeof doc.untargeted === 'number' ? { untargeted: doc.untargeted } : {}),
    basis: doc.basis!,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isStrings = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string');

/**
 * The shape of a saved plan's basis, checked before the planner sees it (a saved plan is
 * untrusted): a desired state of resources the model knows, settings of strings, options of
 * their types. What it says is judged by re-planning it.
 */
function checkBasisShape(basis: unknown): string | undefined {
  if (!isObject(basis))
    return 'it has no record of what it was planned from (a plan saved by an earlier version, or edited)';
  const { desired, options } = basis;
  if (!isObject(options)) return 'its planning options are not an object';
  if (options.targets !== undefined && !isStrings(options.targets)) return 'its targets are not a list of strings';
  if (
    options.maxDeleteRatio !== undefined &&
    (typeof options.maxDeleteRatio !== 'number' || !(options.maxDeleteRatio >= 0 && options.maxDeleteRatio <= 1))
  )
    return 'its maxDeleteRatio is not a number from 0 to 1';
  for (const flag of ['allowMassDelete', 'rotateSecrets', 'bootstrap', 'denyNewAccess'])
    if (options[flag] !== undefined && typeof options[flag] !== 'boolean') return `its ${flag} is not true or false`;
  if (
    options.now !== undefined &&
    !(typeof options.now === 'number' && Number.isSafeInteger(options.now) && options.now >= 0)
  )
    return 'its time (now) is not a time';
  if (options.reinvite !== undefined && !isStrings(options.reinvite)) return 'its reinvite is not a list of e-mails';
  if (
    options.planTtlMs !== undefined &&
    !(
      typeof options.planTtlMs === 'number' &&
      Number.isSafeInteger(options.planTtlMs) &&
      options.planTtlMs > 0 &&
      options.planTtlMs <= 30 * 86_400_000
    )
  )
    return 'its plan TTL is not a duration of at most 30 days';
  if (
    !isObject(desired) ||
    !isObject(desired.org) ||
    typeof desired.org.name !== 'string' ||
    !Array.isArray(desired.resources) ||
    !isStrings(desired.files)
  )
    return 'its desired state is not one';
  const settings = desired.settings;
  if (
    !isObject(settings) ||
    !isStrings(settings.ignore) ||
    !isStrings(settings.protect) ||
    !(typeof settings.prune === 'boolean' || isObject(settings.prune))
  )
    return 'its settings are not ones';
  if (
    settings.inviteTtlMs !== undefined &&
    !(
      typeof settings.inviteTtlMs === 'number' &&
      settings.inviteTtlMs > 0 &&
      settings.inviteTtlMs <= 30 * 24 * 3600 * 1000
    )
  )
    return 'its inviteTtl is not a duration of at most 30 days';
  if (desired.members !== undefined) {
    if (!Array.isArray(desired.members)) return 'its members are not a list';
    for (const m of desired.members as unknown[]) {
      if (
        !isObject(m) ||
        typeof m.address !== 'string' ||
        typeof m.groupPath !== 'string' ||
        typeof m.email !== 'string' ||
        !isObject(m.role) ||
        !isObject(m.source)
      )
        return 'its desired state holds a member that is not one';
    }
  }
  if (desired.accessRules !== undefined && !isAccessRules(desired.accessRules)) return 'its access rules are not ones';
  for (const r of desired.resources as unknown[]) {
    if (
      !isObject(r) ||
      typeof r.kind !== 'string' ||
      !(KINDS as readonly string[]).includes(r.kind) ||
      typeof r.address !== 'string' ||
      typeof r.groupPath !== 'string' ||
      !(r.parentAddress === null || typeof r.parentAddress === 'string') ||
      !isObject(r.fields) ||
      !isObject(r.source)
    ) {
      return 'its desired state holds a resource that is not one';
    }
  }
  return undefined;
}

/** Access rules as the resolver writes them (src/model/access-rules.ts): each with a name, what it selects, one test of its type. */
function isAccessRules(rules: unknown): boolean {
  if (!Array.isArray(rules)) return false;
  const count = (c: unknown): boolean =>
    isObject(c) && Object.keys(c).every((k) => (k === 'min' || k === 'max') && Number.isSafeInteger(c[k]));
  const token = (t: unknown): boolean =>
    isObject(t) && Object.values(t).every((v) => typeof v === 'string' || isStrings(v));
  return rules.every((r: unknown) => {
    if (!isObject(r) || typeof r.name !== 'string' || !isStrings(r.selected) || !isObject(r.source)) return false;
    if (
      (r.scope !== undefined && typeof r.scope !== 'string') ||
      (r.role !== undefined && typeof r.role !== 'string') ||
      (r.roleAddress !== undefined && typeof r.roleAddress !== 'string')
    )
      return false;
    const tests = [
      r.onlyPrincipals !== undefined && isStrings(r.onlyPrincipals),
      r.count !== undefined && count(r.count),
      r.token !== undefined && r.never === true && token(r.token),
    ];
    return (
      tests.filter(Boolean).length === 1 &&
      [r.onlyPrincipals, r.count, r.token].filter((t) => t !== undefined).length === 1
    );
  });
}
