/**
 * `platform-sync access` as a library call (DESIGN.md §5): effective access over one relation —
 * of the org as the manifests would make it (live with the plan's steps written over it), or as
 * it is (`live`) — for an identity, an e-mail, a token, a group, a capability; each answer with
 * the grant that gives it. It runs the pipeline, so it stands beside it, above what it reads.
 */
import { answerAccess, relationsOfPlan, type AccessGrant, type AccessQuestion } from './access/index.js';
import type { ApiClient } from './api/types.js';
import { planFromManifests, type PlanningOptions } from './pipeline.js';

export const ACCESS_FORMAT_VERSION = 2;

export interface AccessReport {
  formatVersion: typeof ACCESS_FORMAT_VERSION;
  org: { name: string; uid?: string };
  /** `planned`: as the manifests would make it; `live`: as it is now. */
  state: 'planned' | 'live';
  query: Omit<AccessQuestion, 'as'> & { as?: Readonly<Record<string, unknown>> };
  /** With `as`: the identities the token can act as. */
  actingAs?: string[];
  grants: AccessGrant[];
}

export async function accessFromManifests(
  paths: string[],
  client: ApiClient,
  query: AccessQuestion & { live?: boolean },
  options: PlanningOptions = {},
): Promise<AccessReport> {
  const { live, plan, now } = await planFromManifests(paths, client, options);
  const relations = relationsOfPlan(live, plan, now);
  const { live: wantLive, ...question } = query;
  const answer = answerAccess(wantLive ? relations.live : relations.planned, question);
  return {
    formatVersion: ACCESS_FORMAT_VERSION,
    org: plan.org,
    state: wantLive ? 'live' : 'planned',
    query: question,
    ...answer,
  };
}
