/**
 * Apply what was reviewed (DESIGN.md §5): a saved plan is applied on a merge only when the
 * manifests merged are the ones it was made from — the same resolved desired state, compared by
 * a hash of its canonical JSON — and (checkSavedPlan) live has not changed since. Anything else
 * fails, naming why; a fresh plan nobody reviewed is never applied silently.
 */
import { crypto } from '../util/lazy-require.js';
import { UserError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import type { DesiredState } from '../model/resources.js';

/** The hash of a desired state as a saved plan records it (its JSON, as written and read back). */
export function desiredStateHash(desired: DesiredState): string {
  return `sha256:${crypto()
    .createHash('sha256')
    .update(JSON.stringify(JSON.parse(JSON.stringify(desired))))
    .digest('hex')}`;
}

/** Throws unless `saved` was planned from `desired` (the manifests at `paths`, loaded now). */
export function checkPlanMadeFrom(saved: Plan, desired: DesiredState, paths: readonly string[]): void {
  if (!saved.basis)
    throw new UserError(
      'PLAN_NOT_REVIEWED',
      'the saved plan records no manifests it was made from; make it again with `platform-sync plan --out`',
    );
  const recorded = desiredStateHash(saved.basis.desired);
  const merged = desiredStateHash(desired);
  if (recorded === merged) return;
  throw new UserError(
    'PLAN_NOT_REVIEWED',
    `the manifests at ${paths.join(' ')} are not the ones this plan was made from (${merged.slice(0, 19)}… now, ${recorded.slice(0, 19)}… when planned): ` +
      'what was merged is not what was reviewed. Nothing was applied; plan the merged manifests again and review that plan.',
  );
}
