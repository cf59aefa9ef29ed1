/**
 * Retry policy for transient API failures (DESIGN.md §4): 429, 503, other 5xx, connection
 * resets and timeouts are retried with capped exponential backoff and full jitter, honouring
 * `Retry-After`, within a bounded number of attempts and a bounded total time. Every other
 * failure is final.
 *
 * The loop is written against injected `sleep`, `now` and `random` so that it has no hidden
 * clock: the client passes real ones, a test may pass its own.
 */

/** Limits of one retried call. */
export interface RetryPolicy {
  /** Attempts in total, the first one included (≥ 1). */
  maxAttempts: number;
  /** Backoff before the second attempt, before jitter. */
  baseDelayMs: number;
  /** Cap of a single backoff (before jitter); a longer `Retry-After` is still honoured. */
  maxDelayMs: number;
  /** No retry starts once this much time has passed since the first attempt began. */
  maxElapsedMs: number;
}

/**
 * Ten attempts: a read of a large org makes hundreds of requests, and with six a service that
 * fails one request in three would fail a plan now and then. The time budget is the real bound.
 */
const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 10,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxElapsedMs: 60_000,
};

/** Builds a complete policy from partial options; rejects nonsense so a typo is not silent. */
export function resolveRetryPolicy(options: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY };
  for (const key of Object.keys(DEFAULT_RETRY_POLICY) as (keyof RetryPolicy)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`retry.${key} must be a non-negative number, got ${value}`);
    policy[key] = value;
  }
  if (policy.maxAttempts < 1) throw new RangeError('retry.maxAttempts must be at least 1');
  return policy;
}

/**
 * How one failed attempt is classified.
 * - `retryable`: a later attempt may succeed.
 * - `outcomeUnknown`: the request may have taken effect (the body reached the server, no
 *   reliable answer came back) — a create must look before it retries.
 */
export interface AttemptFailure {
  retryable: boolean;
  outcomeUnknown: boolean;
  /** Server-requested wait (`Retry-After`), in ms. */
  retryAfterMs?: number;
  /**
   * At most this many attempts in all while failures are of this sort (fewer than the policy's
   * maxAttempts): a refused connection means nothing listens, and a user should hear so in
   * seconds, not after the whole retry budget; a brief restart is still ridden out.
   */
  maxAttempts?: number;
  /** Short reason for events and the final message ("HTTP 503", "connection reset"). */
  reason: string;
  /** What to throw when no retry follows. */
  error: Error;
}

/** HTTP statuses worth another attempt: rate limiting and server-side failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/**
 * A 5xx means the server may have acted before failing; a 429 means it refused up front.
 * Used to decide whether a create must check for its own resource before retrying.
 */
export function isOutcomeUnknownStatus(status: number): boolean {
  return status >= 500;
}

/**
 * Parses `Retry-After` in its delta-seconds form (the only form the API sends; an HTTP date is
 * accepted too). Returns ms, or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * Full-jitter backoff (AWS architecture blog): a uniform draw in [0, min(cap, base·2^n)).
 * `retryNumber` is 0 before the second attempt.
 */
export function computeBackoffMs(retryNumber: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryNumber);
  return Math.floor(random() * ceiling);
}

/**
 * The wait before the next attempt: the server's `Retry-After` when it gave one (never less),
 * else the jittered backoff.
 */
export function computeRetryDelayMs(retryNumber: number, failure: AttemptFailure, policy: RetryPolicy, random: () => number): number {
  const backoff = computeBackoffMs(retryNumber, policy, random);
  return failure.retryAfterMs !== undefined ? Math.max(failure.retryAfterMs, backoff) : backoff;
}

export interface RetryEvent {
  /** Number of the attempt that failed (1-based). */
  attempt: number;
  delayMs: number;
  reason: string;
  outcomeUnknown: boolean;
}

export interface RetryHooks<T> {
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  random: () => number;
  onRetry?: (e: RetryEvent) => void;
  /**
   * Runs before a retry that follows an outcome-unknown failure. Returning `{done: value}`
   * ends the call with that value (the earlier attempt did take effect).
   */
  beforeRetryAfterUnknown?: () => Promise<{ done: T } | undefined>;
}

/**
 * Thrown by `runAttempt` to describe a failure; any other exception is final and passes
 * through untouched.
 */
export class AttemptFailedError extends Error {
  readonly failure: AttemptFailure;
  constructor(failure: AttemptFailure) {
    super(failure.reason);
    this.failure = failure;
  }
}

/** The final error, annotated with how many attempts were made. */
export type GiveUp = (failure: AttemptFailure, attempts: number, elapsedMs: number) => Error;

/**
 * Runs `runAttempt(attemptNumber)` until it succeeds, fails for good, or the policy is spent.
 * `giveUp` builds the error thrown when retries stop on a retryable failure.
 */
export async function runWithRetry<T>(
  runAttempt: (attempt: number, previous: AttemptFailure | undefined) => Promise<T>,
  policy: RetryPolicy,
  hooks: RetryHooks<T>,
  giveUp: GiveUp,
): Promise<T> {
  const started = hooks.now();
  let previous: AttemptFailure | undefined;
  for (let attempt = 1; ; attempt++) {
    if (previous?.outcomeUnknown) {
      // An earlier attempt may have taken effect; the caller looks before we send again.
      const found = await hooks.beforeRetryAfterUnknown?.();
      if (found) return found.done;
    }
    try {
      return await runAttempt(attempt, previous);
    } catch (err) {
      if (!(err instanceof AttemptFailedError)) throw err;
      const failure = err.failure;
      if (!failure.retryable) throw failure.error;
      const elapsed = hooks.now() - started;
      const delayMs = computeRetryDelayMs(attempt - 1, failure, policy, hooks.random);
      if (attempt >= Math.min(policy.maxAttempts, failure.maxAttempts ?? Infinity) || elapsed + delayMs > policy.maxElapsedMs) {
        throw giveUp(failure, attempt, elapsed);
      }
      hooks.onRetry?.({ attempt, delayMs, reason: failure.reason, outcomeUnknown: failure.outcomeUnknown });
      await hooks.sleep(delayMs);
      previous = failure;
    }
  }
}
