import { describe, expect, it } from 'vitest';
import {
  AttemptFailedError,
  computeBackoffMs,
  computeConnectDelayMs,
  computeRetryDelayMs,
  parseRetryAfter,
  resolveRetryPolicy,
  runWithRetry,
  type AttemptFailure,
  type RetryHooks,
} from '../../src/api/retry.js';
import { RequestThrottle } from '../../src/api/throttle.js';
import { createVirtualClock } from '../integration/client-harness.js';

const policy = resolveRetryPolicy({ maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000, maxElapsedMs: 10_000 });

function failure(over: Partial<AttemptFailure> = {}): AttemptFailure {
  return { retryable: true, outcomeUnknown: false, reason: 'HTTP 503', error: new Error('final 503'), ...over };
}

/** Hooks over a virtual clock: sleeping advances it, nothing waits for real. */
function virtualHooks<T>(extra: Partial<RetryHooks<T>> = {}): RetryHooks<T> & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
    random: () => 0.5,
    ...extra,
  };
}

describe('retry policy', () => {
  it('draws full-jitter backoff below an exponentially growing cap', () => {
    expect(computeBackoffMs(0, policy, () => 0.999)).toBe(99);
    expect(computeBackoffMs(3, policy, () => 0.5)).toBe(400);
    expect(computeBackoffMs(10, policy, () => 0.999)).toBe(999); // capped at maxDelayMs
    expect(computeBackoffMs(2, policy, () => 0)).toBe(0);
  });

  it('never waits less than Retry-After, even past maxDelayMs', () => {
    expect(computeRetryDelayMs(0, failure({ retryAfterMs: 3000 }), policy, () => 0.5)).toBe(3000);
    expect(computeRetryDelayMs(4, failure({ retryAfterMs: 10 }), policy, () => 0.5)).toBe(500);
  });

  it('parses Retry-After seconds and HTTP dates', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(['0'])).toBe(0);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:00:05 GMT', 1000)).toBe(4000);
  });

  it('rejects nonsense limits with the option name', () => {
    expect(() => resolveRetryPolicy({ maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => resolveRetryPolicy({ baseDelayMs: -1 })).toThrow(/baseDelayMs/);
  });
});

describe('runWithRetry', () => {
  it('retries retryable failures and returns the first success', async () => {
    const hooks = virtualHooks<string>();
    let calls = 0;
    const value = await runWithRetry(
      async () => {
        calls++;
        if (calls < 3) throw new AttemptFailedError(failure());
        return 'ok';
      },
      policy,
      hooks,
      (f) => f.error,
    );
    expect(value).toBe('ok');
    expect(calls).toBe(3);
    expect(hooks.slept).toEqual([50, 100]);
  });

  it('does not retry a non-retryable failure', async () => {
    const hooks = virtualHooks<string>();
    const err = new Error('404');
    await expect(
      runWithRetry(
        async () => Promise.reject(new AttemptFailedError(failure({ retryable: false, error: err }))),
        policy,
        hooks,
        () => new Error('gave up'),
      ),
    ).rejects.toBe(err);
    expect(hooks.slept).toEqual([]);
  });

  it('gives up after maxAttempts with the give-up error', async () => {
    const hooks = virtualHooks<string>();
    let calls = 0;
    await expect(
      runWithRetry(
        async () => {
          calls++;
          throw new AttemptFailedError(failure());
        },
        policy,
        hooks,
        (_f, attempts) => new Error(`gave up after ${attempts}`),
      ),
    ).rejects.toThrow('gave up after 5');
    expect(calls).toBe(5);
  });

  it('retries a refused connection on a seconds scale: 4 attempts, waits from 0.5 s growing to 4 s', async () => {
    const hooks = virtualHooks<string>();
    let calls = 0;
    await expect(
      runWithRetry(
        async () => {
          calls++;
          throw new AttemptFailedError(failure({ sort: 'notConnected', reason: 'connection failed (ECONNREFUSED)' }));
        },
        resolveRetryPolicy(),
        hooks,
        (_f, attempts) => new Error(`gave up after ${attempts}`),
      ),
    ).rejects.toThrow('gave up after 4');
    expect(calls).toBe(4);
    // Equal jitter at 0.5: ¾ of each ceiling (1, 2, 4 s); all within the user's 5–10 s of patience.
    expect(hooks.slept).toEqual([750, 1500, 3000]);
    expect(computeConnectDelayMs(0, resolveRetryPolicy(), () => 0)).toBe(500);
    expect(computeConnectDelayMs(9, resolveRetryPolicy(), () => 0.999)).toBe(3998);
  });

  it('stops before a wait that would pass maxElapsedMs', async () => {
    const hooks = virtualHooks<string>();
    const tight = resolveRetryPolicy({ maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1000, maxElapsedMs: 2500 });
    let calls = 0;
    await expect(
      runWithRetry(
        async () => {
          calls++;
          throw new AttemptFailedError(failure({ retryAfterMs: 1000 }));
        },
        tight,
        hooks,
        () => new Error('budget spent'),
      ),
    ).rejects.toThrow('budget spent');
    expect(hooks.slept).toEqual([1000, 1000]);
    expect(calls).toBe(3);
  });

  it('looks for an earlier effect after an outcome-unknown failure, and stops when found', async () => {
    let looks = 0;
    const hooks = virtualHooks<string>({
      beforeRetryAfterUnknown: async () => {
        looks++;
        return { done: 'found' };
      },
    });
    let calls = 0;
    const value = await runWithRetry(
      async () => {
        calls++;
        throw new AttemptFailedError(failure({ outcomeUnknown: true }));
      },
      policy,
      hooks,
      (f) => f.error,
    );
    expect(value).toBe('found');
    expect(calls).toBe(1);
    expect(looks).toBe(1);
  });

  it('looks once more when the last attempt it has ends with an unknown outcome, and reports the failure when nothing is found', async () => {
    const one = resolveRetryPolicy({ maxAttempts: 1 });
    const run = (look: () => Promise<{ done: string } | undefined>) =>
      runWithRetry(
        async () => {
          throw new AttemptFailedError(failure({ outcomeUnknown: true }));
        },
        one,
        virtualHooks<string>({ beforeRetryAfterUnknown: look }),
        () => new Error('gave up'),
      );
    await expect(run(async () => ({ done: 'found' }))).resolves.toBe('found');
    await expect(run(async () => undefined)).rejects.toThrow('gave up');
    // A look that fails too leaves the failure that ended the call as the one reported.
    await expect(
      run(async () => {
        throw new Error('listing failed');
      }),
    ).rejects.toThrow('gave up');
  });

  it('does not look after a failure whose outcome is known (429)', async () => {
    let looks = 0;
    const hooks = virtualHooks<string>({
      beforeRetryAfterUnknown: async () => {
        looks++;
        return undefined;
      },
    });
    let calls = 0;
    await runWithRetry(
      async () => {
        calls++;
        if (calls === 1) throw new AttemptFailedError(failure({ reason: 'HTTP 429' }));
        return 'ok';
      },
      policy,
      hooks,
      (f) => f.error,
    );
    expect(looks).toBe(0);
  });

  it('does not count 429s as attempts, and retries them at the pace of Retry-After', async () => {
    const hooks = virtualHooks<string>();
    let calls = 0;
    const value = await runWithRetry(
      async () => {
        calls++;
        if (calls <= 30)
          throw new AttemptFailedError(failure({ sort: 'rateLimited', reason: 'HTTP 429', retryAfterMs: 2_000 }));
        return 'ok';
      },
      policy, // maxAttempts 5, maxElapsedMs 10 s
      hooks,
      (f) => f.error,
    );
    expect(value).toBe('ok');
    expect(calls).toBe(31);
    expect(hooks.slept.every((ms) => ms === 2_000)).toBe(true);
  });

  // A server (or a proxy) that refuses with `Retry-After: 0` names no pace: retried at once, each
  // refusal drew another request as fast as the connection allowed (1,526 of 1,598 requests
  // refused in the apply under faults, test/integration/apply-faults.test.ts); nor does one under
  // the base delay (`Retry-After: 0.001` reads as 1 ms).
  it.each([0, 1])(
    'backs off from a 429 whose Retry-After is %d ms instead of asking again at once',
    async (retryAfterMs) => {
      const hooks = virtualHooks<string>();
      let calls = 0;
      const value = await runWithRetry(
        async () => {
          calls++;
          if (calls <= 4)
            throw new AttemptFailedError(failure({ sort: 'rateLimited', reason: 'HTTP 429', retryAfterMs }));
          return 'ok';
        },
        policy, // baseDelayMs 100, maxDelayMs 1000; random() 0.5
        hooks,
        (f) => f.error,
      );
      expect(value).toBe('ok');
      expect(hooks.slept).toEqual([50, 100, 200, 400]);
    },
  );

  it.each([100, 300])(
    'retries a 429 whose Retry-After (%d ms) is at least the base delay at that pace, however many come',
    async (retryAfterMs) => {
      const hooks = virtualHooks<string>();
      let calls = 0;
      await runWithRetry(
        async () => {
          calls++;
          if (calls <= 6)
            throw new AttemptFailedError(failure({ sort: 'rateLimited', reason: 'HTTP 429', retryAfterMs }));
          return 'ok';
        },
        policy, // baseDelayMs 100, maxDelayMs 1000: the backoff would reach 500 (random() 0.5)
        hooks,
        (f) => f.error,
      );
      expect(hooks.slept).toEqual(Array(6).fill(retryAfterMs));
    },
  );

  it('gives up on a server that never stops rate limiting once maxRateLimitedMs has passed', async () => {
    const hooks = virtualHooks<string>();
    const limited = resolveRetryPolicy({ ...policy, maxRateLimitedMs: 60_000 });
    let calls = 0;
    await expect(
      runWithRetry(
        async () => {
          calls++;
          throw new AttemptFailedError(failure({ sort: 'rateLimited', reason: 'HTTP 429', retryAfterMs: 10_000 }));
        },
        limited,
        hooks,
        (_f, attempts, elapsedMs) => new Error(`gave up after ${attempts} attempts in ${elapsedMs} ms`),
      ),
    ).rejects.toThrow('gave up after 7 attempts in 60000 ms');
    expect(calls).toBe(7);
  });

  it('leaves the time held back by rate limiting out of the ordinary time budget', async () => {
    const hooks = virtualHooks<string>();
    let calls = 0;
    const value = await runWithRetry(
      async () => {
        calls++;
        if (calls <= 3)
          throw new AttemptFailedError(failure({ sort: 'rateLimited', reason: 'HTTP 429', retryAfterMs: 9_000 }));
        if (calls <= 5) throw new AttemptFailedError(failure());
        return 'ok';
      },
      policy, // maxElapsedMs 10 s, and 27 s pass waiting on 429s
      hooks,
      (f) => f.error,
    );
    expect(value).toBe('ok');
    expect(hooks.slept).toEqual([9_000, 9_000, 9_000, 50, 100]);
  });

  it('holds back every call of the throttle after one gets a 429 with Retry-After', async () => {
    const clock = createVirtualClock(0);
    const throttle = new RequestThrottle(8, clock, new AbortController().signal);
    const closing = new AbortController();
    const hooks: RetryHooks<string> = {
      now: clock.now,
      sleep: (ms) => clock.sleep(ms, closing.signal),
      random: () => 0.5,
      throttle,
    };
    const started: { call: string; at: number }[] = [];
    let limitedOnce = false;
    const call = (name: string) =>
      runWithRetry(
        async () => {
          started.push({ call: name, at: clock.now() });
          if (!limitedOnce) {
            limitedOnce = true;
            throw new AttemptFailedError(failure({ sort: 'rateLimited', reason: 'HTTP 429', retryAfterMs: 1_000 }));
          }
          return name;
        },
        policy,
        hooks,
        (f) => f.error,
      );
    const first = call('a');
    await new Promise((resolve) => setImmediate(resolve));
    // b starts after a's 429: it waits for the gate instead of finding out with a 429 of its own.
    const second = call('b');
    expect(await Promise.all([first, second])).toEqual(['a', 'b']);
    expect(started).toEqual([
      { call: 'a', at: 0 },
      { call: 'a', at: 1_000 },
      { call: 'b', at: 1_000 },
    ]);
  });

  it('holds the other calls for a 503 only as long as its Retry-After, not its own backoff', async () => {
    const clock = createVirtualClock(0);
    const closing = new AbortController();
    const throttle = new RequestThrottle(8, clock, closing.signal);
    const hooks: RetryHooks<string> = {
      now: clock.now,
      sleep: (ms) => clock.sleep(ms, closing.signal),
      random: () => 0.999,
      throttle,
    };
    const slowPolicy = resolveRetryPolicy({ ...policy, baseDelayMs: 5_000, maxDelayMs: 5_000 });
    const failOnce = async (retryAfterMs: number | undefined) => {
      let calls = 0;
      await runWithRetry(
        async () => {
          if (calls++ === 0) throw new AttemptFailedError(failure({ retryAfterMs }));
          return 'ok';
        },
        slowPolicy,
        hooks,
        (f) => f.error,
      );
    };
    const retried = failOnce(0); // waits ~5 s itself (jittered backoff)
    await new Promise((resolve) => setImmediate(resolve));
    expect(throttle.openAt).toBe(-Infinity); // Retry-After: 0 holds nobody
    await retried;
    const at = clock.now();
    const held = failOnce(2_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(throttle.openAt).toBe(at + 2_000);
    await held;
  });
});
