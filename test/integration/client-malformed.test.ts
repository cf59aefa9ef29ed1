/**
 * The client against raw node:http servers that misbehave in ways the emulator never does: a
 * proxy's empty 200 or HTML page, a list envelope without its array, a redirect, a compressed
 * body. Each must be a clear error naming what was wrong (never an empty result that makes an
 * org look absent), and the token must appear in none of them.
 */
import type { ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { useRawServer } from '../support/raw-server.js';
import { readLiveState } from '../../src/live/index.js';

const TOKEN = 'tok-raw-server-5ecret-77';

const raw = useRawServer(TOKEN);
const { serve } = raw;

async function failure(work: Promise<unknown>): Promise<ApiError> {
  try {
    await work;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect(String((err as Error).message)).not.toContain(TOKEN);
    return err as ApiError;
  }
  throw new Error('expected the request to fail');
}

const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('the client against a server that misbehaves', () => {
  it('an empty 200 is an error, not an empty list: the org is never taken for absent', async () => {
    const client = serve((_req, res) => res.end());
    const err = await failure(readLiveState(client, { org: { name: 'acme' } }));
    expect(err.message).toContain('the response body is empty (HTTP 200), where the API sends a JSON object');
    await client.close();
  });

  it('a list envelope without its array ({}) is an error naming the array', async () => {
    const client = serve((_req, res) => json(res, {}));
    const err = await failure(client.list('group', { name: 'acme' }));
    expect(err.message).toContain('the list envelope has no array "groups" of objects with a uid');
    await client.close();
  });

  it('an HTML page says it looks like one', async () => {
    const client = serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><html><body>Sign in to continue</body></html>');
    });
    const err = await failure(client.get('group', 'a'.repeat(40)));
    expect(err.message).toContain(
      'the response body is not JSON (it looks like an HTML page: a proxy or a wrong base URL?)',
    );
    await client.close();
  });

  it('a JSON value that is not an object is an error', async () => {
    const client = serve((_req, res) => json(res, [{ uid: 'x' }]));
    const err = await failure(client.get('repo', `${'a'.repeat(40)}/1`));
    expect(err.message).toContain('the response body is not a JSON object');
    await client.close();
  });

  it('a list item without a uid is an error', async () => {
    const client = serve((_req, res) => json(res, { groups: [{ name: 'acme' }], totalCount: '1' }));
    const err = await failure(client.list('group'));
    expect(err.message).toContain('no array "groups" of objects with a uid');
    await client.close();
  });

  it('a redirect is not followed: an error says where it pointed, without credentials, and nothing more is sent', async () => {
    const client = serve((_req, res) => {
      res.writeHead(302, { location: 'https://user:pa55word@login.example.net/sso?next=%2Fiam' });
      res.end();
    });
    const err = await failure(client.list('group', { name: 'acme' }));
    expect(err.message).toContain(
      'the API answered with a redirect (HTTP 302) to https://login.example.net/sso?next=%2Fiam, which platform-sync does not follow; check the base URL',
    );
    expect(err.message).not.toContain('pa55word');
    expect(raw.seen).toHaveLength(1);
    await client.close();
  });

  it('a gzip body is decoded and read as the JSON it holds', async () => {
    const client = serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify({ groups: [{ uid: 'a'.repeat(40), name: 'acme' }], totalCount: '1' })));
    });
    const listing = await client.list('group', { name: 'acme' });
    expect(listing.items).toEqual([{ uid: 'a'.repeat(40), name: 'acme' }]);
    await client.close();
  });

  it('regression 6 (issue 35): a gzip bomb is bounded after decompression, not by its compressed size', async () => {
    // 4 KiB of gzip that inflates to 4 MiB: under the bound compressed, four times over it inflated
    // (64 MiB made the same point; compressing them was most of this file's time: issue 63).
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(10_000);
    const client = serve(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(bomb);
      },
      { maxResponseBytes: 1_000_000 },
    );
    const err = await failure(client.list('group'));
    expect(err.message).toContain(
      'the response body is over 1000000 bytes, more than any answer of the API; not read further',
    );
    await client.close();
  });

  it('an encoding it cannot decode is named, not reported as "not JSON"', async () => {
    const client = serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' });
      res.end(Buffer.from([0x28, 0xb5, 0x2f, 0xfd]));
    });
    const err = await failure(client.list('group'));
    expect(err.message).toContain('the response body has content-encoding "zstd", which could not be decoded');
    expect(err.message).not.toContain('not JSON');
    await client.close();
  });

  it('a body over the bound is an error naming the bound, and is not read to its end', async () => {
    let finished: boolean | undefined;
    const client = serve(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.on('close', () => (finished = res.writableFinished));
        res.write(`{"groups": [${' '.repeat(64 * 1024)}`);
        // Never ends by itself: only the client giving up ends it.
        const more = setInterval(() => res.write(' '.repeat(64 * 1024)), 5);
        res.on('close', () => clearInterval(more));
      },
      { maxResponseBytes: 100_000 },
    );
    const err = await failure(client.list('group'));
    expect(err.message).toContain(
      'the response body is over 100000 bytes, more than any answer of the API; not read further',
    );
    await client.close();
    await vi.waitFor(() => expect(finished).toBe(false));
  });

  it('a body that stops half-way is a timeout, like no answer at all', async () => {
    const client = serve(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"groups": [');
      },
      { timeoutMs: 150 },
    );
    const err = await failure(client.list('group'));
    expect(err.message).toContain('no response within 150 ms');
    await client.close();
  });

  it('close() ends a request still waiting for a connection as cancelled, before it is sent', async () => {
    const client = serve((_req, _res) => undefined, { connections: 1 }); // the first one never gets an answer
    const outcomes = Promise.allSettled([client.get('group', 'a'.repeat(40)), client.get('group', 'b'.repeat(40))]);
    await vi.waitFor(() => expect(raw.seen).toHaveLength(1));
    await client.close();
    for (const outcome of await outcomes)
      expect(outcome).toMatchObject({ status: 'rejected', reason: { grpcName: 'CANCELLED' } });
    expect(raw.seen).toEqual([{ method: 'GET', url: `/iam/v2/groups/${'a'.repeat(40)}` }]);
  });

  it('an empty body is fine for a DELETE, which answers with nothing', async () => {
    const client = serve((_req, res) => res.end());
    await expect(client.delete('repo', `${'a'.repeat(40)}/1`)).resolves.toBeUndefined();
    expect(raw.seen).toEqual([{ method: 'DELETE', url: `/registry/v2/repos/${'a'.repeat(40)}/1` }]);
    await client.close();
  });
});
