/** Live state: what the API holds for one org, in the shared resource model (DESIGN.md §1). */
export {
  readLiveState,
  findOrg,
  capabilitiesBeyondCatalog,
  loadManifestsKnowingLive,
  orgListQuery,
  type ReadLiveStateOptions,
} from './read-live-state.js';
export {
  buildLiveResources,
  buildOrgResource,
  parentUidOf,
  LISTED_KINDS,
  type RawOrgListings,
  type BuiltLiveResources,
} from './build-live-state.js';
