/**
 * The one API simulation of the unit tests: the real client over the emulator's own request
 * handler (EmulatorService.handle), joined by an undici MockAgent instead of a socket. So a unit
 * test gets the whole API's behaviour — parents, uniqueness, RESOURCE_NOT_EMPTY, masks, paging —
 * at in-process speed, and there is no second, hand-written API to drift from the emulator.
 * Integration tests use the emulator over real HTTP instead.
 */
import { MockAgent } from 'undici';
import { createClient, type ClientOptions } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import { createSeededRandom } from '../../src/emulator/prng.js';
import type { SeedDocument, SeedResult } from '../../src/emulator/seed-document.js';
import { applySeed } from '../../src/emulator/seed.js';
import { type ApiReply, type ApiRequest, replyBodyText } from '../../src/emulator/exchange.js';
import { EmulatorService } from '../../src/emulator/service.js';
import { invalidArgument, permissionDenied } from '../../src/emulator/failures.js';

export const IN_PROCESS_TOKEN = 'in-process-owner-token';
const ORIGIN = 'http://in-process.emulator.invalid';

/** One request the simulated API answered. */
export interface InProcessRequest {
  method: string;
  /** Path without the query, percent-decoded. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
}

export interface InProcessApiOptions {
  seed?: SeedDocument;
  /** Seed of the emulator's uid randomness (default 1): the same test, the same uids. */
  uidSeed?: number;
  /** Answers a request before the emulator does (a failure to inject); undefined lets it through. */
  intercept?: (req: ApiRequest) => ApiReply | undefined;
  client?: Partial<ClientOptions>;
}

export interface InProcessApi {
  client: ApiClient;
  service: EmulatorService;
  /** Uids of what the seed created, by readable key (`repo:acme/nginx`; see SeedResult). */
  seeded: SeedResult;
  /** Every request answered, in order. */
  log: InProcessRequest[];
  close(): Promise<void>;
}

export function createInProcessApi(options: InProcessApiOptions = {}): InProcessApi {
  const service = new EmulatorService({
    tokens: [{ token: IN_PROCESS_TOKEN, role: 'owner' }],
    clock: Date.now,
    random: createSeededRandom(options.uidSeed ?? 1),
    pageTokenTtlMs: 3 * 24 * 3600 * 1000,
    // Every answer the unit tests get is held to the emulator's own contract.
    checkAnswers: true,
  });
  const seeded = options.seed ? applySeed(service, options.seed) : { orgUids: {}, uids: {}, count: 0 };
  const log: InProcessRequest[] = [];
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: () => true })
    .reply((opts) => {
      const url = new URL(opts.path, ORIGIN);
      const body = typeof opts.body === 'string' && opts.body !== '' ? (JSON.parse(opts.body) as unknown) : undefined;
      const headers = opts.headers as Record<string, string> | undefined;
      const req: ApiRequest = {
        method: opts.method,
        path: decodeURIComponent(url.pathname),
        query: url.searchParams,
        body,
        authorization: headers?.authorization,
      };
      const reply = options.intercept?.(req) ?? service.handle(req);
      log.push({
        method: req.method,
        path: req.path,
        query: Object.fromEntries(url.searchParams),
        body,
        status: reply.status,
      });
      return {
        statusCode: reply.status,
        data: reply.body === undefined ? '' : replyBodyText(reply.body),
        responseOptions: { headers: { 'content-type': 'application/json', ...reply.headers } },
      };
    })
    .persist();
  const client = createClient({
    baseUrl: ORIGIN,
    allowInsecureHttp: true, // no network: the dispatcher answers in-process
    token: IN_PROCESS_TOKEN,
    dispatcher: agent,
    retry: { maxAttempts: 1 },
    ...options.client,
  });
  return {
    client,
    service,
    seeded,
    log,
    close: async () => {
      await client.close();
      await agent.close();
    },
  };
}

/** A reply that refuses the request with PERMISSION_DENIED (code 7, HTTP 403). */
export function permissionDeniedReply(description: string): ApiReply {
  const failure = permissionDenied(description);
  return { status: failure.status, body: failure.toBody(), headers: failure.headers };
}

/** A reply that refuses the request as invalid (code 3, HTTP 400): a failure of this step alone. */
export function invalidArgumentReply(field: string, description: string): ApiReply {
  const failure = invalidArgument([{ field, description }]);
  return { status: failure.status, body: failure.toBody(), headers: failure.headers };
}
