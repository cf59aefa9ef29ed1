import { describe, expect, it } from 'vitest';
import {
  AttemptFailedError,
  computeBackoffMs,
  computeRetryDelayMs,
  parseRetryAfter,
  resolveRetryPolicy,
  runWithRetry,
  type AttemptFailure,
  type RetryHooks,
} from '../../src/api/retry.js';

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
      runWithRetry(async () => Promise.reject(new AttemptFailedError(failure({ retryable: false, error: err }))), policy, hooks, () => new Error('gave up')),
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

  it('gives a failure that caps its own attempts (a refused connection) fewer tries than the policy', async () => {
    const hooks = virtualHooks<string>();
    let calls = 0;
    await expect(
      runWithRetry(
        async () => {
          calls++;
          throw new AttemptFailedError(failure({ maxAttempts: 3 }));
        },
        policy,
        hooks,
        (_f, attempts) => new Error(`gave up after ${attempts}`),
      ),
    ).rejects.toThrow('gave up after 3');
    expect(calls).toBe(3);
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
});
