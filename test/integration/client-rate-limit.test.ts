/**
 * The client under a rate limit and through an API restart, over real HTTP: the client-wide
 * gate and adaptive concurrency (throttle.ts) keep 429s few, a server that never stops
 * limiting ends in a clear error, a restart of the API is ridden out, and close() cancels what
 * is still waiting without logging it as a failed request. Rate-limit tests share a virtual
 * clock between client and emulator, so Retry-After seconds cost no real time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import pLimit from 'p-limit';
import type { Emulator, SeedOrg } from '../../src/emulator/index.js';
import type { ApiClient, RequestEvent } from '../../src/api/types.js';
import { ApiError } from '../../src/api/errors.js';
import { createTestClient, createVirtualClock, startTestEmulator } from './client-harness.js';
import { getReadme } from '../support/readme.js';

const emulators: Emulator[] = [];
let client: ApiClient | undefined;
afterEach(async () => {
  await client?.close();
  for (const e of emulators.splice(0)) await e.close();
  client = undefined;
});

const REPOS = Array.from({ length: 100 }, (_, i) => ({ name: `svc-${i}`, readme: `# svc-${i}\n` }));
const ORG: SeedOrg = { name: 'acme', groups: [{ name: 'platform', repos: REPOS }] };

async function start(options: Parameters<typeof startTestEmulator>[0]): Promise<Emulator> {
  const emulator = await startTestEmulator(options);
  emulators.push(emulator);
  return emulator;
}

describe('client under a rate limit', () => {
  it('reads 100 readmes 32 at a time at the pace the API allows, with few 429s', async () => {
    const clock = createVirtualClock();
    const emu = await start({ seed: { orgs: [ORG] }, clock: clock.now });
    // Default retry policy: only the clock is virtual.
    client = createTestClient(emu, { clock, retry: {}, pageSize: 20 });
    emu.setFaults({ seed: 4, rateLimit: 5, retryAfterSeconds: 1 });
    emu.clearRequestLog();
    const started = clock.now();
    const c = client;
    const { items: repos, consistent } = await c.list('repo', {
      descendantsOf: (await c.list('group', { name: 'acme' })).items[0]!.uid,
    });
    expect(consistent).toBe(true);
    const limit = pLimit(32);
    const readmes = await Promise.all(repos.map((r) => limit(() => getReadme(c, r.uid))));
    expect(readmes.sort()).toEqual(REPOS.map((r) => r.readme).sort());
    const ok = emu.requestLog.filter((e) => e.status === 200).length;
    const limited = emu.requestLog.filter((e) => e.status === 429).length;
    expect(emu.requestLog.filter((e) => e.status === 200 && e.path.endsWith('/readme'))).toHaveLength(100);
    expect(emu.requestLog).toHaveLength(ok + limited);
    // Without the gate: ~3 429s per 200. With it: about one per refill of the bucket (5 requests).
    expect(limited).toBeLessThan(ok * 0.35);
    // The pace the API allows: 5 per second after a burst of 5 (virtual time).
    expect(clock.now() - started).toBeGreaterThanOrEqual(((ok - 5) / 5) * 1000);
  });

  it('ends with a clear error when the API never stops limiting, without spending the attempt budget on it', async () => {
    const clock = createVirtualClock();
    const emu = await start({ seed: { orgs: [{ name: 'acme' }] }, clock: clock.now });
    client = createTestClient(emu, { clock, retry: { maxAttempts: 3, maxRateLimitedMs: 120_000 } });
    emu.setFaults({ rateLimit: 0.001, retryAfterSeconds: 10 }); // one request, then nothing for 1000 s
    expect(await client.ping()).toBe(true);
    const err = await client.get('group', 'a'.repeat(40)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, grpcName: 'RESOURCE_EXHAUSTED' });
    // 13 attempts over 120 s of Retry-After waits, although maxAttempts is 3.
    expect((err as ApiError).message).toMatch(
      /^get group a{40}: GET \/iam\/v2\/groups\/a{40} failed: HTTP 429 .*\(gave up after 13 attempts in 120000 ms\)$/,
    );
    expect(emu.requestLog.filter((e) => e.status === 429)).toHaveLength(13);
  });

  it('cancels requests waiting at the gate on close(), without logging them as failed requests', async () => {
    const emu = await start({ seed: { orgs: [{ name: 'acme' }] } });
    const events: RequestEvent[] = [];
    client = createTestClient(emu, { onRequest: (e) => events.push(e) });
    emu.setFaults({ rateLimit: 0.001, retryAfterSeconds: 60 });
    expect(await client.ping()).toBe(true);
    const waiting = Array.from({ length: 4 }, () => client!.ping().catch((e: unknown) => e));
    // Wait (real time) until all four were refused and wait out a minute's Retry-After.
    while (events.filter((e) => e.status === 429).length < 4) await new Promise((resolve) => setTimeout(resolve, 5));
    const seen = events.length;
    await client.close();
    const outcomes = await Promise.all(waiting);
    // ping() answers false for an ApiError; the point is that they end now, not in a minute.
    expect(outcomes).toEqual([false, false, false, false]);
    expect(events.slice(seen)).toEqual([]);
    expect(events.every((e) => e.status !== 0)).toBe(true);
    await expect(client.get('group', 'a'.repeat(40))).rejects.toMatchObject({
      grpcName: 'CANCELLED',
      message: expect.stringMatching(/cancelled: the client was closed/),
    });
    client = undefined;
  });
});

describe('client through an API restart', () => {
  it('rides out a restart: requests sent while nothing listens succeed once the API is back', async () => {
    const seed = { orgs: [{ name: 'acme' }] };
    const first = await start({ seed });
    const events: RequestEvent[] = [];
    // Real time: the connect schedule (first wait 0.5–1 s) is what is under test.
    client = createTestClient(first, { retry: {}, onRequest: (e) => events.push(e) });
    expect(await client.ping()).toBe(true);
    await first.close();
    emulators.splice(0);
    const c = client;
    const during = Array.from({ length: 6 }, () => c.list('group', { name: 'acme' }));
    // Every request has failed to connect once before the API comes back on the same port.
    while (events.filter((e) => e.status === 0).length < 6) await new Promise((resolve) => setTimeout(resolve, 5));
    await start({ seed, port: first.port });
    const results = await Promise.all(during);
    expect(results.map((r) => r.items.map((g) => g.name))).toEqual(Array(6).fill(['acme']));
    // One failed round for all of them, then the gate held them together until the API was back.
    expect(events.filter((e) => e.status === 0)).toHaveLength(6);
  });
});
