/**
 * `platform-sync access` as a library call (DESIGN.md §5): what an identity can do, or who holds
 * a capability on a group, in the org as the manifests would make it — live with the plan's steps
 * applied — each answer with the binding that grants it.
 */
import type { ApiClient } from '../api/types.js';
import { UserError } from '../model/errors.js';
import { planFromManifests, type PlanningOptions } from '../pipeline.js';
import { accessStateOf, applySteps, queryAccess, type AccessGrant } from './effective-access.js';

export { accessChanges, accessStateOf, applySteps, diffAccess, queryAccess, type AccessChange, type AccessGrant, type AccessState } from './effective-access.js';

export const ACCESS_FORMAT_VERSION = 1;

export interface AccessQuery {
  /** An identity's address (`identity:engineering/ci-bot`) or `uid:<uid>`. */
  identity?: string;
  /** A group's address (`group:engineering`, `org`); with `capability`. */
  scope?: string;
  capability?: string;
}

export interface AccessReport {
  formatVersion: typeof ACCESS_FORMAT_VERSION;
  org: { name: string; uid?: string };
  query: AccessQuery;
  grants: AccessGrant[];
}

/** Checks a query: an identity, or a scope with a capability. */
export function checkAccessQuery(query: AccessQuery): void {
  const byIdentity = query.identity !== undefined;
  const byScope = query.scope !== undefined || query.capability !== undefined;
  if (byIdentity === byScope || (byScope && (query.scope === undefined || query.capability === undefined))) {
    throw new UserError('USAGE', 'ask about one identity (--identity identity:<path>) or about a capability on a group (--scope group:<path> --capability <capability>)');
  }
}

export async function accessFromManifests(paths: string[], client: ApiClient, query: AccessQuery, options: PlanningOptions = {}): Promise<AccessReport> {
  checkAccessQuery(query);
  const { live, plan } = await planFromManifests(paths, client, options);
  const state = applySteps(accessStateOf(live), plan.steps);
  return { formatVersion: ACCESS_FORMAT_VERSION, org: plan.org, query, grants: queryAccess(state, query) };
}
