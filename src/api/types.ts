/**
 * The API client's contract, used by the live-state reader and the executor. The implementation
 * (client.ts, over undici) is the only code that speaks HTTP to the Platform API.
 */
import type { ApiKind, Kind } from '../model/kinds.js';
import type { SubResource } from '../model/kind-descriptor.js';
import type { ReadBytes } from './listing-ledger.js';

/** A resource as the API returns it (camelCase JSON). */
export type ApiObject = Record<string, unknown> & { uid: string; createTime?: string; updateTime?: string };

export interface ListQuery {
  /** `uidp.descendants_of` */
  descendantsOf?: string;
  /** `uidp.children_of` */
  childrenOf?: string;
  /** Exact `name` filter (groups, identities, roles, repos). */
  name?: string;
  /** Extra filters by their API name (`artifactNames`, `advisoryIds`). */
  filters?: Record<string, string>;
  /** `order_by`; the paginator picks a stable one when absent. */
  orderBy?: string;
  /** List `GET {collection}/{under}` (a kind listed per parent: the org's accepted terms). */
  under?: string;
  /**
   * Not sent: how many items the caller expects (the manifests' count of a kind), so that the
   * pages that many need are asked for at once (paginate.ts, PaginateOptions.expectedCount).
   */
  expectedCount?: number;
  /**
   * Not sent: the response bytes kept by the listings of one read, shared so that they are
   * bounded together (ListBounds.maxBytes); a listing without one is bounded on its own.
   */
  readBytes?: ReadBytes;
}

/** The outcome of reading a whole listing. */
export interface ListResult<T> {
  items: T[];
  /** False when the listing never read back consistently (see paginate.ts). */
  consistent: boolean;
  /** Why it is inconsistent, for the plan's refusal message. */
  problem?: string;
  /** Requests this listing took. */
  requests: number;
}

export interface RequestEvent {
  method: string;
  /** Path and query, never headers. */
  path: string;
  status: number;
  ms: number;
  attempt: number;
}

export interface ApiClient {
  readonly baseUrl: string;
  /** Requests sent so far (each retry counts). */
  readonly requestCount: number;

  /** Reads every item of a listing (page_size=200, concurrent skip pages, de-duplicated). */
  list<T extends ApiObject = ApiObject>(kind: ApiKind, query?: ListQuery): Promise<ListResult<T>>;
  /** Streams the items of a listing (STYLE.md §8). */
  paginate<T extends ApiObject = ApiObject>(kind: ApiKind, query?: ListQuery): AsyncIterable<T>;
  get<T extends ApiObject = ApiObject>(kind: ApiKind, uid: string): Promise<T>;
  /**
   * Creates a resource under `parentUid` (null: a new root group). Exactly once: when the
   * outcome of a POST is unknown, the parent is listed by name (or key) before a retry.
   */
  create<T extends ApiObject = ApiObject>(
    kind: Kind,
    parentUid: string | null,
    body: Record<string, unknown>,
  ): Promise<T>;
  /** PATCH with `updateMask` naming exactly the fields sent. */
  update<T extends ApiObject = ApiObject>(
    kind: Kind,
    uid: string,
    body: Record<string, unknown>,
    updateMask: string[],
  ): Promise<T>;
  /** DELETE; a 404 is success when `ignoreMissing` (the resource is already gone). */
  delete(kind: Kind, uid: string, options?: { ignoreMissing?: boolean }): Promise<void>;
  /** GET a sub-resource of one resource (KindDescriptor `subResource`): its text, `''` when it has none set. */
  readSubResource(kind: Kind, uid: string, sub: SubResource): Promise<string>;
  /** PATCH a sub-resource of one resource with its new text. */
  writeSubResource(kind: Kind, uid: string, sub: SubResource, text: string): Promise<void>;
  ping(): Promise<boolean>;
  /**
   * Opens connections for about `requests` requests about to be sent at once (at most the pool's
   * size), so that their handshakes happen while something else is awaited. Sends nothing.
   */
  preconnect?(requests: number): void;
  /** Ends the client: a request still in flight or waiting is cancelled (CANCELLED), and the sockets are released at once. */
  close(): Promise<void>;
}
