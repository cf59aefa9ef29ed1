/**
 * What a client is made with (createClient's options) and the default of each: timeouts,
 * connections, the response bound, retries, listing bounds, and the events it reports.
 */
import type { Dispatcher } from 'undici';
import type { RequestEvent } from './types.js';
import type { RetryEvent, RetryPolicy } from './retry.js';
import type { ListBounds, ListStrategy } from './paginate.js';
import type { Clock } from './throttle.js';

export interface ClientOptions {
  /** `http(s)://host[:port][/prefix]`; paths of DESIGN.md §2 are appended to it. */
  baseUrl: string;
  /** Bearer token; sent only in the Authorization header, redacted from everything else. */
  token?: string;
  /** Allow `http://` to a host that is not loopback (refused otherwise: the token would travel in clear). */
  allowInsecureHttp?: boolean;
  /** Whole-request timeout (connect, headers and body), default 30 s. */
  timeoutMs?: number;
  /** TCP connect timeout, default 10 s. */
  connectTimeoutMs?: number;
  /** Largest response body read, in bytes (default 64 MiB); a bigger one is an error, read no further. */
  maxResponseBytes?: number;
  retry?: Partial<RetryPolicy>;
  /** Pages fetched at once by one listing after its first page (default: `connections`, the pool's size). */
  listConcurrency?: number;
  /** Pool size, the most requests in flight at once (default 64). */
  connections?: number;
  /** Called after every HTTP attempt (for `--verbose`); never sees headers. */
  onRequest?: (e: RequestEvent) => void;
  /** Called before every retry wait. */
  onRetry?: (e: ClientRetryEvent) => void;
  /** Source of jitter, uniform in [0, 1); injectable for deterministic tests. */
  random?: () => number;
  /**
   * What retry waits and the throttle measure time with (default: the real clock). A test may
   * share a virtual one with the emulator's `clock`. Request timeouts always use real time.
   */
  clock?: Clock;
  /** Requested page size of listings (default 200; the server may serve fewer). */
  pageSize?: number;
  /** How listings read pages after the first (default `skip`). */
  listStrategy?: ListStrategy;
  /** Whole re-reads of an inconsistent listing before it is reported inconsistent (default 3). */
  maxListReads?: number;
  /**
   * Bounds of one listing: items, pages, wall-clock time, and the bytes of response bodies one
   * read keeps — every listing of an org's live read together (DEFAULT_LIST_BOUNDS otherwise).
   */
  listBounds?: Partial<ListBounds>;
  /**
   * Where requests go instead of a connection pool to `baseUrl`: an undici Dispatcher the
   * caller owns (and closes), e.g. one that answers from an in-process emulator without a socket.
   */
  dispatcher?: Dispatcher;
}

/** A retry about to happen, with the request it repeats (path redacted like RequestEvent). */
export interface ClientRetryEvent extends RetryEvent {
  method: string;
  path: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/**
 * Enough for the whole read of a 10,000-resource org (about 60 pages) to go out in one round trip
 * instead of two. A server that limits the rate gets fewer: the throttle halves what is in flight
 * on each 429 (throttle.ts).
 */
export const DEFAULT_CONNECTIONS = 64;
export const KEEP_ALIVE_MS = 30_000;
/** The largest response body read (a page of 200 resources is ≈100 KB): anything bigger is a broken or hostile server. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
