/**
 * What planning a set of manifests needs read from the org: the org as declared (its pinned uid
 * too), the sub-resources the manifests manage (across renames: renames.ts), and how many of
 * each kind to expect. Options the planner would refuse are refused here, before any request.
 */
import type { PlanOptions } from './options.js';
import { managedSubResources } from './renames.js';
import { checkTargets } from './targets.js';
import type { ReadLiveStateOptions } from '../live/read-live-state.js';
import type { DesiredState } from '../model/resources.js';

export function liveReadFor(desired: DesiredState, options: Pick<PlanOptions, 'targets' | 'bootstrap'> & { subResources?: boolean } = {}): ReadLiveStateOptions {
  if (options.targets) checkTargets(options.targets);
  const org: ReadLiveStateOptions['org'] = { name: desired.org.name };
  if (desired.org.uid !== undefined) org.uid = desired.org.uid;
  return {
    org,
    ...(options.subResources === false ? {} : { subResources: managedSubResources(desired) }),
    expected: desired.resources,
    orgMustExist: options.bootstrap !== true,
  };
}
