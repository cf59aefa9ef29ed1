import { describe, expect, it } from 'vitest';
import { RequestThrottle } from '../../src/api/throttle.js';
import { createVirtualClock } from '../integration/client-harness.js';

function setUp(maxInFlight = 8) {
  const clock = createVirtualClock(0);
  const closing = new AbortController();
  return { clock, closing, throttle: new RequestThrottle(maxInFlight, clock, closing.signal) };
}

/** Lets pending acquires run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('RequestThrottle', () => {
  it('lets no attempt start before a hold ends, whoever asked for the hold', async () => {
    const { clock, throttle } = setUp();
    throttle.holdUntil(1_000);
    const startedAt: number[] = [];
    await Promise.all(
      [0, 1, 2].map(async () => {
        const ticket = await throttle.acquire();
        startedAt.push(clock.now());
        throttle.release(ticket, 'ok');
      }),
    );
    expect(startedAt).toEqual([1_000, 1_000, 1_000]);
    throttle.holdUntil(500); // never shortens: already past
    expect(throttle.openAt).toBe(1_000);
  });

  it('keeps at most `limit` attempts in flight and serves waiters in arrival order', async () => {
    const { throttle } = setUp(2);
    const a = await throttle.acquire();
    const b = await throttle.acquire();
    const order: string[] = [];
    const c = throttle.acquire().then((t) => (order.push('c'), t));
    const d = throttle.acquire().then((t) => (order.push('d'), t));
    await settle();
    expect(order).toEqual([]);
    expect(throttle.inFlight).toBe(2);
    throttle.release(a, 'ok');
    throttle.release(b, 'ok');
    await Promise.all([c, d]);
    expect(order).toEqual(['c', 'd']);
    expect(throttle.inFlight).toBe(2);
  });

  it('halves the concurrency in use on a 429, once for all 429s of attempts already in flight', async () => {
    const { throttle } = setUp(32);
    const tickets = await Promise.all(Array.from({ length: 8 }, () => throttle.acquire()));
    throttle.release(tickets[0]!, 'rateLimited');
    expect(throttle.limit).toBe(4); // 8 in flight → 4, not 32 → 16
    for (const t of tickets.slice(1)) throttle.release(t, 'rateLimited');
    expect(throttle.limit).toBe(4);
    const late = await throttle.acquire();
    throttle.release(late, 'rateLimited');
    expect(throttle.limit).toBe(1);
    throttle.release(await throttle.acquire(), 'rateLimited');
    expect(throttle.limit).toBe(1);
  });

  it('grows back by one per window of successes, once the gate stayed open as long as it was held', async () => {
    const { clock, throttle } = setUp(4);
    throttle.release(await throttle.acquire(), 'rateLimited'); // 1 in flight → 1
    throttle.holdUntil(clock.now() + 1_000);
    expect(throttle.limit).toBe(1);
    for (let i = 0; i < 5; i++) throttle.release(await throttle.acquire(), 'ok');
    expect(throttle.limit).toBe(1); // opened at 1 s; calm only from 2 s
    await clock.sleep(1_000, new AbortController().signal);
    throttle.release(await throttle.acquire(), 'ok');
    expect(throttle.limit).toBe(2);
    throttle.release(await throttle.acquire(), 'ok');
    throttle.release(await throttle.acquire(), 'ok');
    expect(throttle.limit).toBe(3);
    for (let i = 0; i < 20; i++) throttle.release(await throttle.acquire(), 'ok');
    expect(throttle.limit).toBe(4); // never above the pool
  });

  it('fails waiting and later acquires once closed', async () => {
    const { throttle } = setUp(1);
    await throttle.acquire();
    const waiting = throttle.acquire();
    const closed = new Error('the client was closed');
    throttle.close(closed);
    await expect(waiting).rejects.toBe(closed);
    await expect(throttle.acquire()).rejects.toBe(closed);
  });
});
