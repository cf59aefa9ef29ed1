/**
 * Retries against the emulator's seeded faults over real HTTP: 503s, 429 with Retry-After,
 * connection resets (before and after the request was applied), timeouts — and creates that
 * happen exactly once whatever the faults.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator, SeedOrg } from '../../src/emulator/index.js';
import type { ClientRetryEvent } from '../../src/api/client.js';
import type { ApiClient, RequestEvent } from '../../src/api/types.js';
import { ApiError } from '../../src/api/errors.js';
import { createTestClient, startTestEmulator } from './client-harness.js';

let emulator: Emulator | undefined;
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  await emulator?.close();
  client = emulator = undefined;
});

async function setUp(seedOrgs: SeedOrg[] = [{ name: 'acme', repos: [{ name: 'nginx' }] }]) {
  emulator = await startTestEmulator({ seed: { orgs: seedOrgs } });
  return emulator;
}

async function orgUidOf(c: ApiClient, name = 'acme'): Promise<string> {
  const { items } = await c.list('group', { name });
  return items[0]!.uid;
}

describe('client retries', () => {
  it('retries 503 UNAVAILABLE until the request succeeds', async () => {
    const emu = await setUp();
    client = createTestClient(emu);
    const orgUid = await orgUidOf(client);
    emu.setFaults({ seed: 11, errorRate: 0.5, retryAfterSeconds: 0 });
    emu.clearRequestLog();
    for (let i = 0; i < 20; i++) expect((await client.get('group', orgUid)).uid).toBe(orgUid);
    const errors = emu.requestLog.filter((e) => e.faulted === 'error');
    expect(errors.length).toBeGreaterThan(3);
    expect(errors.every((e) => e.status === 503)).toBe(true);
    expect(emu.requestLog.filter((e) => e.status === 200)).toHaveLength(20);
  });

  it('waits at least Retry-After after a 429 before trying again', async () => {
    let now = Date.UTC(2026, 0, 1);
    emulator = await startTestEmulator({ seed: { orgs: [{ name: 'acme' }] }, clock: () => now });
    const retries: ClientRetryEvent[] = [];
    // The emulator's rate-limit bucket follows its clock: move it by what the client waits.
    client = createTestClient(emulator, {
      onRetry: (e) => {
        retries.push(e);
        now += e.delayMs;
      },
    });
    emulator.setFaults({ seed: 3, rateLimit: 2, retryAfterSeconds: 1 });
    emulator.clearRequestLog();
    for (let i = 0; i < 3; i++) expect(await client.ping()).toBe(true);
    expect(emulator.requestLog.map((e) => e.status)).toEqual([200, 200, 429, 200]);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({
      method: 'GET',
      path: '/ping/v2/ping',
      reason: 'HTTP 429',
      outcomeUnknown: false,
    });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it('gives up on a rate limit that outlasts the time budget, with a typed error', async () => {
    const now = Date.UTC(2026, 0, 1);
    emulator = await startTestEmulator({ seed: { orgs: [{ name: 'acme' }] }, clock: () => now });
    client = createTestClient(emulator, {
      retry: { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 10, maxElapsedMs: 500, maxRateLimitedMs: 500 },
    });
    emulator.setFaults({ seed: 3, rateLimit: 1, retryAfterSeconds: 30 });
    await client.ping();
    const err = await client.get('group', 'a'.repeat(40)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, grpcCode: 8, grpcName: 'RESOURCE_EXHAUSTED' });
    // Retry-After (30 s) is beyond the 0.5 s rate-limit budget: one attempt, no wait.
    expect((err as ApiError).message).toMatch(
      /get group a{40}: GET \/iam\/v2\/groups\/a{40} failed: HTTP 429 RESOURCE_EXHAUSTED/,
    );
  });

  it('retries reads across connection resets', async () => {
    const emu = await setUp();
    client = createTestClient(emu);
    const orgUid = await orgUidOf(client);
    emu.setFaults({ seed: 5, resetRate: 0.4 });
    emu.clearRequestLog();
    const events: RequestEvent[] = [];
    const observed = createTestClient(emu, { onRequest: (e) => events.push(e) });
    try {
      for (let i = 0; i < 20; i++) expect((await observed.get('group', orgUid)).uid).toBe(orgUid);
    } finally {
      await observed.close();
    }
    const resets = emu.requestLog.filter((e) => e.faulted === 'reset').length;
    expect(resets).toBeGreaterThan(3);
    expect(events.filter((e) => e.status === 0)).toHaveLength(resets);
    expect(events.filter((e) => e.status === 200)).toHaveLength(20);
  });

  it('retries a request that timed out', async () => {
    const emu = await setUp();
    const retries: ClientRetryEvent[] = [];
    client = createTestClient(emu, {
      timeoutMs: 150,
      // The first attempt times out; the server is fast again by the time the retry goes out.
      onRetry: (e) => {
        retries.push(e);
        emu.setFaults({});
      },
    });
    emu.setFaults({ latencyMs: 1500 });
    expect(await client.ping()).toBe(true);
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, reason: 'timeout', outcomeUnknown: true })]);
  });

  it('reports a server that never answers in time as a typed error naming the timeout', async () => {
    const emu = await setUp();
    client = createTestClient(emu, { timeoutMs: 100, retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } });
    emu.setFaults({ latencyMs: 1000 });
    const err = await client.get('group', 'a'.repeat(40)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 0, grpcName: 'UNAVAILABLE' });
    expect((err as ApiError).message).toMatch(/no response within 100 ms \(gave up after 2 attempts/);
  });

  it('does not retry a 4xx other than 429', async () => {
    const emu = await setUp();
    client = createTestClient(emu);
    emu.clearRequestLog();
    await expect(client.get('repo', `${'a'.repeat(40)}/0123456789abcdef`)).rejects.toMatchObject({ status: 404 });
    await expect(client.create('identity', 'b'.repeat(40), {})).rejects.toMatchObject({ status: 400 });
    expect(emu.requestLog).toHaveLength(2);
  });
});

describe('exactly-once create', () => {
  it('makes every resource exactly once under connection resets, before and after apply', async () => {
    const emu = await setUp([{ name: 'acme' }]);
    client = createTestClient(emu, { listConcurrency: 4 });
    const orgUid = await orgUidOf(client);
    emu.setFaults({ seed: 21, resetRate: 0.35 });
    emu.clearRequestLog();
    const names = Array.from({ length: 40 }, (_, i) => `bot-${i}`);
    // One after another, so the seeded faults fall on the same requests on every run.
    const created = [];
    for (const name of names) created.push(await client.create('identity', orgUid, { name, description: 'ci' }));
    expect(created.map((c) => c.name)).toEqual(names);
    emu.setFaults({});
    const { items, consistent } = await client.list('identity', { childrenOf: orgUid });
    expect(consistent).toBe(true);
    expect(items.map((i) => i.name).sort()).toEqual([...names].sort());
    expect(new Set(created.map((c) => c.uid))).toEqual(new Set(items.map((i) => i.uid)));
    // Both reset kinds happened to creates: applied-then-reset and reset-before-apply.
    const posts = emu.requestLog.filter((e) => e.method === 'POST');
    expect(posts.filter((e) => e.faulted === 'reset').length).toBeGreaterThan(5);
    // Some creates were applied and then reset: their resource was found, not made again.
    expect(posts.filter((e) => e.status >= 200 && e.status < 300).length).toBeLessThan(names.length);
    // Each reset create was followed by a lookup by name before any retry.
    const lookups = emu.requestLog.filter(
      (e) => e.method === 'GET' && e.query['uidp.children_of'] === orgUid && e.query.name,
    );
    expect(lookups.length).toBeGreaterThanOrEqual(posts.filter((e) => e.faulted === 'reset').length);
  });

  it('makes every resource exactly once when 500s come after the create was applied', async () => {
    const emu = await setUp([{ name: 'acme' }]);
    client = createTestClient(emu);
    const orgUid = await orgUidOf(client);
    emu.setFaults({ seed: 31, internalErrorRate: 0.4 });
    emu.clearRequestLog();
    const names = Array.from({ length: 20 }, (_, i) => `svc-${i}`);
    const created = [];
    for (const name of names) created.push(await client.create('repo', orgUid, { name }));
    emu.setFaults({});
    const { items } = await client.list('repo', { childrenOf: orgUid });
    expect(items.map((i) => i.name).sort()).toEqual([...names].sort());
    expect(new Set(created.map((c) => c.uid))).toEqual(new Set(items.map((i) => i.uid)));
    const failedPosts = emu.requestLog.filter((e) => e.method === 'POST' && e.faulted === 'internal');
    expect(failedPosts.filter((e) => e.status === 500 && e.applied).length).toBeGreaterThan(1);
    expect(failedPosts.filter((e) => !e.applied).length).toBeGreaterThan(1);
  });

  it('makes group mappings, which have no name, exactly once: a lost create is not taken for a sibling', async () => {
    const emu = await setUp([
      {
        name: 'acme',
        identityProviders: [
          {
            name: 'okta',
            defaultRole: 'viewer',
            oidc: { issuer: 'https://acme.okta.com', clientId: 'c', clientSecret: 's' },
          },
        ],
      },
    ]);
    client = createTestClient(emu);
    const orgUid = await orgUidOf(client);
    const idp = (await client.list('identityProvider', { childrenOf: orgUid })).items[0]!;
    const viewer = (await client.list('role', { name: 'viewer' })).items.find((r) => !r.uid.includes('/'))!;
    emu.setFaults({ seed: 5, resetRate: 0.4, internalErrorRate: 0.2 });
    emu.clearRequestLog();
    const groups = Array.from({ length: 16 }, (_, i) => `okta-group-${i}`);
    for (const externalGroupId of groups)
      await client.create('groupMapping', idp.uid, { externalGroupId, roleUid: viewer.uid, scope: orgUid });
    emu.setFaults({});
    const { items } = await client.list('groupMapping', { childrenOf: idp.uid });
    expect(items.map((m) => m.externalGroupId).sort()).toEqual([...groups].sort());
    // Creates were lost before they took effect: each was made afterwards, not matched to a sibling.
    const posts = emu.requestLog.filter((e) => e.method === 'POST');
    expect(
      posts.filter((e) => (e.faulted === 'reset' || e.faulted === 'internal') && !e.applied).length,
    ).toBeGreaterThan(2);
  });

  it('makes subscriptions, tags, role bindings and a root org exactly once under resets, 503s and 500s', async () => {
    const emu = await setUp([{ name: 'acme', identities: [{ name: 'ci' }], repos: [{ name: 'nginx' }] }]);
    client = createTestClient(emu);
    const orgUid = await orgUidOf(client);
    const identity = (await client.list('identity', { childrenOf: orgUid })).items[0]!;
    const repo = (await client.list('repo', { childrenOf: orgUid })).items[0]!;
    const viewer = (await client.list('role', { name: 'viewer' })).items.find((r) => !r.uid.includes('/'))!;
    emu.setFaults({ seed: 9, resetRate: 0.3, errorRate: 0.2, internalErrorRate: 0.2, retryAfterSeconds: 0 });
    const sinks = Array.from({ length: 10 }, (_, i) => `https://hooks.example/${i}`);
    const c = client;
    for (const sink of sinks) await c.create('subscription', orgUid, { sink });
    const tags = Array.from({ length: 10 }, (_, i) => `1.${i}`);
    for (const [i, name] of tags.entries())
      await c.create('tag', repo.uid, { name, digest: `sha256:${String(i).repeat(64)}` });
    const groupUids: string[] = [];
    for (let i = 0; i < 6; i++) groupUids.push((await c.create('group', orgUid, { name: `team-${i}` })).uid);
    for (const g of groupUids) await c.create('roleBinding', g, { identityUid: identity.uid, roleUid: viewer.uid });
    const roots = [];
    for (const name of ['beta', 'gamma', 'delta']) roots.push(await c.create('group', null, { name }));
    emu.setFaults({});
    expect((await client.list('subscription', { childrenOf: orgUid })).items.map((s) => s.sink).sort()).toEqual(
      [...sinks].sort(),
    );
    expect((await client.list('tag', { childrenOf: repo.uid })).items.map((t) => t.name).sort()).toEqual(tags);
    for (const g of groupUids) expect((await client.list('roleBinding', { childrenOf: g })).items).toHaveLength(1);
    for (const r of roots) {
      const same = (await client.list('group', { name: String(r.name) })).items.filter((g) => !g.uid.includes('/'));
      expect(same.map((g) => g.uid)).toEqual([r.uid]);
    }
    expect(emu.requestLog.filter((e) => e.method === 'POST' && e.faulted).length).toBeGreaterThan(5);
    expect(
      emu.requestLog.filter((e) => e.method === 'POST' && e.faulted === 'internal' && e.applied).length,
    ).toBeGreaterThan(0);
  });
});
