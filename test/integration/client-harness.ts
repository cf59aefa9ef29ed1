/**
 * Shared set-up of the client and live-state integration tests: a real emulator on
 * 127.0.0.1 port 0 and a client with small retry delays and seeded jitter.
 */
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { createClient, type ClientOptions } from '../../src/api/client.js';
import { createSeededRandom } from '../../src/emulator/prng.js';
import type { ApiClient } from '../../src/api/types.js';
import type { Clock } from '../../src/api/throttle.js';

/** Lowercase so that it is also a valid resource name: tests put it into names and paths. */
export const OWNER_TOKEN = 'tok-owner-5ecret-8a1f';
export const VIEWER_TOKEN = 'tok-viewer-5ecret-33c2';

export async function startTestEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({
    port: 0,
    // Every answer the integration tests get is held to the emulator's own contract.
    checkAnswers: true,
    tokens: [
      { token: OWNER_TOKEN, role: 'owner' },
      { token: VIEWER_TOKEN, role: 'viewer' },
    ],
    ...options,
  });
}

/** A seeded uniform source for jitter, so retry waits repeat exactly. */
export const seededRandom = createSeededRandom;

/** A client with millisecond backoff so fault tests stay fast. */
export function createTestClient(emulator: Emulator, options: Partial<ClientOptions> = {}): ApiClient {
  return createClient({
    baseUrl: emulator.url,
    token: OWNER_TOKEN,
    retry: { baseDelayMs: 1, maxDelayMs: 20, maxAttempts: 10, maxElapsedMs: 20_000 },
    random: seededRandom(7),
    ...options,
  });
}

/**
 * A virtual clock for the client (`clock`) and the emulator (`clock: c.now`) together: a sleep
 * resolves at once (after pending I/O callbacks) and moves time to its own deadline, never
 * back. So a Retry-After of seconds costs no real time, and the emulator's rate-limit bucket
 * refills exactly by what the client waited.
 */
export function createVirtualClock(start = Date.UTC(2026, 0, 1)): Clock {
  let now = start;
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      const until = now + ms;
      await new Promise((resolve) => setImmediate(resolve));
      signal.throwIfAborted();
      now = Math.max(now, until);
    },
  };
}
