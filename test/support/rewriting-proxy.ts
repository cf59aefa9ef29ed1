/**
 * A hostile middlebox for tests: a real node:http server on a loopback port that forwards every
 * request to an upstream (the emulator) and may rewrite the JSON of its answers — drop an item
 * from a listing, inject text — the way a broken proxy or a compromised server would.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Rewrites one answer's JSON body (parsed); return it (or a new value) to send, or {@link answerWith} to change the status too. */
export type Rewrite = (request: { method: string; path: string }, body: unknown) => unknown;

const ANSWER = Symbol('answer');

/** What a rewrite returns to answer with another status and body (a server that echoes a request in its error). */
export function answerWith(status: number, body: unknown): unknown {
  return { [ANSWER]: true, status, body };
}

export interface RewritingProxy {
  url: string;
  /** Requests seen, in order, with their bodies as sent. */
  seen: { method: string; path: string; body: string }[];
  /** Every exchange whole, in order: the request as sent, the answer as the upstream gave it (before any rewrite). */
  exchanges: ProxiedExchange[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** One request and its answer, as they crossed the proxy. */
export interface ProxiedExchange {
  method: string;
  /** Path with the query, as sent. */
  url: string;
  requestBody: string;
  status: number;
  responseBody: string;
}

/**
 * `refuse`: called before a request is forwarded; when it returns {@link answerWith}, the proxy
 * answers so and the upstream never sees the request (a service that refuses it).
 */
export async function startRewritingProxy(
  upstream: string,
  rewrite: Rewrite,
  options: { refuse?: (request: { method: string; path: string }) => unknown } = {},
): Promise<RewritingProxy> {
  const seen: RewritingProxy['seen'] = [];
  const exchanges: ProxiedExchange[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const body = await readBody(req);
      seen.push({ method, path, body: body.toString('utf8') });
      const refused = options.refuse?.({ method, path }) as
        | { [ANSWER]?: true; status: number; body: unknown }
        | undefined;
      if (refused !== null && typeof refused === 'object' && refused[ANSWER]) {
        res.writeHead(refused.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(refused.body));
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of ['authorization', 'content-type']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const answer = await fetch(`${upstream}${path}`, { method, headers, body: body.length > 0 ? body : undefined });
      const text = await answer.text();
      exchanges.push({
        method,
        url: path,
        requestBody: body.toString('utf8'),
        status: answer.status,
        responseBody: text,
      });
      let out = text;
      let status = answer.status;
      if (text !== '' && (answer.headers.get('content-type') ?? '').includes('json')) {
        const rewritten = rewrite({ method, path }, JSON.parse(text)) as {
          [ANSWER]?: true;
          status: number;
          body: unknown;
        };
        if (rewritten !== null && typeof rewritten === 'object' && rewritten[ANSWER]) {
          status = rewritten.status;
          out = JSON.stringify(rewritten.body);
        } else out = JSON.stringify(rewritten);
      }
      res.writeHead(status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(out);
    })().catch((err: unknown) => {
      res.writeHead(502);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    exchanges,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
