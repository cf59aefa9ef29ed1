/**
 * Whole listings over HTTP: concurrent skip pages, pages shorter than asked for, page tokens
 * that expire mid-listing (emulator clock control) and listings that change while read.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Emulator, SeedDocument } from '../../src/emulator/index.js';
import type { ApiClient, ApiObject } from '../../src/api/types.js';
import { InconsistentListingError } from '../../src/api/paginate.js';
import { createTestClient, startTestEmulator } from './client-harness.js';

const IDENTITIES = 1030;
const seed: SeedDocument = {
  orgs: [{ name: 'acme', identities: Array.from({ length: IDENTITIES }, (_, i) => ({ name: `id-${i}` })) }],
};

let now = Date.UTC(2026, 0, 1);
let emulator: Emulator;
let orgUid: string;
const clients: ApiClient[] = [];

beforeEach(async () => {
  now = Date.UTC(2026, 0, 1);
  emulator = await startTestEmulator({ seed, clock: () => now, faults: { pageTokenTtlSeconds: 60 } });
  const probe = client();
  orgUid = (await probe.list('group', { name: 'acme' })).items[0]!.uid;
  emulator.clearRequestLog();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await emulator.close();
});

function client(options: Parameters<typeof createTestClient>[1] = {}): ApiClient {
  const c = createTestClient(emulator, options);
  clients.push(c);
  return c;
}

function listRequests() {
  return emulator.requestLog.filter((e) => e.method === 'GET' && e.path === '/iam/v2/identities');
}

function expectAllIdentities(items: ApiObject[]): void {
  expect(items).toHaveLength(IDENTITIES);
  expect(new Set(items.map((i) => i.uid)).size).toBe(IDENTITIES);
  expect(new Set(items.map((i) => i.name))).toEqual(new Set(Array.from({ length: IDENTITIES }, (_, i) => `id-${i}`)));
}

describe('list', () => {
  it('reads the first page, then the rest at once by skip under one order_by', async () => {
    const result = await client().list('identity', { descendantsOf: orgUid });
    expect(result.consistent).toBe(true);
    expectAllIdentities(result.items);
    expect(result.requests).toBe(6);
    const reqs = listRequests();
    // Each page starts one item early, on the last item of the page before (the shift check).
    expect(reqs.map((r) => r.query.skip)).toEqual([undefined, '199', '398', '597', '796', '995']);
    expect(
      reqs.every(
        (r) => r.query.page_size === '200' && r.query.order_by === 'uid' && r.query['uidp.descendants_of'] === orgUid,
      ),
    ).toBe(true);
    expect(reqs.some((r) => r.query.page_token !== undefined)).toBe(false);
  });

  it('works when the server serves fewer items per page than asked', async () => {
    // The API clamps page_size to 200; the client asked for 500 and must not leave gaps.
    const result = await client({ pageSize: 500 }).list('identity', { descendantsOf: orgUid });
    expect(result.consistent).toBe(true);
    expectAllIdentities(result.items);
    expect(listRequests().map((r) => r.query.skip)).toEqual([undefined, '199', '398', '597', '796', '995']);
  });

  it("reads every item once through the emulator's short pages, by skip and by cursor", async () => {
    for (const listStrategy of ['skip', 'cursor'] as const) {
      emulator.setFaults({ seed: 17, shortPageRate: 0.5 });
      emulator.clearRequestLog();
      const result = await client({ listStrategy, listConcurrency: 2 }).list('identity', { descendantsOf: orgUid });
      expect(result.consistent).toBe(true);
      expectAllIdentities(result.items);
      // The faults did bite: some pages came back shorter than the 200 the server serves.
      expect(listRequests().filter((e) => e.faulted === 'short-page').length).toBeGreaterThan(1);
    }
  });

  it('reads small listings in one request', async () => {
    const result = await client().list('group', { name: 'acme' });
    expect(result).toMatchObject({ consistent: true, requests: 1 });
    expect(result.items.map((g) => g.uid)).toEqual([orgUid]);
  });

  it('re-reads a listing that changed between pages, and settles', async () => {
    let injected = false;
    const c = client({
      onRequest: () => {
        if (injected) return;
        injected = true; // after the first page: someone else creates identities elsewhere
        emulator.seed({ orgs: [{ name: 'other', identities: [{ name: 'late-1' }, { name: 'late-2' }] }] });
      },
    });
    const result = await c.list('identity');
    expect(result.consistent).toBe(true);
    expect(result.items).toHaveLength(IDENTITIES + 2);
    expect(listRequests().filter((r) => r.query.skip === undefined)).toHaveLength(2); // two whole reads
  });
});

describe('expired page tokens (cursor reads)', () => {
  it('detects the silent restart of an expired token and re-reads', async () => {
    let requests = 0;
    const c = client({
      listStrategy: 'cursor',
      onRequest: () => {
        // Between the 2nd and 3rd page of the first read, the token outlives its 60 s.
        if (++requests === 2) now += 120_000;
      },
    });
    const result = await c.list('identity', { descendantsOf: orgUid });
    expect(result.consistent).toBe(true);
    expectAllIdentities(result.items);
    const reqs = listRequests();
    // Read 1: page 1, page 2, a restarted "page 3"; read 2: six pages.
    expect(reqs).toHaveLength(3 + 6);
    expect(reqs[2]!.query.page_token).toBeDefined();
    expect(reqs[3]!.query.page_token).toBeUndefined();
  });

  it('reports a listing whose tokens always expire as inconsistent, with the reason', async () => {
    const c = client({ listStrategy: 'cursor', maxListReads: 2, onRequest: () => (now += 120_000) });
    const result = await c.list('identity', { descendantsOf: orgUid });
    expect(result.consistent).toBe(false);
    expect(result.problem).toMatch(/page token expired and the listing restarted .*read 2 times/);
    expect(result.requests).toBe(2 * 2);
  });

  it('skip reads do not depend on page tokens, so expiry cannot break them', async () => {
    const c = client({ onRequest: () => (now += 120_000) });
    const result = await c.list('identity', { descendantsOf: orgUid });
    expect(result.consistent).toBe(true);
    expectAllIdentities(result.items);
  });
});

describe('paginate (streaming)', () => {
  it('streams every item once, in uid order', async () => {
    const seen: ApiObject[] = [];
    for await (const item of client().paginate('identity', { descendantsOf: orgUid })) seen.push(item);
    expectAllIdentities(seen);
    const uids = seen.map((s) => s.uid);
    expect(uids).toEqual([...uids].sort());
  });

  it('ends with InconsistentListingError when the cursor restarts under it', async () => {
    let requests = 0;
    const c = client({ listStrategy: 'cursor', onRequest: () => (++requests === 2 ? (now += 120_000) : undefined) });
    const consume = async () => {
      let n = 0;
      for await (const _ of c.paginate('identity', { descendantsOf: orgUid })) n++;
      return n;
    };
    const err = await consume().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InconsistentListingError);
    expect((err as Error).message).toMatch(
      new RegExp(`list identities under ${orgUid}: the listing did not read back consistently`),
    );
  });
});
