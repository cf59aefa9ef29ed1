/**
 * `show` as a library call (DESIGN.md §5): the uid of every declared resource that exists live —
 * what a CI workflow needs after a bootstrap to log in as an identity it declared. Read-only.
 */
import type { ApiClient } from './api/types.js';
import { loadManifestsKnowingLive, readLiveState } from './live/index.js';

import type { Kind } from './model/kinds.js';
import { liveReadFor } from './plan/index.js';
import { indexLive } from './plan/live-index.js';
import { normaliseBinding } from './plan/references.js';
import { planMembers } from './plan/phases/members.js';
import { applyRenames } from './plan/renames.js';

export const SHOW_FORMAT_VERSION = 1;

/** What `show --format json` prints. */
export interface ShownResources {
  formatVersion: typeof SHOW_FORMAT_VERSION;
  org: { name: string; uid: string };
  /** Declared resources that exist live, sorted by address; those not (yet) live are left out. */
  resources: { address: string; kind: Kind; uid: string }[];
}

/**
 * Loads the manifests, reads the org, and pairs each declared resource with its live uid, matched
 * the way the planner matches (a binding written by uid or by path, a rename not yet applied, a
 * member line: its identity and binding once present, its open invite while pending). `now`
 * (default: the time of the call) is what an invite has expired by.
 */
export async function showDeclared(
  paths: string[],
  client: ApiClient,
  options: { now?: number } = {},
): Promise<ShownResources> {
  const loaded = await loadManifestsKnowingLive(paths, client);
  const live = await readLiveState(client, liveReadFor(loaded, { subResources: false }));
  const membered = planMembers(loaded, applyRenames(loaded, live).live, options.now ?? Date.now());
  const { desired } = membered;
  const index = indexLive(membered.live);
  const resources: ShownResources['resources'] = [];
  for (const raw of desired.resources) {
    const d = normaliseBinding(raw, index.lookup);
    const l = d.uid !== undefined ? index.byUid.get(d.uid) : index.at(d.address);
    if (l && l.kind === d.kind) resources.push({ address: d.address, kind: d.kind, uid: l.uid });
  }
  resources.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const org = live.org!; // liveReadFor asks for the org to exist: readLiveState threw if it is not visible
  return { formatVersion: SHOW_FORMAT_VERSION, org: { name: org.name, uid: org.uid }, resources };
}
