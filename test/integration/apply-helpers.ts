/**
 * Shared setup of the apply integration tests: a real emulator on 127.0.0.1 port 0, a real
 * client over HTTP, and the real pipeline (load manifests → read live → plan).
 */
import { createSeededRandom } from '../../src/emulator/prng.js';
import { join, resolve } from 'node:path';
import { createClient } from '../../src/api/client.js';
import type { RetryPolicy } from '../../src/api/retry.js';
import type { ApiClient } from '../../src/api/types.js';
import { startEmulator, type Emulator, type FaultOptions, type RequestLogEntry } from '../../src/emulator/index.js';
import { planFromManifests, type PlanningOptions, type PlanningResult } from '../../src/pipeline.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const ACME = join(REPO_ROOT, 'examples', 'acme');
export const CHANGE_SET = join(REPO_ROOT, 'test', 'fixtures', 'apply-change-set');

export const OWNER_TOKEN = 'apply-test-owner-token-5f3a';
export const VIEWER_TOKEN = 'apply-test-viewer-token-91c2';

export function startApplyEmulator(faults?: FaultOptions): Promise<Emulator> {
  return startEmulator({
    checkAnswers: true,
    port: 0,
    tokens: [
      { token: OWNER_TOKEN, role: 'owner' },
      { token: VIEWER_TOKEN, role: 'viewer' },
    ],
    faults: { seed: 1, ...faults },
  });
}

/** A client with short, seeded retry waits so fault tests stay fast and reproducible. */
export function openClient(emulator: Emulator, token = OWNER_TOKEN, retry: Partial<RetryPolicy> = {}): ApiClient {
  const random = createSeededRandom(0x9e3779b9);
  return createClient({
    baseUrl: emulator.url,
    token,
    retry: { maxAttempts: 10, baseDelayMs: 5, maxDelayMs: 50, ...retry },
    timeoutMs: 5_000,
    random,
  });
}

/** What `platform-sync plan --bootstrap <paths>` computes (load manifests → read live → plan), through the library. */
export function planManifests(
  client: ApiClient,
  paths: string[],
  options: PlanningOptions = {},
): Promise<PlanningResult> {
  return planFromManifests(paths, client, { bootstrap: true, ...options });
}

/** Requests that change state (anything but GET). */
export function writesIn(log: readonly RequestLogEntry[]): RequestLogEntry[] {
  return log.filter((e) => e.method !== 'GET');
}
