/**
 * A raw node:http server on a loopback port for client tests: it answers with whatever handler
 * a test sets (misbehaving exactly as the test needs) and records the requests it saw.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { createClient, type ClientOptions } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface RawServer {
  url: string;
  /** Requests seen since the handler was last set. */
  seen: { method: string; url: string }[];
  /** Answers every request with `handler` from now on (and forgets the requests seen). */
  answer(handler: Handler): void;
  close(): Promise<void>;
}

export async function startRawServer(): Promise<RawServer> {
  let handler: Handler = (_req, res) => res.end();
  const seen: RawServer['seen'] = [];
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '' });
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    answer(h) {
      handler = h;
      seen.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * One raw server for a test file: started before its tests, closed after them. `serve` sets the
 * handler and returns a client of it that does not retry (the first answer is the one judged).
 */
export function useRawServer(token: string): {
  serve(handler: Handler, options?: Partial<ClientOptions>): ApiClient;
  answer(handler: Handler): void;
  readonly url: string;
  readonly seen: RawServer['seen'];
} {
  let raw: RawServer;
  beforeAll(async () => {
    raw = await startRawServer();
  });
  afterAll(() => raw.close());
  return {
    serve(handler, options = {}) {
      raw.answer(handler);
      return createClient({ baseUrl: raw.url, token, retry: { maxAttempts: 1 }, ...options });
    },
    answer: (handler) => raw.answer(handler),
    get url() {
      return raw.url;
    },
    get seen() {
      return raw.seen;
    },
  };
}
