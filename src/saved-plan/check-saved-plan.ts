/**
 * Checking a saved plan against live state before it is applied (DESIGN.md §4), as a library
 * call: re-read the org and compare what the plan recorded with what is there now.
 */
import type { ApiClient } from '../api/types.js';
import { readLiveState } from '../live/index.js';
import { StalePlanError } from '../model/errors.js';
import type { Plan } from '../model/plan.js';
import { checkFingerprints, readmeReposOf } from './fingerprint.js';

/**
 * Re-reads the org and compares it with the fingerprints the plan recorded; a plan made
 * against a world that has since changed is refused (StalePlanError) before anything is sent.
 * Returns the plan, ready for `apply`.
 */
export async function checkSavedPlan(saved: Plan, client: ApiClient): Promise<Plan> {
  const live = await readLiveState(client, { org: saved.org, readmeRepos: readmeReposOf(saved) });
  const changed = checkFingerprints(saved, live);
  if (changed.length > 0) throw new StalePlanError(changed);
  return saved;
}
