/**
 * The Platform API v2 client (DESIGN.md §2, §4): the only code that speaks HTTP to the API.
 * One pooled keep-alive undici dispatcher per client; every call goes through one retrying
 * `send`, so timeouts, retries, redaction and request counting are written once, and every
 * attempt through one throttle (throttle.ts), so a rate limit or an outage slows the whole
 * client down instead of each request finding out on its own.
 */
import { setTimeout as sleepMs } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { undiciPool } from './undici-pool.js';
import { exchange, ResponseTooLargeError } from './exchange.js';
import { Preconnector } from './preconnect.js';
import { ApiError, GRPC_CODES, type ErrorDetail } from './errors.js';
import type { ApiClient, ApiObject, ListQuery, ListResult } from './types.js';
import { AttemptFailedError, resolveRetryPolicy, runWithRetry, type RetryPolicy } from './retry.js';
import { paginateItems, readListing, type FetchPage, type Page, type PageRequest } from './paginate.js';
import { redactDeep, redactSecret } from '../io/redact.js';
import { RequestThrottle, type Clock } from './throttle.js';
import { findCreated as findLostCreate, findRootGroups } from './lost-create.js';
import type { Query } from './wire.js';
export { formatRequestEvent, type Query } from './wire.js';
import { parseBaseUrl } from './connection.js';
import { KIND_INFO, type ApiKind, type Kind } from '../model/kinds.js';
import type { SubResource } from '../model/kind-descriptor.js';
import { UserError } from '../model/errors.js';
import {
  readBodyText,
  UnsupportedEncodingError,
  uidPath,
  buildQueryString,
  describeCreate,
  describeList,
} from './wire.js';
export type { ClientOptions, ClientRetryEvent } from './client-options.js';
import {
  type ClientOptions,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_CONNECTIONS,
  KEEP_ALIVE_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
} from './client-options.js';
import { CLOSED_CODES, classifyTransportError, createCloseController } from './transport.js';
import { judgeAnswer, pageOfEnvelope } from './answers.js';

const REAL_CLOCK: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) => sleepMs(ms, undefined, { signal }),
};

/** Visible ASCII only: what a bearer token (RFC 6750 b64token) and an HTTP header value allow. */
const TOKEN_PATTERN = /^[\x21-\x7e]+$/;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

interface SendRequest<T> {
  method: Method;
  /** Path below the base URL, already built from escaped segments. */
  path: string;
  query?: Query;
  body?: unknown;
  /** What was being done, for error messages: `create identity "ci-bot" under <uid>`. */
  resource: string;
  /** Counts HTTP attempts of this call (listings report their own request count). */
  onAttempt?: () => void;
  /** Told the length of the body of the answer taken (a listing's page counts what it keeps). */
  onBody?: (length: number) => void;
  /** After an outcome-unknown attempt: did it take effect? (exactly-once create) */
  findEarlierEffect?: () => Promise<{ done: T } | undefined>;
  /** Set to true when any attempt had an unknown outcome. */
  trace?: { outcomeUnknown: boolean };
}

/** Creates a client; call `close()` when done so the pool's sockets are released. */
export function createClient(options: ClientOptions): ApiClient {
  return new HttpApiClient(options);
}

class HttpApiClient implements ApiClient {
  readonly baseUrl: string;
  private readonly pool: Dispatcher;
  private readonly ownsPool: boolean;
  /** Connections opened ahead of a wave of requests (only for the client's own pool). */
  private readonly preconnector: Preconnector | undefined;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly policy: RetryPolicy;
  private readonly random: () => number;
  private readonly options: ClientOptions;
  private readonly clock: Clock;
  private readonly throttle: RequestThrottle;
  /** Pool size: also how many pages one listing fetches at once, unless `listConcurrency` says. */
  private readonly connections: number;
  /** Aborted by close(): cancels every wait, so queued and retrying requests end at once. */
  private readonly closing = createCloseController();
  private count = 0;

  constructor(options: ClientOptions) {
    const url = parseBaseUrl(options.baseUrl, { allowInsecureHttp: options.allowInsecureHttp });
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.token = options.token || undefined;
    // undici would refuse the header on every request as a "transport error"; say what is wrong
    // once, up front, without showing the token.
    if (this.token !== undefined && !TOKEN_PATTERN.test(this.token)) {
      throw new UserError(
        'TOKEN_INVALID',
        'the API token contains characters an HTTP header cannot carry (spaces, control or non-ASCII characters): check PLATFORM_TOKEN or the token file',
      );
    }
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.policy = resolveRetryPolicy(options.retry);
    this.random = options.random ?? Math.random;
    this.clock = options.clock ?? REAL_CLOCK;
    const connections = options.connections ?? DEFAULT_CONNECTIONS;
    this.connections = connections;
    this.throttle = new RequestThrottle(connections, this.clock, this.closing.signal);
    this.origin = url.origin;
    this.ownsPool = options.dispatcher === undefined;
    if (options.dispatcher === undefined) {
      this.preconnector = new Preconnector(new URL(url.origin), {
        timeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      });
      const Pool = undiciPool();
      this.pool = new Pool(url.origin, {
        connections,
        keepAliveTimeout: KEEP_ALIVE_MS,
        connect: this.preconnector.connect,
        headersTimeout: this.timeoutMs + 1_000,
        bodyTimeout: this.timeoutMs + 1_000,
      });
    } else {
      this.pool = options.dispatcher;
    }
  }

  preconnect(requests: number): void {
    if (this.closing.signal.aborted) return;
    this.preconnector?.warm(Math.min(Math.max(0, Math.floor(requests)), this.connections));
  }

  get requestCount(): number {
    return this.count;
  }

  private redact(text: string): string {
    return redactSecret(text, this.token);
  }

  /** One HTTP exchange; throws AttemptFailedError for every failure the retry loop judges. */
  private async attempt(req: SendRequest<unknown>, target: string, attempt: number): Promise<unknown> {
    if (this.closing.signal.aborted) throw this.cancelledError(req, target);
    this.count++;
    req.onAttempt?.();
    const started = performance.now();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const emit = (status: number): void =>
      this.options.onRequest?.({
        method: req.method,
        path: this.redact(target),
        status,
        ms: Math.round(performance.now() - started),
        attempt,
      });
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
    let status: number;
    let text: string;
    let retryAfter: string | string[] | undefined;
    let location: string | string[] | undefined;
    try {
      const res = await exchange(
        this.pool,
        { origin: this.origin, path: this.basePath + target, method: req.method, headers, body: payload ?? null },
        controller.signal,
        this.maxResponseBytes,
      );
      status = res.statusCode;
      retryAfter = res.headers['retry-after'];
      location = res.headers.location;
      text = await readBodyText(res.headers['content-encoding'], res.body, res.statusCode, this.maxResponseBytes);
    } catch (err) {
      if (err instanceof ResponseTooLargeError) {
        emit(0);
        // A change may have been made before its answer was refused.
        throw new AttemptFailedError({
          retryable: false,
          outcomeUnknown: req.method !== 'GET',
          reason: 'response too large',
          error: this.makeError(req, target, 0, GRPC_CODES.INTERNAL.code, err.message, [], err),
        });
      }
      if (err instanceof UnsupportedEncodingError) {
        emit(err.status);
        throw new AttemptFailedError({
          retryable: false,
          outcomeUnknown: false,
          reason: 'undecodable body',
          error: this.makeError(req, target, err.status, GRPC_CODES.INTERNAL.code, err.message, [], err),
        });
      }
      const code = (err as { code?: string })?.code ?? '';
      // Not a failure of the API but close() overtaking a queued request: nothing to log or retry.
      if (this.closing.signal.aborted && CLOSED_CODES.has(code)) throw this.cancelledError(req, target, err);
      emit(0);
      throw new AttemptFailedError(
        classifyTransportError(err, timedOut, this.timeoutMs, (grpcCode, reason, cause) =>
          this.makeError(req, target, 0, grpcCode, reason, [], cause),
        ),
      );
    } finally {
      clearTimeout(timer);
    }
    emit(status);
    const parsed = judgeAnswer(req.method, { status, text, location, retryAfter }, (code, reason, details, cause) =>
      this.makeError(req, target, status, code, reason, details, cause),
    );
    req.onBody?.(text.length);
    return parsed;
  }

  /** The error of a request that close() ended before it was answered. */
  private cancelledError(req: SendRequest<unknown>, target: string, cause?: unknown): ApiError {
    return this.makeError(req, target, 0, GRPC_CODES.CANCELLED.code, 'cancelled: the client was closed', [], cause);
  }

  private makeError(
    req: SendRequest<unknown>,
    target: string,
    status: number,
    grpcCode: number,
    reason: string,
    details: ErrorDetail[],
    cause?: unknown,
  ): ApiError {
    return new ApiError({
      method: req.method,
      path: this.redact(target),
      status,
      grpcCode,
      reason: this.redact(reason),
      details: redactDeep(details, this.token),
      resource: this.redact(req.resource),
      cause,
    });
  }

  /** Sends one logical request with retries; resolves to the parsed JSON body. */
  private async send<T>(req: SendRequest<T>): Promise<T> {
    const target = req.path + buildQueryString(req.query);
    try {
      return await this.sendWithRetry(req, target);
    } catch (err) {
      // A wait cut short by close() rejects with an AbortError, the throttle with our own error.
      if (this.closing.signal.aborted && !(err instanceof ApiError)) throw this.cancelledError(req, target, err);
      throw err;
    }
  }

  private async sendWithRetry<T>(req: SendRequest<T>, target: string): Promise<T> {
    return runWithRetry<T>(
      async (attempt) => {
        try {
          return (await this.attempt(req as SendRequest<unknown>, target, attempt)) as T;
        } catch (err) {
          if (err instanceof AttemptFailedError && err.failure.outcomeUnknown && req.trace)
            req.trace.outcomeUnknown = true;
          throw err;
        }
      },
      this.policy,
      {
        sleep: (ms) => this.clock.sleep(ms, this.closing.signal),
        now: () => this.clock.now(),
        random: this.random,
        throttle: this.throttle,
        onRetry: (e) => this.options.onRetry?.({ ...e, method: req.method, path: this.redact(target) }),
        beforeRetryAfterUnknown: req.findEarlierEffect,
      },
      (failure, attempts, elapsedMs) => {
        const e = failure.error as ApiError;
        if (attempts <= 1) return e;
        return new ApiError({
          method: e.method,
          path: e.path,
          status: e.status,
          grpcCode: e.grpcCode,
          reason: `${e.reason} (gave up after ${attempts} attempts in ${Math.round(elapsedMs)} ms)`,
          details: e.details,
          resource: this.redact(req.resource),
          cause: e,
        });
      },
    );
  }

  private fetchPageFor<T extends ApiObject>(kind: ApiKind, query: ListQuery, onAttempt?: () => void): FetchPage<T> {
    const info = KIND_INFO[kind];
    const resource = describeList(kind, query);
    return async (page: PageRequest): Promise<Page<T>> => {
      let bytes = 0;
      const envelope = await this.send<Record<string, unknown>>({
        method: 'GET',
        path: query.under !== undefined ? `${info.collection}/${uidPath(query.under)}` : info.collection,
        query: {
          'uidp.descendants_of': query.descendantsOf,
          'uidp.children_of': query.childrenOf,
          name: query.name,
          ...query.filters,
          page_size: page.pageSize,
          order_by: page.orderBy,
          skip: page.skip,
          page_token: page.pageToken,
        },
        resource,
        onAttempt,
        onBody: (length) => {
          bytes = length;
        },
      });
      const listed = pageOfEnvelope<T>(
        kind,
        query.under,
        envelope,
        (reason) =>
          new ApiError({
            method: 'GET',
            path: info.collection,
            status: 200,
            grpcCode: GRPC_CODES.INTERNAL.code,
            reason,
            resource: this.redact(resource),
          }),
      );
      listed.bytes = bytes;
      return listed;
    };
  }

  private listOptions(kind: ApiKind, query: ListQuery) {
    return {
      pageSize: this.options.pageSize,
      concurrency: this.options.listConcurrency ?? this.connections,
      orderBy: query.orderBy,
      strategy: this.options.listStrategy,
      maxReads: this.options.maxListReads,
      bounds: this.options.listBounds,
      readBytes: query.readBytes,
      what: `${describeList(kind, query)} (GET ${KIND_INFO[kind].collection})`,
      expectedCount: query.expectedCount,
    };
  }

  async list<T extends ApiObject = ApiObject>(kind: ApiKind, query: ListQuery = {}): Promise<ListResult<T>> {
    let requests = 0;
    const result = await readListing(
      this.fetchPageFor<T>(kind, query, () => requests++),
      this.listOptions(kind, query),
    );
    return { items: result.items, consistent: result.consistent, problem: result.problem, requests };
  }

  paginate<T extends ApiObject = ApiObject>(kind: ApiKind, query: ListQuery = {}): AsyncIterable<T> {
    return paginateItems(this.fetchPageFor<T>(kind, query), describeList(kind, query), this.listOptions(kind, query));
  }

  async get<T extends ApiObject = ApiObject>(kind: ApiKind, uid: string): Promise<T> {
    return this.send<T>({
      method: 'GET',
      path: `${KIND_INFO[kind].collection}/${uidPath(uid)}`,
      resource: `get ${kind} ${uid}`,
    });
  }

  async create<T extends ApiObject = ApiObject>(
    kind: Kind,
    parentUid: string | null,
    body: Record<string, unknown>,
  ): Promise<T> {
    if (parentUid === null && KIND_INFO[kind].rootable !== true) {
      throw new UserError('CREATE_WITHOUT_PARENT', `create ${kind}: only a root group can be created without a parent`);
    }
    const resource = describeCreate(kind, parentUid, body);
    const collection = KIND_INFO[kind].collection;
    // Root groups need not have unique names, so "is it there?" must mean "is there a new one".
    const rootsBefore =
      parentUid === null ? new Set((await findRootGroups(this, String(body.name))).map((g) => g.uid)) : undefined;
    const findCreated = async (): Promise<{ done: T } | undefined> => {
      const found = await findLostCreate<T>(this, kind, parentUid, body, rootsBefore);
      return found ? { done: found } : undefined;
    };
    const trace = { outcomeUnknown: false };
    try {
      return await this.send<T>({
        method: 'POST',
        path: parentUid === null ? collection : `${collection}/${uidPath(parentUid)}`,
        body,
        resource,
        // A create that may safely repeat (accepting terms) needs no lookup before a retry.
        ...(KIND_INFO[kind].idempotentCreate ? {} : { findEarlierEffect: findCreated }),
        trace,
      });
    } catch (err) {
      // A retry after a lost response can collide with our own earlier create.
      if (err instanceof ApiError && err.grpcName === 'ALREADY_EXISTS' && trace.outcomeUnknown) {
        const found = await findCreated();
        if (found) return found.done;
      }
      throw err;
    }
  }

  async update<T extends ApiObject = ApiObject>(
    kind: Kind,
    uid: string,
    body: Record<string, unknown>,
    updateMask: string[],
  ): Promise<T> {
    return this.send<T>({
      method: 'PATCH',
      path: `${KIND_INFO[kind].collection}/${uidPath(uid)}`,
      query: { updateMask: updateMask.join(',') },
      body,
      resource: `update ${kind} ${uid} (${updateMask.join(', ')})`,
    });
  }

  async delete(kind: Kind, uid: string, options: { ignoreMissing?: boolean } = {}): Promise<void> {
    const trace = { outcomeUnknown: false };
    try {
      await this.send({
        method: 'DELETE',
        path: `${KIND_INFO[kind].collection}/${uidPath(uid)}`,
        resource: `delete ${kind} ${uid}`,
        trace,
      });
    } catch (err) {
      // After a lost response, NOT_FOUND means our earlier attempt deleted it.
      if (err instanceof ApiError && err.grpcName === 'NOT_FOUND' && (options.ignoreMissing || trace.outcomeUnknown))
        return;
      throw err;
    }
  }

  async readSubResource(kind: Kind, uid: string, sub: SubResource): Promise<string> {
    const body = await this.send<Record<string, unknown>>({
      method: 'GET',
      path: `${KIND_INFO[kind].collection}/${uidPath(uid)}/${sub.path}`,
      resource: `get ${sub.path} of ${kind} ${uid}`,
    });
    const text = body[sub.bodyField];
    return typeof text === 'string' ? text : '';
  }

  async writeSubResource(kind: Kind, uid: string, sub: SubResource, text: string): Promise<void> {
    await this.send({
      method: 'PATCH',
      path: `${KIND_INFO[kind].collection}/${uidPath(uid)}/${sub.path}`,
      query: { updateMask: sub.bodyField },
      body: { [sub.bodyField]: text },
      resource: `update ${sub.path} of ${kind} ${uid}`,
    });
  }

  async ping(): Promise<boolean> {
    try {
      const res = await this.send<{ response?: unknown }>({ method: 'GET', path: '/ping/v2/ping', resource: 'ping' });
      return res.response === 'pong';
    } catch (err) {
      if (err instanceof ApiError) return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    const closed = new Error('the client was closed');
    this.closing.abort(closed);
    this.throttle.close(closed);
    // Nothing is waited for: what is still in flight is cancelled, and the sockets are let go at once.
    this.preconnector?.close();
    if (this.ownsPool) await this.pool.destroy();
  }
}
