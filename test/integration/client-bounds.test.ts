/**
 * Listings are bounded (DESIGN.md §4): a server that lies about `totalCount`, pages forever or
 * serves a huge page gets a clear error naming the listing — never a crash, a hang or memory
 * without end. Raw node:http servers on port 0 misbehave exactly so.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { ListingBoundError } from '../../src/api/paginate.js';
import { useRawServer } from '../support/raw-server.js';
import { ACME, runCli } from '../e2e/cli-harness.js';

const TOKEN = 'tok-bounds-server-5ecret-31';
const uid = (n: number) => n.toString(16).padStart(40, '0');

const raw = useRawServer(TOKEN);
const { serve } = raw;

/** A list envelope for whatever collection was asked for (`/iam/v2/groups` → `groups`). */
function envelope(
  req: IncomingMessage,
  res: ServerResponse,
  items: unknown[],
  extra: Record<string, unknown> = {},
): void {
  const plural = new URL(req.url ?? '/', 'http://x').pathname.split('/').pop()!;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ [plural]: items, ...extra }));
}

async function rejection(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (err) {
    expect(String((err as Error).message)).not.toContain(TOKEN);
    return err as Error;
  }
  throw new Error('expected the listing to fail');
}

describe('a listing against a server that lies about its size', () => {
  it('a totalCount of a billion is refused after one page, before a slot per offset is built', async () => {
    const client = serve((req, res) =>
      envelope(req, res, [{ uid: uid(1), name: 'acme' }], { totalCount: '1000000000' }),
    );
    const err = await rejection(client.list('group'));
    expect(err).toBeInstanceOf(ListingBoundError);
    expect(err.message).toContain(
      'list groups (GET /iam/v2/groups): the server says totalCount 1000000000, more than the 1,000,000 items a listing may hold',
    );
    expect(raw.seen).toHaveLength(1);
    await client.close();
  });

  it('a totalCount that is no count ("Infinity", "-1", "1e9") is an error naming it', async () => {
    for (const total of ['Infinity', '-1', '1e9']) {
      const client = serve((req, res) => envelope(req, res, [{ uid: uid(1) }], { totalCount: total }));
      const err = await rejection(client.list('identity'));
      expect(err).toBeInstanceOf(ApiError);
      expect(err.message).toContain(`the list envelope's totalCount "${total}" is not a count`);
      await client.close();
    }
  });

  it('a claim that needs more pages than the bound, at the page size served, is refused before paging', async () => {
    // One item a page and a claim of 50,000: 50,000 pages.
    const client = serve((req, res) => envelope(req, res, [{ uid: uid(1) }], { totalCount: '50000' }));
    const err = await rejection(client.list('repo'));
    expect(err.message).toContain(
      'at 1 items a page, the totalCount of 50000 the server claims takes 50,000 pages, more than the 10,000 a listing may take',
    );
    expect(raw.seen).toHaveLength(1);
    await client.close();
  });

  it('endless pages (a fresh item and a new token each time) stop at the page bound', async () => {
    let n = 0;
    const client = serve((req, res) => envelope(req, res, [{ uid: uid(++n) }], { nextPageToken: `t${n}` }), {
      listBounds: { maxPages: 40 },
    });
    const err = await rejection(client.list('role'));
    expect(err.message).toContain('list roles (GET /iam/v2/roles): it went on past 40 pages');
    expect(raw.seen).toHaveLength(40);
    await client.close();
  });

  it('endless slow pages stop at the wall-clock budget', async () => {
    let n = 0;
    const client = serve(
      (req, res) => setTimeout(() => envelope(req, res, [{ uid: uid(++n) }], { nextPageToken: `t${n}` }), 20),
      { listBounds: { budgetMs: 300 } },
    );
    const err = await rejection(client.list('identity'));
    expect(err.message).toMatch(
      /list identities \(GET \/iam\/v2\/identities\): it took longer than 300 ms \(\d+ pages, \d+ items read\)/,
    );
    await client.close();
  });

  it('more items than the item bound is an error, and a page of 130,000 items under it is read whole', async () => {
    const many = Array.from({ length: 130_000 }, (_, i) => ({ uid: uid(i + 1) }));
    const client = serve((req, res) => envelope(req, res, many, { totalCount: String(many.length) }));
    const read = await client.list('tag');
    expect(read.items).toHaveLength(130_000);
    expect(read.consistent).toBe(true);
    await client.close();
    const bounded = serve((req, res) => envelope(req, res, many), { listBounds: { maxItems: 100_000 } });
    const err = await rejection(bounded.list('tag'));
    expect(err.message).toContain('the server served more than 100,000 items');
    await bounded.close();
  });

  it('endless pages of huge items stop at the bytes a read may keep, long before the heap fills (found by the review)', async () => {
    // 50 items of 10 KB a page, new uids on every page, no totalCount, an endless token: within
    // the item and page bounds, but the bytes grow without end (the review's pages were 30 MB).
    let n = 0;
    const description = 'x'.repeat(10_000);
    const client = serve(
      (req, res) => {
        const page = n++;
        const items = Array.from({ length: 50 }, (_, i) => ({
          uid: uid(page * 50 + i + 1),
          name: `big-${i}`,
          description,
        }));
        envelope(req, res, items, { nextPageToken: `t${page + 1}` });
      },
      { listBounds: { maxBytes: 2_000_000 } },
    );
    const err = await rejection(client.list('identity'));
    expect(err).toBeInstanceOf(ListingBoundError);
    expect(err.message).toMatch(
      /^list identities \(GET \/iam\/v2\/identities\): the read kept [\d,]+ bytes of response bodies, more than the 2,000,000 bytes \(listBounds\.maxBytes\) one read may keep; the listing was abandoned/,
    );
    // ≈500 KB a page: the fourth page goes past 2 MB, and no page is asked for after it.
    expect(raw.seen).toHaveLength(4);
    await client.close();
  });

  it('plan against a server claiming a billion groups exits 1 naming the listing, with nothing written', async () => {
    raw.answer((req, res) =>
      envelope(req, res, [{ uid: uid(1), name: 'acme', createTime: '2026-01-01T00:00:00Z' }], {
        totalCount: '1000000000',
      }),
    );
    const run = await runCli(['plan', ACME], { env: { PLATFORM_API_URL: raw.url, PLATFORM_TOKEN: TOKEN } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'the server says totalCount 1000000000, more than the 1,000,000 items a listing may hold',
    );
    expect(run.stdout).toBe('');
    expect(raw.seen.length).toBeGreaterThan(0);
    expect(raw.seen.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
