/**
 * The client-wide throttle (DESIGN.md §4): every HTTP attempt of one client passes through it.
 *
 * - A gate: when the server says "wait" to one request (429, a 503 with `Retry-After`, a
 *   refused connection), no attempt of the client starts before that time. Without it every
 *   concurrent caller finds out on its own, by being refused too.
 * - Adaptive concurrency (AIMD, as TCP congestion control): the number of attempts in flight is
 *   halved on a 429 and grows by one per window of successes, up to the pool size. The gate
 *   alone would let the whole queue out at once each time it opens, and a token-bucket server
 *   refuses all but its burst. Growth waits until the gate has stayed open as long as it was
 *   last held: against a server that keeps limiting, the limit stays low, so each refill costs
 *   one 429 (the attempt that finds the bucket empty) rather than one per request in flight.
 *
 * Time comes from an injected clock, so tests run it on a virtual one.
 */

/** What the throttle and the retry loop measure time with and wait on. */
export interface Clock {
  /** Milliseconds on a monotonic scale (only differences matter). */
  now(): number;
  /** Resolves after `ms`; rejects once `signal` aborts (the client was closed). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Held by one attempt between `acquire` and `release`. */
export interface ThrottleTicket {
  /** The congestion epoch the attempt started in; see `release`. */
  readonly epoch: number;
}

/** How an attempt ended, as far as congestion is concerned. */
export type ThrottleOutcome = 'ok' | 'rateLimited' | 'other';

/**
 * Invariants: at most `floor(limit)` attempts hold a ticket at once (`1 ≤ limit ≤ maxInFlight`);
 * no ticket is handed out before `openAt`; waiters get tickets in arrival order.
 */
export class RequestThrottle {
  private limitValue: number;
  private inFlightCount = 0;
  private openAtMs = -Infinity;
  /** The limit grows only from this time on (see the file comment). */
  private calmAtMs = -Infinity;
  /** Bumped by every decrease, so the 429s of attempts already in flight count once. */
  private epoch = 0;
  private readonly waiters: { wake: () => void; fail: (err: unknown) => void }[] = [];
  private closedWith: Error | undefined;

  constructor(
    private readonly maxInFlight: number,
    private readonly clock: Clock,
    private readonly signal: AbortSignal,
  ) {
    if (!Number.isInteger(maxInFlight) || maxInFlight < 1)
      throw new RangeError(`maxInFlight must be a positive integer, got ${maxInFlight}`);
    this.limitValue = maxInFlight;
  }

  /** Attempts allowed in flight now. */
  get limit(): number {
    return Math.floor(this.limitValue);
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** No attempt starts before this time (on the clock's scale). */
  get openAt(): number {
    return this.openAtMs;
  }

  /** Closes the gate until `time` (never shortens an earlier hold). */
  holdUntil(time: number): void {
    this.openAtMs = Math.max(this.openAtMs, time);
    this.calmAtMs = Math.max(this.calmAtMs, time + (time - this.clock.now()));
  }

  /** Waits until the gate is open and a slot is free, then takes the slot. */
  async acquire(): Promise<ThrottleTicket> {
    for (;;) {
      if (this.closedWith) throw this.closedWith;
      const wait = this.openAtMs - this.clock.now();
      if (wait > 0) {
        await this.clock.sleep(wait, this.signal);
        continue;
      }
      if (this.inFlightCount < this.limit && this.waiters.length === 0) {
        this.inFlightCount++;
        return { epoch: this.epoch };
      }
      await new Promise<void>((wake, fail) => this.waiters.push({ wake, fail }));
      // Woken with a slot reserved for us (see wakeWaiters); the gate may have closed since.
      this.inFlightCount--;
      if (this.openAtMs > this.clock.now() || this.closedWith) {
        this.wakeWaiters();
        continue;
      }
      this.inFlightCount++;
      return { epoch: this.epoch };
    }
  }

  /** Frees the slot and adapts the limit to how the attempt ended. */
  release(ticket: ThrottleTicket, outcome: ThrottleOutcome): void {
    this.inFlightCount--;
    if (outcome === 'ok' && this.clock.now() >= this.calmAtMs) {
      // Additive increase: one more slot per `limit` successes.
      this.limitValue = Math.min(this.maxInFlight, this.limitValue + 1 / this.limit);
    } else if (outcome === 'rateLimited' && ticket.epoch === this.epoch) {
      // Multiplicative decrease, once per epoch: attempts sent before the first 429 of a burst
      // were all too many, and their 429s say nothing new.
      this.limitValue = Math.max(1, Math.floor(Math.min(this.limitValue, this.inFlightCount + 1) / 2));
      this.epoch++;
    }
    this.wakeWaiters();
  }

  /** Fails every waiting and every later `acquire` with `error` (the client is closing). */
  close(error: Error): void {
    this.closedWith = error;
    for (const w of this.waiters.splice(0)) w.fail(error);
  }

  /** Hands free slots to the first waiters, reserving each slot until the waiter runs. */
  private wakeWaiters(): void {
    while (this.waiters.length > 0 && this.inFlightCount < this.limit) {
      this.inFlightCount++;
      this.waiters.shift()!.wake();
    }
  }
}
