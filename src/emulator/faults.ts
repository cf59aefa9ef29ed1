/**
 * Fault injection (DESIGN.md §6): latency with jitter, 503s, 500s, a token-bucket rate limit,
 * connection resets (500s and resets sometimes after the request was applied), and short list
 * pages. Every request draws the same number of values from two seeded streams whatever happens
 * to it, so the same seed and the same sequence of requests give the same faults. The second
 * stream holds the draws of the faults added later (500s, short pages), so that adding them
 * did not change the sequence an existing seed gives for the original ones.
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
  /**
   * Share of requests (0..1) answered 500 INTERNAL (no Retry-After). Half of them (drawn) are
   * applied first, so a client cannot tell whether a create happened.
   */
  internalErrorRate?: number;
  /**
   * Share of List responses (0..1) that hold fewer items than `page_size` although more remain
   * (`nextPageToken` set), as AIP-158 allows: between 1 and (full page − 1) items, drawn.
   * Following the token loses nothing; a client that stops at a short page does.
   */
  shortPageRate?: number;
  /** Page-token lifetime in seconds (default 3 days). */
  pageTokenTtlSeconds?: number;
}

/**
 * A service that keeps other fields than it was sent (EmulatorOptions.storeFault): given what a
 * create or an update is about to store, it returns what is stored instead.
 */
export type StoreFault = (
  write: { kind: string; action: 'create' | 'update' },
  fields: Record<string, unknown>,
) => Record<string, unknown>;

export type FaultAction =
  | 'none'
  | 'error'
  | 'ratelimit'
  | 'internal-before'
  | 'internal-after'
  | 'reset-before'
  | 'reset-after';

export interface FaultDecision {
  delayMs: number;
  action: FaultAction;
  /**
   * Set when this request, if it is a List, gets a short page: the share in [0, 1) of the
   * items between 1 and (full page − 1) to serve. Absent otherwise.
   */
  shortPage?: number;
}

export const DEFAULT_PAGE_TOKEN_TTL_SECONDS = 3 * 24 * 3600;

/** Checks fault options; returns a message naming the bad option, or null. */
export function checkFaultOptions(f: FaultOptions): string | null {
  const rate = (name: keyof FaultOptions): string | null => {
    const v = f[name];
    return v === undefined || (Number.isFinite(v) && v >= 0 && v <= 1)
      ? null
      : `${name} must be between 0 and 1, got ${v}`;
  };
  const nonNegative = (name: keyof FaultOptions, integer = false): string | null => {
    const v = f[name];
    if (v === undefined) return null;
    return Number.isFinite(v) && v >= 0 && (!integer || Number.isInteger(v))
      ? null
      : `${name} must be a non-negative ${integer ? 'integer' : 'number'}, got ${v}`;
  };
  return (
    rate('errorRate') ??
    rate('resetRate') ??
    rate('internalErrorRate') ??
    rate('shortPageRate') ??
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
  /** Draws of the faults added after the first four (see the file comment). */
  private readonly laterRandom: Random;
  private readonly now: () => number;
  private tokens: number;
  private lastRefill: number;

  constructor(options: FaultOptions, now: () => number) {
    const problem = checkFaultOptions(options);
    if (problem) throw new RangeError(`emulator faults: ${problem}`);
    this.options = { ...options };
    this.random = createRandom(options.seed);
    this.laterRandom = createRandom(options.seed === undefined ? undefined : (options.seed ^ 0x9e3779b9) >>> 0);
    this.now = now;
    this.tokens = Math.max(1, options.rateLimit ?? 0);
    this.lastRefill = now();
  }

  get retryAfterSeconds(): number {
    return this.options.retryAfterSeconds ?? 1;
  }

  /** Decides the fate of the next request. Always draws the same values, in the same order. */
  decide(): FaultDecision {
    const o = this.options;
    const uJitter = this.random();
    const uError = this.random();
    const uReset = this.random();
    const uPhase = this.random();
    const uInternal = this.laterRandom();
    const uShort = this.laterRandom();
    const uShortSize = this.laterRandom();
    const delayMs = (o.latencyMs ?? 0) + (o.jitterMs ?? 0) * uJitter;
    let action: FaultAction = 'none';
    if (o.rateLimit !== undefined && o.rateLimit > 0 && !this.takeToken(o.rateLimit)) action = 'ratelimit';
    else if (uError < (o.errorRate ?? 0)) action = 'error';
    else if (uInternal < (o.internalErrorRate ?? 0)) action = uPhase < 0.5 ? 'internal-after' : 'internal-before';
    else if (uReset < (o.resetRate ?? 0)) action = uPhase < 0.5 ? 'reset-after' : 'reset-before';
    return uShort < (o.shortPageRate ?? 0) ? { delayMs, action, shortPage: uShortSize } : { delayMs, action };
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
