/**
 * Fault injection (DESIGN.md §6): latency with jitter, 503s, a token-bucket rate limit, and
 * connection resets, some of them after the request was applied. Every request draws the same
 * number of values from one seeded stream whatever happens to it, so the same seed and the
 * same sequence of requests give the same faults.
 */
import { createRandom, type Random } from './prng.js';

/** Faults the emulator injects; all optional, all off by default. */
export interface FaultOptions {
  /** PRNG seed; with it every fault decision (and every generated uid) is reproducible. */
  seed?: number;
  /** Added to every request, in ms. */
  latencyMs?: number;
  /** Up to this many ms more, uniformly drawn per request. */
  jitterMs?: number;
  /** Share of requests (0..1) answered 503 UNAVAILABLE with Retry-After. */
  errorRate?: number;
  /** Retry-After on 503 and 429, whole seconds (default 1; 0 allowed). */
  retryAfterSeconds?: number;
  /** Requests per second (token bucket, burst of one second); excess → 429 RESOURCE_EXHAUSTED. */
  rateLimit?: number;
  /**
   * Share of requests (0..1) whose connection is reset. Half of them (drawn) are applied first
   * and reset instead of answered, so a client cannot tell whether a create happened.
   */
  resetRate?: number;
  /** Page-token lifetime in seconds (default 3 days). */
  pageTokenTtlSeconds?: number;
}

export type FaultAction = 'none' | 'error' | 'ratelimit' | 'reset-before' | 'reset-after';

export interface FaultDecision {
  delayMs: number;
  action: FaultAction;
}

export const DEFAULT_PAGE_TOKEN_TTL_SECONDS = 3 * 24 * 3600;

/** Checks fault options; returns a message naming the bad option, or null. */
export function checkFaultOptions(f: FaultOptions): string | null {
  const rate = (name: keyof FaultOptions): string | null => {
    const v = f[name];
    return v === undefined || (Number.isFinite(v) && v >= 0 && v <= 1) ? null : `${name} must be between 0 and 1, got ${v}`;
  };
  const nonNegative = (name: keyof FaultOptions, integer = false): string | null => {
    const v = f[name];
    if (v === undefined) return null;
    return Number.isFinite(v) && v >= 0 && (!integer || Number.isInteger(v)) ? null : `${name} must be a non-negative ${integer ? 'integer' : 'number'}, got ${v}`;
  };
  return (
    rate('errorRate') ??
    rate('resetRate') ??
    nonNegative('latencyMs') ??
    nonNegative('jitterMs') ??
    nonNegative('rateLimit') ??
    nonNegative('retryAfterSeconds', true) ??
    nonNegative('pageTokenTtlSeconds') ??
    (f.seed !== undefined && !Number.isInteger(f.seed) ? `seed must be an integer, got ${f.seed}` : null)
  );
}

export class FaultInjector {
  readonly options: FaultOptions;
  private readonly random: Random;
  private readonly now: () => number;
  private tokens: number;
  private lastRefill: number;

  constructor(options: FaultOptions, now: () => number) {
    const problem = checkFaultOptions(options);
    if (problem) throw new RangeError(`emulator faults: ${problem}`);
    this.options = { ...options };
    this.random = createRandom(options.seed);
    this.now = now;
    this.tokens = Math.max(1, options.rateLimit ?? 0);
    this.lastRefill = now();
  }

  get retryAfterSeconds(): number {
    return this.options.retryAfterSeconds ?? 1;
  }

  /** Decides the fate of the next request. Always draws four values, in the same order. */
  decide(): FaultDecision {
    const o = this.options;
    const uJitter = this.random();
    const uError = this.random();
    const uReset = this.random();
    const uPhase = this.random();
    const delayMs = (o.latencyMs ?? 0) + (o.jitterMs ?? 0) * uJitter;
    let action: FaultAction = 'none';
    if (o.rateLimit !== undefined && o.rateLimit > 0 && !this.takeToken(o.rateLimit)) action = 'ratelimit';
    else if (uError < (o.errorRate ?? 0)) action = 'error';
    else if (uReset < (o.resetRate ?? 0)) action = uPhase < 0.5 ? 'reset-after' : 'reset-before';
    return { delayMs, action };
  }

  private takeToken(rate: number): boolean {
    const t = this.now();
    const capacity = Math.max(1, rate);
    this.tokens = Math.min(capacity, this.tokens + ((t - this.lastRefill) / 1000) * rate);
    this.lastRefill = t;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }
}
