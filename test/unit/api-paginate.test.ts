/**
 * The paginator's checks, over an in-memory listing: page-length variations and the ways a
 * read goes wrong that the emulator cannot produce on demand (a listing that changes between
 * pages). The same code is exercised over HTTP in test/integration/client-pagination.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { paginateItems, readListing, type FetchPage, type Page, type PageRequest } from '../../src/api/paginate.js';

type Item = { uid: string };

function items(n: number, prefix = 'u'): Item[] {
  return Array.from({ length: n }, (_, i) => ({ uid: `${prefix}${String(i).padStart(5, '0')}` }));
}

/**
 * A listing served from an array: `maxPage` caps what a page holds; `pageLength` may vary it
 * per request; cursors are offsets.
 */
function arrayListing(
  data: () => Item[],
  opts: { maxPage?: number; pageLength?: (req: PageRequest, n: number) => number } = {},
) {
  const requests: PageRequest[] = [];
  const fetchPage: FetchPage<Item> = async (req) => {
    requests.push(req);
    const all = data();
    const start = req.pageToken !== undefined ? Number(req.pageToken) : (req.skip ?? 0);
    let len = Math.min(req.pageSize, opts.maxPage ?? 200);
    if (opts.pageLength) len = opts.pageLength(req, requests.length);
    const slice = all.slice(start, start + len);
    const next = start + slice.length;
    const page: Page<Item> = { items: slice, totalCount: all.length };
    if (next < all.length) page.nextPageToken = String(next);
    return page;
  };
  return { fetchPage, requests };
}

describe('readListing', () => {
  it('reads the first page, then the rest concurrently by skip, in order', async () => {
    const data = items(1000);
    const { fetchPage, requests } = arrayListing(() => data);
    const result = await readListing(fetchPage);
    expect(result.consistent).toBe(true);
    expect(result.items).toEqual(data);
    // Each page starts one item early, on the last item of the page before (the shift check).
    expect(requests.map((r) => r.skip)).toEqual([undefined, 199, 398, 597, 796, 995]);
    expect(new Set(requests.map((r) => r.orderBy))).toEqual(new Set(['uid']));
  });

  it('uses the page length the server really serves when it is below page_size', async () => {
    const data = items(450);
    const { fetchPage, requests } = arrayListing(() => data, { maxPage: 100 });
    const result = await readListing(fetchPage, { pageSize: 500 });
    expect(result.consistent).toBe(true);
    expect(result.items).toEqual(data);
    expect(requests.map((r) => r.skip)).toEqual([undefined, 99, 198, 297, 396]);
  });

  it('notices offsets that moved under the read even when the counts still add up', async () => {
    // After the first page, an item already read is deleted and a new one sorts last: the
    // total stays 1000, but every later offset moves down one and u00200 slides into page 1.
    const shifting = () => {
      let data = items(1000);
      let changed = false;
      const listing = arrayListing(() => data);
      const fetchPage: FetchPage<Item> = async (req) => {
        const page = await listing.fetchPage(req);
        if (!changed) {
          changed = true;
          data = [...data.filter((i) => i.uid !== 'u00005'), { uid: 'v00000' }];
        }
        return page;
      };
      return { fetchPage, requests: listing.requests, current: () => data };
    };
    const twice = shifting();
    const result = await readListing(twice.fetchPage, { concurrency: 1 });
    expect(result).toMatchObject({ consistent: true, reads: 2 });
    expect(result.items).toEqual(twice.current());
    expect(result.items.some((i) => i.uid === 'u00200')).toBe(true);
    expect(twice.requests.filter((r) => r.skip === undefined)).toHaveLength(2);
    // Without a re-read, the first read's problem is named.
    const once = await readListing(shifting().fetchPage, { maxReads: 1 });
    expect(once.consistent).toBe(false);
    expect(once.problem).toBe(
      'the items before offset 200 changed while the listing was read (expected u00199 there, found u00200), so a page may have been skipped (read 1 time)',
    );
  });

  it('follows up a short page that held only the overlap item instead of taking it for the end', async () => {
    const data = items(600);
    // The second request serves a single item: the one the page before ended with.
    const { fetchPage, requests } = arrayListing(() => data, { pageLength: (req, n) => (n === 2 ? 1 : req.pageSize) });
    const result = await readListing(fetchPage, { concurrency: 1 });
    expect(result).toMatchObject({ consistent: true, reads: 1 });
    expect(result.items).toEqual(data);
    expect(requests.map((r) => r.skip)).toEqual([undefined, 199, 199, 398, 597]);
  });

  it('tops up a slot that came back short, leaving no gap', async () => {
    const data = items(600);
    // Every second request serves only 50 items.
    const { fetchPage } = arrayListing(() => data, { pageLength: (req, n) => (n % 2 === 0 ? 50 : req.pageSize) });
    const result = await readListing(fetchPage);
    expect(result.consistent).toBe(true);
    expect(result.items).toEqual(data);
  });

  it('re-reads a listing whose totalCount changed mid-read and accepts the settled read', async () => {
    let data = items(500);
    let calls = 0;
    const { fetchPage } = arrayListing(() => {
      calls++;
      if (calls === 2) data = [...data, ...items(1, 'z')]; // something was created during the first read
      return data;
    });
    const result = await readListing(fetchPage);
    expect(result.consistent).toBe(true);
    expect(result.reads).toBe(2);
    expect(result.items).toHaveLength(501);
  });

  it('a read with more items than totalCount says is inconsistent, and so is one with fewer (issue 63: the survivor that accepted more)', async () => {
    for (const [served, claimed] of [
      [3, 2],
      [2, 3],
    ] as const) {
      const fetchPage: FetchPage<Item> = async (req) => ({
        items: items(served).slice(req.skip ?? 0),
        totalCount: claimed,
      });
      const result = await readListing(fetchPage, { maxReads: 1 });
      expect(result.consistent, `${served} items, totalCount ${claimed}`).toBe(false);
      expect(result.problem).toBe(`read ${served} items but totalCount is ${claimed} (read 1 time)`);
    }
  });

  it('items or a token past a false totalCount make the read inconsistent, never trimmed away (found by the review)', async () => {
    // The first page: 2 items, totalCount 3 and a token; every skip page serves the rest (4
    // items from skip 1), still claiming 3. Trimming the last slot to the count would read 3 of
    // 3 and call the listing whole, dropping u00003 and u00004.
    const data = items(5);
    const fetchPage: FetchPage<Item> = async (req) => ({
      items: req.skip === undefined ? data.slice(0, 2) : data.slice(req.skip),
      totalCount: 3,
      nextPageToken: 't',
    });
    const result = await readListing(fetchPage, { maxReads: 1 });
    expect(result.consistent).toBe(false);
    expect(result.problem).toBe(
      'the server says more items follow the totalCount of 3: the page at skip 1 held 2 more (read 1 time)',
    );
    // Just a token on the page that completes the count is the same sign.
    const tokenOnly: FetchPage<Item> = async (req) => ({
      items: req.skip === undefined ? data.slice(0, 2) : data.slice(req.skip, 3),
      totalCount: 3,
      nextPageToken: 't',
    });
    expect((await readListing(tokenOnly, { maxReads: 1 })).problem).toBe(
      'the server says more items follow the totalCount of 3: the page at skip 1 gave a token for a next page (read 1 time)',
    );
    const firstHoldsAll: FetchPage<Item> = async () => ({ items: data.slice(0, 3), totalCount: 3, nextPageToken: 't' });
    expect((await readListing(firstHoldsAll, { maxReads: 1 })).problem).toBe(
      'page 1 held the 3 items totalCount says, yet gave a token for a next page (read 1 time)',
    );
  });

  it('a page without totalCount makes the read inconsistent: it cannot be checked (found by the review)', async () => {
    // 3 items of 6, no count, no token: nothing says the listing is short but the missing count.
    const data = items(6);
    let requests = 0;
    const fetchPage: FetchPage<Item> = async () => {
      requests++;
      return { items: data.slice(0, 3) };
    };
    const result = await readListing(fetchPage);
    expect(result).toMatchObject({ consistent: false, reads: 3, items: data.slice(0, 3) });
    expect(result.problem).toBe(
      'page 1 carried no totalCount (every list answer has one), so the read cannot be checked against it (read 3 times)',
    );
    expect(requests).toBe(3);
    // A later page without one, in a cursor read, the same.
    const { fetchPage: counted } = arrayListing(() => data, { maxPage: 2 });
    const dropsIt: FetchPage<Item> = async (req) => {
      const page = await counted(req);
      return req.pageToken === '4' ? { ...page, totalCount: undefined } : page;
    };
    const cursor = await readListing(dropsIt, { strategy: 'cursor', maxReads: 1 });
    expect(cursor.problem).toMatch(/^page 3 carried no totalCount/);
  });

  it('counts the bytes a read keeps, and gives back those of a read it drops for a re-read', async () => {
    // An inconsistent listing of 100-byte pages under a bound of 150: each read keeps 100.
    const fetchPage: FetchPage<Item> = async () => ({ items: items(2), totalCount: 3, bytes: 100 });
    const readBytes = { kept: 0 };
    const result = await readListing(fetchPage, { strategy: 'cursor', bounds: { maxBytes: 150 }, readBytes });
    expect(result).toMatchObject({ consistent: false, reads: 3 });
    expect(readBytes.kept).toBe(100);
    // Shared with listings that keep 100 already: the first page goes past it.
    await expect(readListing(fetchPage, { bounds: { maxBytes: 150 }, readBytes, what: 'list tags' })).rejects.toThrow(
      'list tags: the read kept 200 bytes of response bodies, more than the 150 bytes (listBounds.maxBytes) one read may keep',
    );
  });

  it('reports a listing that never settles, with the reason', async () => {
    let n = 400;
    const { fetchPage } = arrayListing(() => items(n++));
    const result = await readListing(fetchPage, { maxReads: 2 });
    expect(result.consistent).toBe(false);
    expect(result.problem).toMatch(/totalCount changed .*read 2 times/);
  });

  it('detects a cursor that restarted (a repeated uid) and stops following it', async () => {
    const data = items(1000);
    let restarts = 1;
    const requests: PageRequest[] = [];
    const fetchPage: FetchPage<Item> = async (req) => {
      requests.push(req);
      let start = req.pageToken !== undefined ? Number(req.pageToken) : 0;
      if (start === 400 && restarts-- > 0) start = 0; // the token "expired"
      const slice = data.slice(start, start + 200);
      return {
        items: slice,
        totalCount: data.length,
        nextPageToken: start + 200 < data.length ? String(start + 200) : undefined,
      };
    };
    const result = await readListing(fetchPage, { strategy: 'cursor' });
    expect(result.consistent).toBe(true);
    expect(result.reads).toBe(2);
    expect(result.items).toEqual(data);
    expect(requests).toHaveLength(3 + 5);
  });
});

describe('readListing with an expected count', () => {
  /** The listing above, its first page held back a moment: how many requests went out before it came back. */
  function slowFirstPage(data: Item[], opts: Parameters<typeof arrayListing>[1] = {}) {
    const listing = arrayListing(() => data, opts);
    let beforeFirst = -1;
    const fetchPage: FetchPage<Item> = async (req) => {
      const page = listing.fetchPage(req);
      if (req.skip === undefined && req.pageToken === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        beforeFirst = listing.requests.length;
      }
      return page;
    };
    return { fetchPage, requests: listing.requests, beforeFirst: () => beforeFirst };
  }

  it('asks for every page the count needs beside the first: the same requests, one round trip', async () => {
    const data = items(1000);
    const listing = slowFirstPage(data);
    const result = await readListing(listing.fetchPage, { expectedCount: 1000 });
    expect(result).toMatchObject({ consistent: true, reads: 1 });
    expect(result.items).toEqual(data);
    expect(listing.beforeFirst()).toBe(6);
    expect(listing.requests.map((r) => r.skip)).toEqual([undefined, 199, 398, 597, 796, 995]);
  });

  it('reads exactly the listing when the count is wrong, setting aside pages it does not need', async () => {
    const data = items(1000);
    for (const expectedCount of [1500, 500, 1001, 999]) {
      const listing = slowFirstPage(data);
      const result = await readListing(listing.fetchPage, { expectedCount });
      expect(result, `expected ${expectedCount}`).toMatchObject({ consistent: true, reads: 1 });
      expect(result.items).toEqual(data);
      // Early pages that turn out to be another slot's are not taken: at most one more per slot.
      expect(listing.requests.length).toBeLessThanOrEqual(1 + Math.ceil((expectedCount - 200) / 199) + 5);
    }
  });

  it('takes no early page when the server serves shorter pages than asked for', async () => {
    const data = items(450);
    const listing = slowFirstPage(data, { maxPage: 100 });
    const result = await readListing(listing.fetchPage, { pageSize: 200, expectedCount: 450 });
    expect(result).toMatchObject({ consistent: true, reads: 1 });
    expect(result.items).toEqual(data);
    // The slots of 99 new items a page that the read makes once it sees pages of 100.
    expect(listing.requests.map((r) => r.skip).filter((skip) => skip !== undefined && skip % 99 === 0)).toEqual([
      99, 198, 297, 396,
    ]);
  });

  it('is not hurt by an early page that fails and is not needed', async () => {
    const data = items(500);
    const listing = arrayListing(() => data);
    const fetchPage: FetchPage<Item> = async (req) => {
      if ((req.skip ?? 0) >= 500) throw new Error('past the end');
      return listing.fetchPage(req);
    };
    const result = await readListing(fetchPage, { expectedCount: 900 });
    expect(result).toMatchObject({ consistent: true, reads: 1 });
    expect(result.items).toEqual(data);
  });

  it('ignores a count that is no count, or one past the bounds of a listing', async () => {
    const data = items(600);
    for (const expectedCount of [Number.NaN, -5, 2.5, 1e12]) {
      const listing = slowFirstPage(data);
      const result = await readListing(listing.fetchPage, { expectedCount, bounds: { maxPages: 100 } });
      expect(result.items).toEqual(data);
      expect(listing.beforeFirst(), `expected ${expectedCount}`).toBe(1);
      expect(listing.requests).toHaveLength(4);
    }
  });
});

describe('paginateItems', () => {
  it('streams every item once, in listing order', async () => {
    const data = items(730);
    const { fetchPage } = arrayListing(() => data);
    const seen: string[] = [];
    for await (const item of paginateItems(fetchPage, 'list things')) seen.push(item.uid);
    expect(seen).toEqual(data.map((d) => d.uid));
  });

  it('stops fetching when the consumer stops early', async () => {
    const data = items(2000);
    const { fetchPage, requests } = arrayListing(() => data);
    for await (const item of paginateItems(fetchPage, 'list things', { concurrency: 2 })) {
      if (item.uid === 'u00010') break;
    }
    await new Promise((r) => setTimeout(r, 10));
    expect(requests.length).toBeLessThan(10);
  });

  it('ends with an error naming the listing when the read is inconsistent', async () => {
    let n = 300;
    const { fetchPage } = arrayListing(() => items(n++));
    const consume = async () => {
      for await (const _ of paginateItems(fetchPage, 'list repos under X')) void _;
    };
    await expect(consume()).rejects.toThrow(
      /list repos under X: the listing did not read back consistently: totalCount changed/,
    );
  });
});
