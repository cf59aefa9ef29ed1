/** Emulator over HTTP: seeded, reproducible faults (issue 2, point 10). Page-token TTL is in emulator-lists. */
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, takeInternalErrors, type Emulator, type FaultOptions } from '../../src/emulator/index.js';
import { OWNER, get, post, startTestEmulator } from './emulator-helpers.js';

const started: Emulator[] = [];
async function start(faults: FaultOptions, clock?: () => number): Promise<Emulator> {
  const emu = await startTestEmulator({ faults, ...(clock ? { clock } : {}) });
  started.push(emu);
  return emu;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((e) => e.close()));
});

/** Sends `n` sequential requests; each outcome is its status, or 'reset' when the connection died. */
async function outcomes(n: number, send: (i: number) => Promise<{ status: number }>): Promise<(number | 'reset')[]> {
  const out: (number | 'reset')[] = [];
  for (let i = 0; i < n; i++) {
    try {
      out.push((await send(i)).status);
    } catch {
      out.push('reset');
    }
  }
  return out;
}

describe('faults', () => {
  it('error rate answers 503 UNAVAILABLE with Retry-After', async () => {
    const emu = await start({ errorRate: 1, retryAfterSeconds: 3 });
    const r = await get(emu, '/iam/v2/groups');
    expect(r.status).toBe(503);
    expect(r.body.code).toBe(14);
    expect(r.headers.get('retry-after')).toBe('3');
    emu.setFaults({ errorRate: 1 });
    expect((await get(emu, '/iam/v2/groups')).headers.get('retry-after')).toBe('1');
    emu.setFaults({ errorRate: 1, retryAfterSeconds: 0 });
    expect((await get(emu, '/iam/v2/groups')).headers.get('retry-after')).toBe('0');
    emu.setFaults({});
    expect((await get(emu, '/iam/v2/groups')).status).toBe(200);
    expect(emu.requestLog.map((e) => e.faulted ?? null)).toEqual(['error', 'error', 'error', null]);
  });

  it('rate limit is a token bucket in requests/second: 429 RESOURCE_EXHAUSTED with Retry-After', async () => {
    let now = Date.UTC(2026, 0, 1);
    const emu = await start({ rateLimit: 4 }, () => now);
    const first = await outcomes(6, () => get(emu, '/ping/v2/ping', null));
    expect(first).toEqual([200, 200, 200, 200, 429, 429]);
    const limited = await get(emu, '/iam/v2/groups');
    expect(limited.body.code).toBe(8);
    expect(limited.headers.get('retry-after')).toBe('1');
    now += 500; // half a second refills two requests
    expect(await outcomes(3, () => get(emu, '/ping/v2/ping', null))).toEqual([200, 200, 429]);
    expect(emu.requestLog.filter((e) => e.faulted === 'ratelimit')).toHaveLength(4);
  });

  it('adds latency (with jitter) to every request', async () => {
    const emu = await start({ latencyMs: 40, jitterMs: 20, seed: 1 });
    const t0 = performance.now();
    expect((await get(emu, '/ping/v2/ping', null)).status).toBe(200);
    // Lower bound only: the delay is at least the configured latency.
    expect(performance.now() - t0).toBeGreaterThanOrEqual(39);
  });

  it('resets connections, half of them after applying the request (a create may have happened)', async () => {
    const emu = await start({});
    const org = (await post(emu, '/iam/v2/groups', { name: 'acme' })).body.uid;
    emu.clearRequestLog();
    emu.setFaults({ resetRate: 1, seed: 11 });
    const results = await outcomes(20, (i) => post(emu, `/registry/v2/repos/${org}`, { name: `r${i}` }));
    expect(results.every((r) => r === 'reset')).toBe(true);
    emu.setFaults({});
    const applied = (await get(emu, `/registry/v2/repos?uidp.children_of=${org}&page_size=200`)).body.repos.length;
    // Both kinds of reset happen: some creates were applied before the reset, some never were.
    expect(applied).toBeGreaterThan(0);
    expect(applied).toBeLessThan(20);
    expect(emu.requestLog.filter((e) => e.faulted === 'reset')).toHaveLength(20);
    expect(emu.requestLog.find((e) => e.faulted === 'reset')!.status).toBe(0);
  });

  it('internal error rate answers 500 INTERNAL without Retry-After, half of them after applying the request', async () => {
    const emu = await start({});
    const org = (await post(emu, '/iam/v2/groups', { name: 'acme' })).body.uid;
    emu.clearRequestLog();
    emu.setFaults({ internalErrorRate: 1, seed: 4 });
    const replies = [];
    for (let i = 0; i < 20; i++) replies.push(await post(emu, `/registry/v2/repos/${org}`, { name: `r${i}` }));
    for (const r of replies) {
      expect(r.status).toBe(500);
      expect(r.body).toMatchObject({ code: 13, message: expect.stringMatching(/^Internal: /) });
      expect(r.body.details[0]).toMatchObject({ reason: 'INTERNAL', domain: 'registry.platform.emulator' });
      expect(r.headers.get('retry-after')).toBeNull();
    }
    emu.setFaults({});
    const applied = (await get(emu, `/registry/v2/repos?uidp.children_of=${org}&page_size=200`)).body.repos.map(
      (r: { name: string }) => r.name,
    );
    const loggedApplied = emu.requestLog
      .filter((e) => e.faulted === 'internal' && e.applied)
      .map((e) => e.seq - emu.requestLog[0]!.seq);
    // Exactly the creates the log marks as applied exist: some, not all.
    expect(applied.sort()).toEqual(loggedApplied.map((i) => `r${i}`).sort());
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.length).toBeLessThan(20);
  });

  it('short pages hold fewer items than page_size while nextPageToken is set; following the tokens loses nothing', async () => {
    const emu = await start({});
    const seeded = emu.seed({
      orgs: [
        { name: 'acme', repos: Array.from({ length: 45 }, (_, i) => ({ name: `repo-${String(i).padStart(2, '0')}` })) },
      ],
    });
    emu.setFaults({ shortPageRate: 1, seed: 3 });
    const pageSizes: number[] = [];
    const names: string[] = [];
    let token: string | undefined;
    do {
      const r = await get(
        emu,
        `/registry/v2/repos?uidp.children_of=${seeded.orgUids.acme}&order_by=name%20desc&page_size=10${token ? `&page_token=${encodeURIComponent(token)}` : ''}`,
      );
      expect(r.body.totalCount).toBe('45');
      pageSizes.push(r.body.repos.length);
      names.push(...r.body.repos.map((x: { name: string }) => x.name));
      token = r.body.nextPageToken || undefined;
      if (token) expect(r.body.repos.length).toBeLessThan(10);
    } while (token);
    expect(names).toEqual(Array.from({ length: 45 }, (_, i) => `repo-${String(44 - i).padStart(2, '0')}`));
    expect(pageSizes.every((n) => n >= 1)).toBe(true);
    expect(emu.requestLog.filter((e) => e.faulted === 'short-page')).toHaveLength(pageSizes.length - 1);
  });

  it('same seed → same sequence of faults and the same uids; another seed → another sequence', async () => {
    const faults: FaultOptions = { seed: 2026, errorRate: 0.2, internalErrorRate: 0.15, resetRate: 0.25 };
    const run = async (f: FaultOptions) => {
      const emu = await start(f);
      const created = await outcomes(30, (i) => post(emu, '/iam/v2/groups', { name: `org-${i}` }));
      emu.setFaults({});
      const uids = (await get(emu, '/iam/v2/groups?page_size=200&order_by=name')).body.groups.map(
        (g: { name: string; uid: string }) => `${g.name}=${g.uid}`,
      );
      return { created, uids, log: emu.requestLog.slice(0, 30).map((e) => e.faulted ?? e.status) };
    };
    const a = await run(faults);
    const b = await run(faults);
    expect(b.created).toEqual(a.created);
    expect(b.log).toEqual(a.log);
    expect(b.uids).toEqual(a.uids);
    expect(new Set(a.created)).toEqual(new Set([200, 500, 503, 'reset']));
    const c = await run({ ...faults, seed: 7 });
    expect(c.log).not.toEqual(a.log);
  });

  it('logs every request without its headers (so never a token)', async () => {
    const emu = await start({});
    await get(emu, '/registry/v2/repos?page_size=5&order_by=name%20desc');
    const [entry] = emu.requestLog;
    expect(entry).toEqual({
      seq: 1,
      method: 'GET',
      path: '/registry/v2/repos',
      query: { page_size: '5', order_by: 'name desc' },
      status: 200,
    });
    expect(JSON.stringify(emu.requestLog)).not.toContain(OWNER);
    emu.clearRequestLog();
    expect(emu.requestLog).toHaveLength(0);
  });

  it('rejects nonsensical fault settings with a clear error', async () => {
    const emu = await start({});
    expect(() => emu.setFaults({ errorRate: 2 })).toThrow(/errorRate must be between 0 and 1/);
    expect(() => emu.setFaults({ retryAfterSeconds: 1.5 })).toThrow(/retryAfterSeconds/);
    expect(() => emu.setFaults({ shortPageRate: 2 })).toThrow(/shortPageRate must be between 0 and 1/);
  });

  it('treats a client that hangs up mid-request as normal, not as an internal error', async () => {
    const emu = await start({});
    const stderr = vi.spyOn(process.stderr, 'write');
    try {
      const { port } = new URL(emu.url);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          // Promise a body of 100 bytes, send 2, then vanish (a killed apply).
          socket.write(
            `POST /iam/v2/groups HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${OWNER}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"`,
          );
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      await get(emu, '/ping/v2/ping'); // the server is still serving
      await new Promise((r) => setTimeout(r, 50));
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).not.toContain('internal error');
    } finally {
      stderr.mockRestore();
    }
  });
});

describe('an internal error of the emulator (issue 47)', () => {
  it('is answered 500 (code 13, AIP-193 body) at once, for a request with a body too, never a hang', async () => {
    const emu = await startTestEmulator({
      internalFault: ({ method }) => {
        if (method === 'POST' || method === 'GET') throw new Error('a bug in a handler');
      },
    });
    started.push(emu);
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (errors.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const timeout = AbortSignal.timeout(5_000);
      // A request whose body was read is what node marks destroyed: it must still be answered.
      const created = await fetch(`${emu.url}/iam/v2/groups`, {
        method: 'POST',
        signal: timeout,
        headers: { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'acme' }),
      });
      expect(created.status).toBe(500);
      expect(await created.json()).toEqual({ code: 13, message: 'Internal: a bug in a handler', details: [] });
      const listed = await fetch(`${emu.url}/iam/v2/groups`, {
        signal: timeout,
        headers: { authorization: `Bearer ${OWNER}` },
      });
      expect(listed.status).toBe(500);
    } finally {
      process.stderr.write = write;
    }
    expect(errors.join('')).toContain('emulator: internal error: Error: a bug in a handler');
    // Made on purpose: taken here, so that the run's check after each test does not fail this one.
    expect(takeInternalErrors()).toEqual([
      'POST /iam/v2/groups: a bug in a handler',
      'GET /iam/v2/groups: a bug in a handler',
    ]);
  });
});

describe('the one test emulator (issue 47)', () => {
  it('every emulator the suite starts checks its answers, one started without options too, and so does every process it spawns', async () => {
    expect(process.env.PLATFORM_SYNC_EMULATOR_STRICT).toBe('1');
    const plain = await startEmulator();
    started.push(plain);
    expect(plain.checksAnswers).toBe(true);
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    // No test turns the check off.
    const off: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith('.ts') && /checkAnswers:\s*false/.test(readFileSync(join(dir, e.name), 'utf8')))
          off.push(e.name);
      }
    };
    walk(join(import.meta.dirname, '..'));
    expect(off).toEqual([]);
  });
});
