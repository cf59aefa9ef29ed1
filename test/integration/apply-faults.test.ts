/**
 * Apply under injected faults (10% 503s, connection resets — half of them after the request
 * took effect — and a rate limit), and with a read-only token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { apply, type ApplyEvent } from '../../src/apply/index.js';
import type { ApiClient } from '../../src/api/types.js';
import type { Emulator } from '../../src/emulator/index.js';
import {
  ACME,
  CHANGE_SET,
  openClient,
  planManifests,
  startApplyEmulator,
  VIEWER_TOKEN,
  writesIn,
} from './apply-helpers.js';

let emulator: Emulator | undefined;
const clients: ApiClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await emulator?.close();
  emulator = undefined;
});
const track = (c: ApiClient): ApiClient => (clients.push(c), c);

describe('apply under faults', () => {
  it('converges with 10% errors, resets and a rate limit, and makes no duplicates', async () => {
    emulator = await startApplyEmulator({
      seed: 42,
      errorRate: 0.1,
      resetRate: 0.05,
      rateLimit: 30,
      retryAfterSeconds: 0,
    });
    // Retry-After is 0 to keep the test fast, so the backoff alone must outlast the rate limit
    // (a 429 naming no pace is backed off from, not asked again at once: ≈100 requests here, not
    // 1,600): with eight requests racing for 30 a second, ten quick attempts can all land on an
    // empty bucket (wall-clock timing on a busy machine), so this client may try many more times.
    const client = track(
      openClient(emulator, undefined, { baseDelayMs: 25, maxDelayMs: 400, maxAttempts: 40, maxElapsedMs: 60_000 }),
    );
    const faulted: string[] = [];

    for (const paths of [[ACME], [CHANGE_SET]]) {
      const { plan, desired } = await planManifests(client, paths);
      expect(plan.steps.length).toBeGreaterThan(0);
      emulator.clearRequestLog();
      const result = await apply(plan, client, { concurrency: 8 });
      expect(result.failed).toEqual([]);
      expect(result.ok).toBe(true);
      expect(result.done).toHaveLength(plan.steps.length);
      faulted.push(...emulator.requestLog.flatMap((e) => (e.faulted ? [e.faulted] : [])));
      expect(result.requests).toBeGreaterThan(plan.steps.length);

      const after = await planManifests(client, paths);
      expect(after.plan.steps).toEqual([]);
      expect(after.live.ambiguities).toEqual([]);
      // No duplicate: exactly the desired resources exist (a duplicate sibling would be extra).
      expect(emulator.resourceCount()).toBe(desired.resources.length);
    }
    // The faults really happened during the applies (the client's retries absorbed them).
    expect(faulted).toContain('error');
    expect(faulted).toContain('reset');
    expect(faulted).toContain('ratelimit');
  });

  it('with a read-only token fails on the first write with the reason, skipping everything that depends on it', async () => {
    emulator = await startApplyEmulator();
    const viewer = track(openClient(emulator, VIEWER_TOKEN));
    const { plan } = await planManifests(viewer, [ACME]);
    emulator.clearRequestLog();
    const events: ApplyEvent[] = [];
    const result = await apply(plan, viewer, { onEvent: (e) => events.push(e) });

    expect(result.ok).toBe(false);
    expect(result.done).toEqual([]);
    expect(result.failed).toHaveLength(1);
    expect(result.failed[0]!.address).toBe('org');
    expect(result.failed[0]!.error).toMatch(/POST \/iam\/v2\/groups failed: HTTP 403 PERMISSION_DENIED \(7\)/);
    expect(result.failed[0]!.error).not.toContain(VIEWER_TOKEN);
    expect(result.skipped).toHaveLength(plan.steps.length - 1);
    expect(result.skipped.every((s) => s.because === 'org')).toBe(true);
    expect(events.filter((e) => e.type === 'step-skipped')).toHaveLength(plan.steps.length - 1);
    // One write was tried, not retried, and nothing changed.
    expect(writesIn(emulator.requestLog)).toHaveLength(1);
    expect(writesIn(emulator.requestLog)[0]).toMatchObject({ method: 'POST', path: '/iam/v2/groups', status: 403 });
    expect(emulator.resourceCount()).toBe(0);
  });
});
