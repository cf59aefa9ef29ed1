/**
 * The Platform API v2 emulator (DESIGN.md §6): a real HTTP server that tests, demos and
 * users' CI run against. `startEmulator()` is the library API; `platform-sync emulator` wraps it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { UserError } from '../model/errors.js';
import { ApiFailure, errorDomainFor, injectedFailure, invalidArgument, payloadTooLarge } from './failures.js';
import {
  DEFAULT_PAGE_TOKEN_TTL_SECONDS,
  FaultInjector,
  checkFaultOptions,
  type FaultOptions,
  type StoreFault,
} from './faults.js';
import { openDurableState, type DurableState } from './persist.js';
import { StateFileError } from './state-snapshot.js';
import { acquireStateLock, realStatePath, type LockWait, type StateLock } from './state-lock.js';
import { createSeededRandom } from './prng.js';
import { applySeed } from './seed.js';
import { readSeedFile, type SeedDocument, type SeedResult } from './seed-document.js';
import { type ApiReply, type EmulatorToken, replyBodyText } from './exchange.js';
import { EmulatorService } from './service.js';
import { checkTokens } from './tokens.js';

export type { EmulatorToken } from './exchange.js';
export type { FaultOptions, StoreFault } from './faults.js';
export type {
  SeedDocument,
  SeedResult,
  SeedOrg,
  SeedGroup,
  SeedIdentity,
  SeedRole,
  SeedRepo,
  SeedTag,
  SeedSubscription,
  SeedRoleBinding,
  SeedAdvisory,
} from './seed-document.js';
export { SeedError } from './seed-document.js';
export { readTokensFile } from './tokens.js';
export { builtinRoleUid } from './builtin-roles.js';

export interface EmulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Accepted bearer tokens. None → every request that needs auth gets 401. */
  tokens?: EmulatorToken[];
  /** Initial state (a document, or the path of a YAML/JSON file). Ignored when `statePath` exists. */
  seed?: SeedDocument | string;
  /**
   * Loaded when it exists. Every change is in its journal, fsynced, before it is acknowledged;
   * the journal is compacted into the file now and then and on flush()/close(). Locked while
   * the emulator runs: a second emulator on the same file is refused (or waits: `lockWait`).
   */
  statePath?: string;
  /** Wait this long for another emulator to release `statePath` instead of refusing at once. */
  lockWait?: LockWait;
  /** What this emulator is, for the message of another that waits for its state file ("an --emulator command"). */
  lockHolder?: string;
  /**
   * Start on a journal with a damaged record before its last by truncating it there (the
   * records from there on are dropped, and counted in `notes`). Without it such a journal is
   * refused (JournalCorruptError), naming the file and the offset.
   */
  repair?: boolean;
  /** Receives what loading the state dropped (a torn last record, what --repair cut). Default: stderr. */
  onNote?: (note: string) => void;
  faults?: FaultOptions;
  /**
   * Check every answer against the emulator's contract (schemas/platform-api-v2.openapi.json)
   * before it is sent: one that breaks it is a 500 naming why. Default: on when the environment
   * says `PLATFORM_SYNC_EMULATOR_STRICT=1` (what a test run sets, for every emulator it starts:
   * in process, `--emulator`, spawned), else off.
   */
  checkAnswers?: boolean;
  /**
   * Leave out the fields the real service sends that clients must ignore (groups' resourceLimits
   * and verified, identities' company). Default false:
   * they are sent, so every client exercises its "ignore what it does not manage" path.
   */
  plainResponses?: boolean;
  /** ms since epoch; timestamps, page-token expiry and the rate-limit bucket follow it. */
  clock?: () => number;
  /**
   * For tests of the emulator itself: called with each request once its body is read; what it
   * throws is an internal error of the emulator (which must answer 500, never hang).
   */
  internalFault?: (request: { method: string; path: string }) => void;
  /**
   * For tests of the checks that judge the emulator (the contract fuzzer): rewrites the body of
   * each answer before it is checked and sent — an emulator whose answers break its contract.
   */
  answerFault?: (request: { method: string; path: string }, body: unknown) => unknown;
  /**
   * For tests of clients: rewrites the fields a create or an update is about to store (as validated;
   * an update's are the ones its mask names) — a service that keeps something other than it was
   * sent: it normalizes, cuts or ignores a value. Its answer and every later read show what was stored.
   */
  storeFault?: StoreFault;
}

/** One request as the emulator saw it (never its headers, so never a token). */
export interface RequestLogEntry {
  seq: number;
  method: string;
  /** Percent-decoded path without the query. */
  path: string;
  query: Record<string, string>;
  /** HTTP status sent; 0 when the connection was reset instead. */
  status: number;
  /**
   * The injected fault: `error` (503), `ratelimit` (429), `internal` (500), `reset`, or
   * `short-page` (a List answered with fewer items than a full page, token set). `applied` is
   * true when a 500 or reset came after the request had changed state.
   */
  faulted?: 'reset' | 'error' | 'ratelimit' | 'internal' | 'short-page';
  applied?: boolean;
}

export interface Emulator {
  /** `http://host:port`, no trailing slash. */
  url: string;
  port: number;
  /** Stops listening, drops open connections, compacts the state file and releases its lock. */
  close(): Promise<void>;
  /** Compacts the journal into the state file now (no-op without `statePath`). */
  flush(): Promise<void>;
  /** Replaces the fault settings (a new seed restarts the fault sequence). */
  setFaults(f: FaultOptions): void;
  /** Bulk insert in-process, with the same checks as the API. */
  seed(doc: SeedDocument): SeedResult;
  /** Requests in arrival order (the oldest are dropped past 100 000 entries). */
  requestLog: RequestLogEntry[];
  clearRequestLog(): void;
  /** Stored resources, built-in roles excluded. */
  resourceCount(): number;
  /** Whether answers are checked against the contract (EmulatorOptions.checkAnswers). */
  readonly checksAnswers: boolean;
}

/** `PLATFORM_SYNC_EMULATOR_STRICT=1`: every emulator checks its answers and keeps its internal errors (a test run sets it). */
function strictByEnvironment(): boolean {
  return process.env.PLATFORM_SYNC_EMULATOR_STRICT === '1';
}

/**
 * Internal errors of the emulators of this process — a 500 that no fault injected: a bug in a
 * handler, or an answer that broke the contract — kept while strict (PLATFORM_SYNC_EMULATOR_STRICT)
 * until taken: a test run takes them after each test and fails the test that caused one, since
 * the contract allows no 500 to any request (issue 47).
 */
const internalErrors: string[] = [];
const MAX_INTERNAL_ERRORS = 100;

/** The internal errors kept since the last call (see above), emptied. */
export function takeInternalErrors(): string[] {
  return internalErrors.splice(0);
}

function keepInternalError(what: string): void {
  if (strictByEnvironment() && internalErrors.length < MAX_INTERNAL_ERRORS) internalErrors.push(what);
}

const MAX_BODY_BYTES = 1024 * 1024;
const MAX_LOG_ENTRIES = 100_000;

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const clock = options.clock ?? Date.now;
  let faults = new FaultInjector(options.faults ?? {}, clock);
  const ttlMs = (f: FaultOptions): number => (f.pageTokenTtlSeconds ?? DEFAULT_PAGE_TOKEN_TTL_SECONDS) * 1000;
  const uidRandom = (f: FaultOptions) =>
    f.seed === undefined ? undefined : createSeededRandom((f.seed ^ 0x5bd1e995) >>> 0);
  const tokens = checkTokens(options.tokens ?? []);
  const service = new EmulatorService({
    tokens,
    clock,
    random: uidRandom(options.faults ?? {}),
    pageTokenTtlMs: ttlMs(options.faults ?? {}),
    checkAnswers: options.checkAnswers ?? strictByEnvironment(),
    plainResponses: options.plainResponses === true,
  });

  service.answerFault = options.answerFault;
  service.storeFault = options.storeFault;

  const seedNow = (): void => {
    if (options.seed === undefined) return;
    const doc = typeof options.seed === 'string' ? readSeedFile(options.seed) : options.seed;
    applySeed(service, doc, typeof options.seed === 'string' ? options.seed : '(seed option)');
  };
  // The seed is used only when there is no state yet; with a state file it is loaded, its
  // journal replayed, and from here on every change is journalled (persist.ts).
  let lock: StateLock | undefined;
  let durable: DurableState | undefined;
  if (options.statePath) {
    lock = await acquireStateLock(options.statePath, {
      ...(options.lockWait ? { wait: options.lockWait } : {}),
      ...(options.lockHolder ? { what: options.lockHolder } : {}),
    });
    try {
      // The real path: writes replace the state file itself, never a symlink to it.
      const real = realStatePath(options.statePath);
      const opened = await openDurableState(real, service.store, seedNow, { repair: options.repair === true }).catch(
        (err: unknown) => {
          // An error names the path the user gave, and what it links to (issue 48): not the target alone.
          const linked = real !== resolvePath(options.statePath!);
          if (err instanceof StateFileError && linked)
            throw new StateFileError(`${options.statePath!} (a link to ${real})`, err.reason);
          throw err;
        },
      );
      durable = opened.state;
      await lock.holdFile?.();
      for (const note of opened.notes)
        (options.onNote ?? ((n: string) => process.stderr.write(`emulator: ${n}\n`)))(note);
    } catch (err) {
      lock.release();
      throw err;
    }
  } else {
    seedNow();
  }

  /** The first failure to make a change durable (an fsync error): the emulator serves nothing after it. */
  let stateFailure: Error | undefined;
  const requestLog: RequestLogEntry[] = [];
  let seq = 0;
  const log = (entry: RequestLogEntry): void => {
    requestLog.push(entry);
    if (requestLog.length > MAX_LOG_ENTRIES) requestLog.splice(0, requestLog.length - MAX_LOG_ENTRIES / 2);
  };

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handleHttp(req, res).catch((err) => {
      // The client went away mid-request (killed, timed out): normal for a server, nothing to answer.
      // Not `req.destroyed`: a request whose body was read is destroyed (autoDestroy), and its
      // client still waits for an answer — only a socket really gone has nobody to answer.
      if (res.destroyed || req.socket.destroyed || (err as NodeJS.ErrnoException)?.code === 'ECONNRESET') return;
      // A bug in the emulator: answer 500 with an AIP-193 body rather than hang the client.
      process.stderr.write(`emulator: internal error: ${(err as Error)?.stack ?? err}\n`);
      keepInternalError(`${req.method} ${req.url}: ${(err as Error)?.message ?? err}`);
      if (!res.headersSent)
        sendJson(res, 500, { code: 13, message: `Internal: ${(err as Error)?.message ?? err}`, details: [] });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const entrySeq = ++seq;
    // HEAD answers as GET does, without the body (node's server leaves it out).
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    const url = new URL(req.url ?? '/', 'http://emulator');
    // An empty query value means "not set" (AIP): `?updateMask=` is no mask at all.
    for (const [key, value] of [...url.searchParams]) if (value === '') url.searchParams.delete(key, value);
    const query: Record<string, string> = Object.fromEntries(url.searchParams);
    // uids may arrive with raw '/' or as %2F: both decode to the same path.
    const path = isDecodable(url.pathname) ? decodeURIComponent(url.pathname) : url.pathname;
    const entry: RequestLogEntry = { seq: entrySeq, method, path, query, status: 0 };
    const decision = faults.decide();
    if (decision.delayMs > 0) await sleep(decision.delayMs);
    const finish = (reply: ApiReply, faulted?: RequestLogEntry['faulted']): void => {
      entry.status = reply.status;
      if (reply.status === 500 && faulted === undefined)
        keepInternalError(`${method} ${path}: ${JSON.stringify(reply.body)}`);
      if (faulted) entry.faulted = faulted;
      log(entry);
      if (reply.body === undefined) {
        res.writeHead(reply.status, { 'content-length': '0', ...reply.headers });
        res.end();
      } else sendJson(res, reply.status, reply.body, reply.headers);
    };
    const reset = (applied: boolean): void => {
      entry.faulted = 'reset';
      if (applied) entry.applied = true;
      log(entry);
      resetSocket(req.socket);
    };
    const injected = (codeName: 'UNAVAILABLE' | 'RESOURCE_EXHAUSTED' | 'INTERNAL'): ApiReply =>
      failureReply(injectedFailure(codeName, faults.retryAfterSeconds).inDomain(errorDomainFor(path)));
    if (decision.action === 'ratelimit') return finish(injected('RESOURCE_EXHAUSTED'), 'ratelimit');
    if (decision.action === 'error') return finish(injected('UNAVAILABLE'), 'error');
    if (decision.action === 'internal-before') return finish(injected('INTERNAL'), 'internal');
    if (decision.action === 'reset-before') return reset(false);
    let body: unknown;
    try {
      body = await readJsonBody(req);
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      // A body too large is not read to its end: the connection is closed after this answer, and the answer says so.
      if (err.closesConnection) res.shouldKeepAlive = false;
      return finish(failureReply(err.inDomain(errorDomainFor(path))));
    }
    if (!isDecodable(url.pathname)) {
      return finish(failureReply(invalidArgument([{ field: 'path', description: 'is not valid percent-encoding' }])));
    }
    options.internalFault?.({ method, path });
    // Once a change could not be made durable, nothing more is acknowledged or served (the
    // store holds a change no journal has): 503 until the emulator is restarted.
    if (stateFailure !== undefined)
      return finish(failureReply(stateUnavailable(stateFailure).inDomain(errorDomainFor(path))));
    const reply = service.handle({
      method,
      path,
      query: url.searchParams,
      body,
      authorization: req.headers.authorization,
      ...(decision.shortPage !== undefined ? { shortPage: decision.shortPage } : {}),
    });
    const applied = reply.mutated === true && reply.status < 300;
    if (applied && durable) {
      // Acknowledged only once durable: the journal line is fsynced (shared with concurrent requests).
      try {
        await durable.commit();
      } catch (err) {
        stateFailure ??= err as Error;
        process.stderr.write(
          `emulator: cannot write the state journal of ${options.statePath}: ${(err as Error).message}; no write is acknowledged from now on (503 until restart)\n`,
        );
        return finish(failureReply(stateUnavailable(stateFailure).inDomain(errorDomainFor(path))));
      }
    }
    if (decision.action === 'reset-after') return reset(applied);
    if (decision.action === 'internal-after') {
      if (applied) entry.applied = true;
      return finish(injected('INTERNAL'), 'internal');
    }
    finish(reply, reply.shortened ? 'short-page' : undefined);
  }

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err) =>
        reject(
          new UserError(
            'EMULATOR_LISTEN',
            `emulator cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${err.message}`,
          ),
        ),
      );
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
  } catch (err) {
    await durable?.close().catch(() => undefined);
    lock?.release();
    throw err;
  }
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${hostForUrl}:${address.port}`,
    port: address.port,
    requestLog,
    flush: async () => {
      await durable?.compact();
    },
    close() {
      closed ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
        try {
          await durable?.close();
        } finally {
          lock?.release();
        }
      })();
      return closed;
    },
    setFaults(f: FaultOptions) {
      const problem = checkFaultOptions(f);
      if (problem) throw new RangeError(`emulator faults: ${problem}`);
      faults = new FaultInjector(f, clock);
      service.pageTokenTtlMs = ttlMs(f);
      if (f.seed !== undefined) service.random = uidRandom(f);
    },
    seed(doc: SeedDocument) {
      // Journalled like any change; durable at the next commit, flush() or close().
      return applySeed(service, doc);
    },
    clearRequestLog() {
      requestLog.length = 0;
    },
    resourceCount() {
      return service.store.count();
    },
    checksAnswers: service.checkAnswers,
  };
}

function failureReply(f: ApiFailure): ApiReply {
  return { status: f.status, body: f.toBody(), headers: f.headers };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  // Encoded once: its length is the content-length, and it is what is written.
  const bytes = Buffer.from(replyBodyText(body), 'utf8');
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(bytes.length),
    ...headers,
  });
  res.end(bytes);
}

/** A TCP reset where the platform supports it, else an abrupt close. */
function resetSocket(socket: Socket): void {
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

function isDecodable(s: string): boolean {
  try {
    decodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
}

async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') return undefined;
  // A body is JSON, said so (DESIGN.md §6 rev 4): anything else is 415, never read as JSON.
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiFailure(
      'INVALID_ARGUMENT',
      `Invalid argument: the request body must be application/json, got ${type === '' ? 'no Content-Type' : JSON.stringify(type)}`,
      [],
      {},
      415,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalidArgument([{ field: '(body)', description: `is not valid JSON: ${(err as Error).message}` }]);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The answer to every request once the state could not be made durable. */
function stateUnavailable(cause: Error): ApiFailure {
  return new ApiFailure(
    'UNAVAILABLE',
    `Unavailable: the emulator could not make a change durable (${cause.message}); it acknowledges nothing until it is restarted`,
    [],
  );
}
