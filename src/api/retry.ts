/**
 * Retry policy for transient API failures (DESIGN.md §4): 429, 503, other 5xx, connection
 * resets and timeouts are retried with capped exponential backoff and full jitter, honouring
 * `Retry-After`, within a bounded number of attempts and a bounded total time. Every other
 * failure is final. Three budgets, because the failures mean different things:
 * - 429: the server works and asks us to slow down. Retried at its pace — at the backoff's when
 *   its `Retry-After` is under the base delay or absent — (and the whole client
 *   slows down, see throttle.ts) for up to `maxRateLimitedMs`; not counted as attempts.
 * - a failed connect: nothing listens (a restart, or a wrong URL). A few tries over seconds.
 * - anything else transient: `maxAttempts` and `maxElapsedMs`.
 *
 * The loop is written against injected `sleep`, `now` and `random` so that it has no hidden
 * clock: the client passes real ones, a test may pass its own.
 */
import type { RequestThrottle } from './throttle.js';

/** Limits of one retried call. */
export interface RetryPolicy {
  /** Attempts in total, the first one included (≥ 1); 429s do not count (see maxRateLimitedMs). */
  maxAttempts: number;
  /** Backoff before the second attempt, before jitter. */
  baseDelayMs: number;
  /** Cap of a single backoff (before jitter); a longer `Retry-After` is still honoured. */
  maxDelayMs: number;
  /**
   * No retry starts once this much time has passed since the first attempt began, not counting
   * the time the call was held back by rate limiting (429 waits, the client-wide throttle).
   */
  maxElapsedMs: number;
  /**
   * After its first 429, a call retries until this much time has passed: a server that only
   * rate-limits is answered at the pace it allows, one that never stops limiting still ends.
   */
  maxRateLimitedMs: number;
  /** Attempts in all that may fail to connect (nothing listens, connect timeout). */
  maxConnectAttempts: number;
  /**
   * Wait after the first failed connect, drawn in [d/2, d); doubles each time, up to 4·d. On a
   * seconds scale, so a restart of the API is ridden out and a wrong URL is reported in seconds.
   */
  connectDelayMs: number;
}

/**
 * Ten attempts: a read of a large org makes hundreds of requests, and with six a service that
 * fails one request in three would fail a plan now and then. The time budget is the real bound.
 * Connect failures: 4 attempts with waits of 0.5–1, 1–2 and 2–4 s (3.5–7 s in all).
 */
const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 10,
  baseDelayMs: 200,
  maxDelayMs: 10_000,
  maxElapsedMs: 60_000,
  maxRateLimitedMs: 5 * 60_000,
  maxConnectAttempts: 4,
  connectDelayMs: 1_000,
};

/** Builds a complete policy from partial options; rejects nonsense so a typo is not silent. */
export function resolveRetryPolicy(options: Partial<RetryPolicy> = {}): RetryPolicy {
  const policy = { ...DEFAULT_RETRY_POLICY };
  for (const key of Object.keys(DEFAULT_RETRY_POLICY) as (keyof RetryPolicy)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0)
      throw new RangeError(`retry.${key} must be a non-negative number, got ${value}`);
    policy[key] = value;
  }
  if (policy.maxAttempts < 1) throw new RangeError('retry.maxAttempts must be at least 1');
  if (policy.maxConnectAttempts < 1) throw new RangeError('retry.maxConnectAttempts must be at least 1');
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
   * `rateLimited` (429): retried until maxRateLimitedMs, not counted as an attempt.
   * `notConnected` (refused, connect timeout): retried on its own seconds-scale schedule.
   * Absent: an ordinary transient failure (5xx, reset, timeout).
   * The wait before retrying a failure of either sort holds back every request of the client:
   * the server is limiting or down for all of them, not just this one. So does the
   * `Retry-After` of any other failure (not the jittered backoff chosen for this request).
   */
  sort?: 'rateLimited' | 'notConnected';
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
export function computeRetryDelayMs(
  retryNumber: number,
  failure: AttemptFailure,
  policy: RetryPolicy,
  random: () => number,
): number {
  const backoff = computeBackoffMs(retryNumber, policy, random);
  return failure.retryAfterMs !== undefined ? Math.max(failure.retryAfterMs, backoff) : backoff;
}

/**
 * The wait before the next connect attempt: equal jitter in [d/2, d) with d = connectDelayMs·2^n
 * capped at 4·connectDelayMs — never near zero, so a restarting server gets seconds, not a burst.
 */
export function computeConnectDelayMs(retryNumber: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(4 * policy.connectDelayMs, policy.connectDelayMs * 2 ** retryNumber);
  return Math.floor(ceiling / 2 + (random() * ceiling) / 2);
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
  /** The client-wide throttle every attempt passes through (absent: attempts start at once). */
  throttle?: RequestThrottle;
  onRetry?: (e: RetryEvent) => void;
  /**
   * Runs before a retry that follows an outcome-unknown failure, and once before giving up
   * after one. Returning `{done: value}` ends the call with that value (the earlier attempt did
   * take effect).
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

/** Failures of each sort a call has had so far. */
interface FailureCounts {
  ordinary: number;
  rateLimited: number;
  notConnected: number;
}

/**
 * The wait before retrying `failure`, or undefined when the call must give up. `heldMs` is the
 * time the call spent held back by rate limiting, which the ordinary time budget leaves out.
 */
function planRetry(
  failure: AttemptFailure,
  counts: FailureCounts,
  timing: { elapsedMs: number; heldMs: number; rateLimitedForMs: number },
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  const attempts = counts.ordinary + counts.notConnected;
  if (failure.sort === 'rateLimited') {
    // At the server's pace when it names one of at least the base delay; below it (`Retry-After: 0`,
    // or `0.001`) it names none worth the name — retried then, every refusal would draw another
    // request as fast as the connection allows —: the backoff, never less than it asked.
    const named = failure.retryAfterMs ?? 0;
    const delayMs =
      named >= policy.baseDelayMs ? named : Math.max(named, computeBackoffMs(counts.rateLimited - 1, policy, random));
    return timing.rateLimitedForMs + delayMs > policy.maxRateLimitedMs ? undefined : delayMs;
  }
  const delayMs =
    failure.sort === 'notConnected'
      ? Math.max(failure.retryAfterMs ?? 0, computeConnectDelayMs(counts.notConnected - 1, policy, random))
      : computeRetryDelayMs(counts.ordinary - 1, failure, policy, random);
  if (failure.sort === 'notConnected' && counts.notConnected >= policy.maxConnectAttempts) return undefined;
  if (attempts >= policy.maxAttempts || timing.elapsedMs - timing.heldMs + delayMs > policy.maxElapsedMs)
    return undefined;
  return delayMs;
}

/**
 * Runs `runAttempt(attemptNumber)` until it succeeds, fails for good, or the policy is spent.
 * `giveUp` builds the error thrown when retries stop on a retryable failure. Each attempt holds
 * a throttle slot (when there is a throttle) and only while it runs: never across a wait or the
 * outcome-unknown check, which makes requests of its own.
 */
export async function runWithRetry<T>(
  runAttempt: (attempt: number, previous: AttemptFailure | undefined) => Promise<T>,
  policy: RetryPolicy,
  hooks: RetryHooks<T>,
  giveUp: GiveUp,
): Promise<T> {
  const started = hooks.now();
  const counts: FailureCounts = { ordinary: 0, rateLimited: 0, notConnected: 0 };
  let heldMs = 0;
  let firstRateLimitedAt: number | undefined;
  let previous: AttemptFailure | undefined;
  for (let attempt = 1; ; attempt++) {
    if (previous?.outcomeUnknown) {
      // An earlier attempt may have taken effect; the caller looks before we send again.
      const found = await hooks.beforeRetryAfterUnknown?.();
      if (found) return found.done;
    }
    const queued = hooks.now();
    const ticket = await hooks.throttle?.acquire();
    heldMs += hooks.now() - queued;
    let failure: AttemptFailure;
    try {
      const value = await runAttempt(attempt, previous);
      if (ticket) hooks.throttle!.release(ticket, 'ok');
      return value;
    } catch (err) {
      if (ticket)
        hooks.throttle!.release(
          ticket,
          err instanceof AttemptFailedError && err.failure.sort === 'rateLimited' ? 'rateLimited' : 'other',
        );
      if (!(err instanceof AttemptFailedError)) throw err;
      failure = err.failure;
    }
    if (!failure.retryable) return lookBeforeGivingUp(failure, hooks, failure.error);
    const now = hooks.now();
    counts[failure.sort ?? 'ordinary']++;
    if (failure.sort === 'rateLimited') firstRateLimitedAt ??= now;
    const delayMs = planRetry(
      failure,
      counts,
      {
        elapsedMs: now - started,
        heldMs,
        rateLimitedForMs: firstRateLimitedAt === undefined ? 0 : now - firstRateLimitedAt,
      },
      policy,
      hooks.random,
    );
    if (delayMs === undefined) return lookBeforeGivingUp(failure, hooks, giveUp(failure, attempt, now - started));
    // The server is limiting or unreachable for every request: all wait with this one. A
    // Retry-After on any other failure holds the others only as long as the server asked.
    const holdMs = failure.sort !== undefined ? delayMs : failure.retryAfterMs;
    if (holdMs !== undefined && holdMs > 0) hooks.throttle?.holdUntil(now + holdMs);
    hooks.onRetry?.({ attempt, delayMs, reason: failure.reason, outcomeUnknown: failure.outcomeUnknown });
    await hooks.sleep(delayMs);
    if (failure.sort === 'rateLimited') heldMs += delayMs;
    previous = failure;
  }
}

/**
 * Ends a call whose last failure is final. When that attempt's outcome is unknown, it may have
 * taken effect: the caller looks once more (as before a retry), so that a create made on the
 * last attempt is answered as made — not reported failed while it exists (an invite so made
 * would hold a code nobody has). When the look finds nothing, or fails too, `error` is thrown.
 */
async function lookBeforeGivingUp<T>(failure: AttemptFailure, hooks: RetryHooks<T>, error: Error): Promise<T> {
  if (failure.outcomeUnknown && hooks.beforeRetryAfterUnknown) {
    let found: { done: T } | undefined;
    try {
      found = await hooks.beforeRetryAfterUnknown();
    } catch {
      // The look failed as well: the failure that ended the call is the one to report.
    }
    if (found) return found.done;
  }
  throw error;
}
