/** The read side of `export`, as a library call: the whole org, every sub-resource included. */
import { UserError } from '../model/errors.js';
import type { ApiClient } from '../api/types.js';
import { readLiveState } from '../live/index.js';
import type { LiveState } from '../model/resources.js';
import { exportManifests, type ExportedFile, type ExportOptions } from './export-manifests.js';

/** A root group uid: 40 lowercase hex (DESIGN.md §2). Anything else is a name. */
const ROOT_UID = /^[0-9a-f]{40}$/;

/** Reads the org named (by root group name or 40-hex uid) with every sub-resource: an export manages all of them. */
export async function readOrgForExport(
  client: ApiClient,
  org: string | { name?: string; uid?: string },
): Promise<LiveState> {
  if (typeof org !== 'string') {
    // `{name}`, `{uid}` or both, as readLiveState takes an org.
    const given = org.uid ?? org.name;
    if (typeof given !== 'string' || given === '')
      throw new UserError('EXPORT_NO_ORG', 'export needs the org: a name or a root group uid ({name} or {uid})');
    return readOrgForExport(client, given);
  }
  const ref = ROOT_UID.test(org) ? { name: org, uid: org } : { name: org };
  return readLiveState(client, { org: ref, subResources: 'all', orgMustExist: true });
}

/** Reads the org and writes it as manifests that plan to zero changes (the files' names and texts). */
export async function exportOrg(
  client: ApiClient,
  org: string | { name?: string; uid?: string },
  options: ExportOptions = {},
): Promise<ExportedFile[]> {
  return exportManifests(await readOrgForExport(client, org), options);
}
