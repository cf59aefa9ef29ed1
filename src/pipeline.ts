/**
 * The read side of every run, as a library call: load the manifests (offline, every problem at
 * once), read the live org (only the readmes the manifests manage), plan. plan, apply and drift
 * all start here; so can a program that embeds platform-sync.
 */
import type { ApiClient } from './api/types.js';
import { readLiveState } from './live/index.js';
import { loadManifests } from './manifest/index.js';
import type { Plan } from './model/plan.js';
import type { DesiredState, LiveState } from './model/resources.js';
import { checkTargets, plan, type PlanOptions } from './plan/index.js';
import { OrgNotVisibleError } from './model/errors.js';

/** What a plan was made from, for commands that need more than the plan. */
export interface PlanningResult {
  desired: DesiredState;
  live: LiveState;
  plan: Plan;
}

/** Addresses of the repos whose readme the manifests manage: only those readmes are read. */
export function managedReadmeRepos(desired: DesiredState): Set<string> {
  const repos = new Set<string>();
  for (const r of desired.resources) if (r.kind === 'repo' && r.fields.readme !== undefined) repos.add(r.address);
  return repos;
}

export interface PlanningOptions extends PlanOptions {
  /**
   * Create the org when no root group of its name is visible (DESIGN.md §4). Without it, an org
   * that is not visible is an error: a wrong URL, another tenant's token or a token scoped below
   * the org look exactly like an org that does not exist, and must not make a second one.
   */
  bootstrap?: boolean;
}

/** Loads the manifests (offline, all problems at once), reads the live org, plans. */
export async function planFromManifests(paths: string[], client: ApiClient, options: PlanningOptions = {}): Promise<PlanningResult> {
  // Bad input is refused before any request: manifests, then targets.
  const desired = await loadManifests(paths);
  if (options.targets) checkTargets(options.targets);
  const org: { name: string; uid?: string } = { name: desired.org.name };
  if (desired.org.uid !== undefined) org.uid = desired.org.uid;
  const live = await readLiveState(client, { org, readmeRepos: managedReadmeRepos(desired) });
  if (live.org === null && !options.bootstrap) throw new OrgNotVisibleError(desired.org.name, client.baseUrl);
  return { desired, live, plan: plan(desired, live, options) };
}
