/**
 * The read side of every run, as a library call: load the manifests (offline, every problem at
 * once), read the live org (only the sub-resources the manifests manage), plan. plan, apply and drift
 * all start here; so can a program that embeds platform-sync.
 */
import type { ApiClient } from './api/types.js';
import { loadManifestsKnowingLive, readLiveState } from './live/index.js';
import type { Plan } from './model/plan.js';
import type { DesiredState, LiveState } from './model/resources.js';
import { liveReadFor, plan, type PlanOptions } from './plan/index.js';

/** What a plan was made from, for commands that need more than the plan. */
export interface PlanningResult {
  desired: DesiredState;
  live: LiveState;
  /** The time the plan was made at (PlanOptions `now`). */
  now: number;
  plan: Plan;
}

export { managedSubResources } from './plan/renames.js';

/** Options of the whole sequence: the planner's, `bootstrap` included (an invisible org is then planned, not an error). */
export interface PlanningOptions extends PlanOptions {
  /** Largest manifest set read, all files together (default 64 MiB). */
  maxManifestBytes?: number;
  /** Told as the live read goes (kinds listed of all), for a progress line on a terminal. */
  onReadProgress?: (done: number, total: number) => void;
}

/** Loads the manifests (offline, all problems at once), reads the live org, plans. */
export async function planFromManifests(
  paths: string[],
  client: ApiClient,
  options: PlanningOptions = {},
): Promise<PlanningResult> {
  // Bad input is refused before any request: manifests, then the planner's options (liveReadFor).
  const desired = await loadManifestsKnowingLive(
    paths,
    client,
    options.maxManifestBytes !== undefined ? { maxTotalBytes: options.maxManifestBytes } : {},
  );
  const live = await readLiveState(client, {
    ...liveReadFor(desired, options),
    ...(options.onReadProgress ? { onProgress: options.onReadProgress } : {}),
  });
  // The time of the run: what invites for members expire from (a saved plan records it).
  const now = options.now ?? Date.now();
  return { desired, live, now, plan: plan(desired, live, { ...options, now }) };
}
