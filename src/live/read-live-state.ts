/**
 * Reads what the API holds for one org (DESIGN.md §1, §4): finds the org root group, lists
 * every kind under it in parallel (`uidp.descendants_of`), reads the built-in roles, and
 * fetches the sub-resources the manifest manages. The model is built by build-live-state.ts.
 */
import pLimit from 'p-limit';
import { ApiError } from '../api/errors.js';
import type { ApiClient, ApiObject, ListResult } from '../api/types.js';
import type { ReadBytes } from '../api/listing-ledger.js';
import { loadManifests, type LoadOptions } from '../manifest/index.js';
import { ManifestError, OrgNotVisibleError, UserError } from '../model/errors.js';
import {
  BUILTIN_ROLE_NAMES,
  CREATE_ORDER,
  descriptorOf,
  KIND_INFO,
  subResourceFields,
  type Kind,
} from '../model/kinds.js';
import { fieldsOf, type DesiredState, type IncompleteRead, type LiveState } from '../model/resources.js';
import { isCatalogCapability } from '../service/catalog.js';
import { LiveResourceBuilder, LISTED_KINDS } from './build-live-state.js';

/**
 * Sub-resources are one GET each (listings leave them out): on a big org they dominate a read,
 * so they go as wide as the client's connection pool (64) allows.
 */
export const DEFAULT_SUB_RESOURCE_CONCURRENCY = 64;

/** The API's largest page (DESIGN.md §2), what the client asks for. */
const LISTING_PAGE_SIZE = 200;

export interface ReadLiveStateOptions {
  org: { name: string; uid?: string };
  /**
   * Addresses of the resources (`repo:team/nginx`) whose sub-resources (KindDescriptor
   * `subResource`) the manifests manage; only these are fetched. `'all'` fetches every one
   * (export manages them all).
   */
  subResources?: ReadonlySet<string> | 'all';
  /** Sub-resources fetched at once (default {@link DEFAULT_SUB_RESOURCE_CONCURRENCY}). */
  subResourceConcurrency?: number;
  /**
   * The resources the manifests declare (kind and group path): a hint of how many items each
   * listing holds, so that a big listing asks for all its pages at once, one round trip sooner.
   * Only a hint: a listing that turns out otherwise is read as without it.
   */
  expected?: readonly { kind: Kind; groupPath: string }[];
  /** An org that is not visible is an error (OrgNotVisibleError), not `org: null`. */
  orgMustExist?: boolean;
  /** Told as each kind's listing is in (done of total), for a progress line on a terminal. */
  onProgress?: (done: number, total: number) => void;
}

/** Reads the live state of one org; `org: null` when it does not exist yet (unless `orgMustExist`). */
export async function readLiveState(client: ApiClient, options: ReadLiveStateOptions): Promise<LiveState> {
  const reads = startReads(client, options);
  const org = await reads.org;
  if (org === null) return orgAbsent(client, options, reads.builtin);
  const listings = reads.pinned ?? startListings(client, org.uid, reads.expected, reads.readBytes, options.onProgress);
  const builtin = await reads.builtin;
  const { resources, ambiguities, incomplete } = await buildAsListed(org, builtin, listings);
  await fetchSubResources(
    client,
    resources,
    options.subResources,
    options.subResourceConcurrency ?? DEFAULT_SUB_RESOURCE_CONCURRENCY,
  );
  return {
    org: { uid: org.uid, name: typeof org.name === 'string' ? org.name : '' },
    resources,
    incomplete,
    ambiguities,
    builtinRoles: builtin.roles,
    builtinRoleCapabilities: builtin.capabilities,
  };
}

type BuiltinRoles = Awaited<ReturnType<typeof readBuiltinRoles>>;

/** The reads that go out before the org is found, all at once. */
interface StartedReads {
  builtin: Promise<BuiltinRoles>;
  org: Promise<ApiObject | null>;
  /** How many items each listing should hold if the org is as declared. */
  expected: ReadonlyMap<Kind, number>;
  /** The response bytes every listing of this read keeps, bounded together (ListBounds.maxBytes). */
  readBytes: ReadBytes;
  /** The listings of a pinned org, sent beside its lookup. */
  pinned?: StartedListings;
}

function startReads(client: ApiClient, options: ReadLiveStateOptions): StartedReads {
  // Every listing of the read keeps its answers until the read is built: bounded together.
  const readBytes: ReadBytes = { kept: 0 };
  // Built-ins are needed even for an empty org (bootstrap binds them), so start at once.
  const builtin = readBuiltinRoles(client, readBytes);
  builtin.catch(() => undefined); // awaited later; keeps an early org error from leaving it unhandled
  const org = findOrg(client, options.org, readBytes);
  const expected = expectedListingCounts(options.expected ?? []);
  // A pinned org's uid is known: its listings go out beside the lookup that checks it exists (a
  // round trip sooner; they are only reads, and set aside if it does not). Else they wait for the
  // lookup, and the connections they will need are opened while it is in flight.
  const pinned =
    options.org.uid !== undefined
      ? startListings(client, options.org.uid, expected, readBytes, options.onProgress)
      : undefined;
  if (!pinned) client.preconnect?.(expectedRequests(expected));
  return { builtin, org, expected, readBytes, ...(pinned ? { pinned } : {}) };
}

/** No org of that name is visible: an error when it must exist, else an org to create (bootstrap). */
async function orgAbsent(
  client: ApiClient,
  options: ReadLiveStateOptions,
  builtinRead: Promise<BuiltinRoles>,
): Promise<LiveState> {
  if (options.orgMustExist === true) throw new OrgNotVisibleError(options.org.name, client.baseUrl);
  const builtin = await builtinRead;
  return {
    org: null,
    resources: [],
    incomplete: builtin.incomplete,
    ambiguities: [],
    builtinRoles: builtin.roles,
    builtinRoleCapabilities: builtin.capabilities,
  };
}

/**
 * Each kind is built as soon as its listing is in (parents and referenced kinds first), while the
 * pages of the kinds after it are still arriving.
 */
async function buildAsListed(
  org: ApiObject,
  builtin: BuiltinRoles,
  listings: StartedListings,
): Promise<Pick<LiveState, 'resources' | 'ambiguities' | 'incomplete'>> {
  const owned = (await listings.ownedByOrg).flat();
  const builder = new LiveResourceBuilder(org, builtin.roles);
  for (const kind of CREATE_ORDER) {
    const listing = await listings.listingOf(kind);
    // The listing as it came, unless a resource read by uid joins it (the org's own association).
    const byUid = owned.filter((o) => o.kind === kind);
    builder.add(kind, byUid.length === 0 ? listing.items : [...byUid.map((o) => o.item), ...listing.items]);
  }
  const incomplete: IncompleteRead[] = [...builtin.incomplete];
  for (const [i, listing] of (await listings.allListed).entries()) {
    if (!listing.consistent)
      incomplete.push({
        kind: LISTED_KINDS[i]!,
        reason: `${KIND_INFO[LISTED_KINDS[i]!].plural}: ${listing.problem ?? 'inconsistent listing'}`,
      });
  }
  const built = builder.finish();
  incomplete.push(...built.unplaced);
  return { resources: built.resources, ambiguities: built.ambiguities, incomplete };
}

/** The reads of every resource under an org, in flight. */
interface StartedListings {
  /** The org's own resources whose uid is the org's (read by uid). */
  ownedByOrg: Promise<{ kind: Kind; item: ApiObject }[][]>;
  /** Every listing, in LISTED_KINDS order. */
  allListed: Promise<ListResult<ApiObject>[]>;
  /** One kind's listing, as soon as it is in; rejects as soon as any listing fails. */
  listingOf(kind: Kind): Promise<ListResult<ApiObject>>;
}

/** Sends the reads of every resource under an org at once. */
function startListings(
  client: ApiClient,
  orgUid: string,
  expected: ReadonlyMap<Kind, number>,
  readBytes: ReadBytes,
  onProgress?: (done: number, total: number) => void,
): StartedListings {
  // A resource with its parent's uid (the org's account association) is no descendant of the
  // org: it is read by uid, beside the listings.
  const ownedByOrg = Promise.all(
    LISTED_KINDS.filter((k) => descriptorOf(k).uidIsParent).map((kind) => readOwnedByOrg(client, kind, orgUid)),
  );
  ownedByOrg.catch(() => undefined);
  // Most kinds are listed under the org; one listed per parent (accepted terms) by the org's uid.
  const listings = LISTED_KINDS.map((kind) =>
    client.list(kind, { ...orgListQuery(kind, orgUid), expectedCount: expected.get(kind), readBytes }),
  );
  // Each kind's listing told as it is in (a progress line on a terminal).
  let done = 0;
  if (onProgress)
    for (const listing of listings)
      void listing.then(
        () => onProgress(++done, listings.length),
        () => undefined,
      );
  // The first listing to fail ends the read at once, as Promise.all would.
  const allListed = Promise.all(listings);
  allListed.catch(() => undefined);
  const listingOf = (kind: Kind): Promise<ListResult<ApiObject>> => {
    const listing = listings[LISTED_KINDS.indexOf(kind)]!;
    return Promise.race([listing, allListed.then(() => listing)]);
  };
  return { ownedByOrg, allListed, listingOf };
}

/**
 * The org root group: by pinned uid, else the one root group with that name. Several root
 * groups of one name are an error (never guessed at); none means the org is to be created.
 */
export async function findOrg(
  client: ApiClient,
  org: { name: string; uid?: string },
  readBytes?: ReadBytes,
): Promise<ApiObject | null> {
  if (org.uid !== undefined) {
    try {
      return await client.get('group', org.uid);
    } catch (err) {
      if (err instanceof ApiError && err.grpcName === 'NOT_FOUND') {
        throw new UserError(
          'ORG_NOT_FOUND',
          `org "${org.name}": the pinned org.uid ${org.uid} is not visible at ${client.baseUrl}: it does not exist, or this token cannot see it ` +
            `(a wrong base URL, a token of another tenant, or a token scoped below the org)`,
          { cause: err },
        );
      }
      throw err;
    }
  }
  const listing = await client.list('group', { name: org.name, readBytes });
  if (!listing.consistent) {
    // Concluding "no such org" from a bad read would bootstrap a duplicate org.
    throw new UserError(
      'ORG_LOOKUP_INCONSISTENT',
      `org "${org.name}": the root groups did not read back consistently: ${listing.problem}`,
    );
  }
  const roots = listing.items.filter((g) => !g.uid.includes('/') && g.name === org.name);
  if (roots.length > 1) {
    const candidates = roots.map(
      (g) => `  - ${g.uid}${typeof g.createTime === 'string' ? ` (created ${g.createTime})` : ''}`,
    );
    throw new UserError(
      'ORG_AMBIGUOUS',
      `org "${org.name}" is ambiguous: ${roots.length} root groups have this name:\n${candidates.join('\n')}\n` +
        `Pin the one to manage with org.uid in the manifest.`,
    );
  }
  return roots[0] ?? null;
}

/** Built-in roles (flat uids, no parent) by name, from an unscoped role listing. */
export async function readBuiltinRoles(
  client: ApiClient,
  readBytes?: ReadBytes,
): Promise<{
  roles: Record<string, string>;
  capabilities: Record<string, readonly string[]>;
  incomplete: IncompleteRead[];
}> {
  const listing = await client.list('role', { readBytes });
  const roles: Record<string, string> = {};
  const capabilities: Record<string, readonly string[]> = {};
  for (const r of listing.items) {
    if (!r.uid.includes('/') && typeof r.name === 'string') {
      roles[r.name] = r.uid;
      const caps = (r as { capabilities?: unknown }).capabilities;
      capabilities[r.name] = Array.isArray(caps) ? caps.filter((c): c is string => typeof c === 'string') : [];
    }
  }
  const missing = BUILTIN_ROLE_NAMES.filter((n) => roles[n] === undefined);
  const incomplete: IncompleteRead[] = [];
  if (!listing.consistent || missing.length > 0) {
    incomplete.push({
      kind: 'role',
      reason: `built-in roles: ${listing.problem ?? `not all were listed (missing ${missing.join(', ')})`}`,
    });
  }
  return { roles, capabilities, incomplete };
}

/** Fills the sub-resource fields of the resources named (those the manifests manage), concurrently. */
async function fetchSubResources(
  client: ApiClient,
  resources: LiveState['resources'],
  addresses: ReadonlySet<string> | 'all' | undefined,
  concurrency: number,
): Promise<void> {
  if (!addresses || (addresses !== 'all' && addresses.size === 0)) return;
  const wanted = (address: string): boolean => addresses === 'all' || addresses.has(address);
  const limit = pLimit(Math.max(1, concurrency));
  await Promise.all(
    resources.flatMap((r) => {
      if (!wanted(r.address)) return [];
      return subResourceFields(r.kind).map((spec) =>
        limit(async () => {
          try {
            fieldsOf(r)[spec.name] = await client.readSubResource(r.kind, r.uid, spec.subResource);
          } catch (err) {
            // None set yet reads as empty: setting it is then an update, as it should be.
            if (err instanceof ApiError && err.grpcName === 'NOT_FOUND') fieldsOf(r)[spec.name] = '';
            else throw err;
          }
        }),
      );
    }),
  );
}

/** The org's own resource of a kind whose uid is its parent's (an account association), if it has one. */
async function readOwnedByOrg(
  client: ApiClient,
  kind: Kind,
  orgUid: string,
): Promise<{ kind: Kind; item: ApiObject }[]> {
  try {
    return [{ kind, item: await client.get(kind, orgUid) }];
  } catch (err) {
    if (err instanceof ApiError && err.grpcName === 'NOT_FOUND') return [];
    throw err;
  }
}

/**
 * How many items each kind's org listing holds if the org is as declared: every declared
 * resource but the org itself (found, not listed) and the org's own resources read by uid.
 */
function expectedListingCounts(declared: readonly { kind: Kind; groupPath: string }[]): Map<Kind, number> {
  const counts = new Map<Kind, number>();
  // Indexed: one pass over every declared resource, before V8 optimises it (a for…of allocates then).
  for (let i = 0; i < declared.length; i++) {
    const { kind, groupPath } = declared[i]!;
    if (groupPath === '' && (descriptorOf(kind).ownsGroupPath || descriptorOf(kind).uidIsParent)) continue;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

/**
 * The requests the listings send at once when the org is as declared: each kind's first page and
 * the pages its count needs beside it (at the API's page size), and the org's own resources read
 * by uid.
 */
function expectedRequests(expected: ReadonlyMap<Kind, number>): number {
  let requests = LISTED_KINDS.filter((k) => descriptorOf(k).uidIsParent).length;
  for (const kind of LISTED_KINDS) requests += Math.max(1, Math.ceil((expected.get(kind) ?? 0) / LISTING_PAGE_SIZE));
  return requests;
}

/** How every resource of `kind` in an org is listed: under the org, or per org (accepted terms). */
export function orgListQuery(kind: Kind, orgUid: string): { under: string } | { descendantsOf: string } {
  return descriptorOf(kind).listedPerParent ? { under: orgUid } : { descendantsOf: orgUid };
}

/*
 * The capabilities live roles hold that the service's catalog (src/service) does not name: the
 * service's catalog grows, and a name it added since is carried under its own name (DESIGN.md §2
 * rev 6) — a manifest may hold it once live shows that the service knows it.
 */

/** Every capability of every role the token can list (built-in and custom) that the catalog lacks. */
export async function capabilitiesBeyondCatalog(client: ApiClient): Promise<Set<string>> {
  const listing = await client.list('role');
  const beyond = new Set<string>();
  for (const role of listing.items) {
    const caps = (role as { capabilities?: unknown }).capabilities;
    if (!Array.isArray(caps)) continue;
    for (const c of caps) if (typeof c === 'string' && !isCatalogCapability(c)) beyond.add(c);
  }
  return beyond;
}

/**
 * Loads the manifests (offline, every problem at once); when the only problems are capabilities
 * outside the service's catalog, asks live which names its roles hold — a name the service added
 * after this version's catalog is carried, never refused (DESIGN.md §2 rev 6) — and loads again
 * knowing them (a name live lacks too is then suggested among live's). Still an error, before
 * any write, when live does not hold it either.
 */
export async function loadManifestsKnowingLive(
  paths: string[],
  client: ApiClient,
  options: LoadOptions = {},
): Promise<DesiredState> {
  try {
    return await loadManifests(paths, options);
  } catch (err) {
    if (
      !(err instanceof ManifestError) ||
      err.diagnostics.length === 0 ||
      !err.diagnostics.every((d) => d.unknownCapability !== undefined)
    )
      throw err;
    return loadManifests(paths, { ...options, knownCapabilities: await capabilitiesBeyondCatalog(client) });
  }
}
