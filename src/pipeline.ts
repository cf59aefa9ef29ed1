/**
 * The read side of every run, as a library call: load the manifests (offline, every problem at
 * once), read the live org (only the sub-resources the manifests manage), plan. plan, apply and drift
 * all start here; so can a program that embeds platform-sync.
 */
import type { ApiClient } from './api/types.js';
import { readLiveState } from './live/index.js';
import { loadManifests } from './manifest/index.js';
import type { Plan } from './model/plan.js';
import { namedAddress } from './model/address.js';
import { subResourceFields } from './model/kinds.js';
import { fieldsOf, type DesiredState, type LiveState } from './model/resources.js';
import { checkTargets, plan, type PlanOptions } from './plan/index.js';
import { OrgNotVisibleError } from './model/errors.js';

/** What a plan was made from, for commands that need more than the plan. */
export interface PlanningResult {
  desired: DesiredState;
  live: LiveState;
  plan: Plan;
}

/**
 * Addresses of the resources whose sub-resources (KindDescriptor `subResource`) the manifests
 * manage: only those are read. A resource that is being renamed, or that sits in a group being
 * renamed (`renamedFrom`), is still at its old address live — or half-way, after an interrupted
 * apply — so every such address is named.
 */
export function managedSubResources(desired: DesiredState): Set<string> {
  const groupRenames = new Map<string, string>();
  for (const r of desired.resources) if (r.kind === 'group' && r.renamedFrom !== undefined) groupRenames.set(r.groupPath, r.renamedFrom);
  const addresses = new Set<string>();
  for (const r of desired.resources) {
    const fields = fieldsOf(r);
    if (!subResourceFields(r.kind).some((spec) => fields[spec.name] !== undefined)) continue;
    const names = r.renamedFrom !== undefined ? [String(fields.name), r.renamedFrom] : [String(fields.name)];
    for (const groupPath of pathVariants(r.groupPath, groupRenames)) for (const name of names) addresses.add(namedAddress(r.kind, groupPath, name));
  }
  return addresses;
}

/** A group path with each renamed segment under its new and its old name (at most 64 variants). */
function pathVariants(groupPath: string, groupRenames: ReadonlyMap<string, string>): string[] {
  if (groupPath === '') return [''];
  let variants = [''];
  let sofar = '';
  for (const segment of groupPath.split('/')) {
    sofar = sofar === '' ? segment : `${sofar}/${segment}`;
    const old = groupRenames.get(sofar);
    const names = old !== undefined && variants.length < 64 ? [segment, old] : [segment];
    variants = variants.flatMap((v) => names.map((n) => (v === '' ? n : `${v}/${n}`)));
  }
  return variants;
}

/** Options of the whole sequence: the planner's, `bootstrap` included (an invisible org is then planned, not an error). */
export interface PlanningOptions extends PlanOptions {
  /** Largest manifest set read, all files together (default 64 MiB). */
  maxManifestBytes?: number;
}

/** Loads the manifests (offline, all problems at once), reads the live org, plans. */
export async function planFromManifests(paths: string[], client: ApiClient, options: PlanningOptions = {}): Promise<PlanningResult> {
  // Bad input is refused before any request: manifests, then targets.
  const desired = await loadManifests(paths, options.maxManifestBytes !== undefined ? { maxTotalBytes: options.maxManifestBytes } : {});
  if (options.targets) checkTargets(options.targets);
  const org: { name: string; uid?: string } = { name: desired.org.name };
  if (desired.org.uid !== undefined) org.uid = desired.org.uid;
  const live = await readLiveState(client, { org, subResources: managedSubResources(desired), expected: desired.resources });
  if (live.org === null && !options.bootstrap) throw new OrgNotVisibleError(desired.org.name, client.baseUrl);
  return { desired, live, plan: plan(desired, live, options) };
}
