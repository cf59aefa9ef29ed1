/**
 * `npm run bench live-read`: reading a 10,000-resource org with 20 ms added latency per
 * request, three ways, in the same run against the same emulator:
 *   (a) readLiveState — descendants_of listings per kind, concurrent skip pages;
 *   (b) baseline 1 — one GET per resource, 10 at a time (a Terraform provider's refresh);
 *   (c) baseline 2 — one sequential page_token cursor read per kind (kinds side by side).
 * Issue 3 targets: (a) uses ≥ 50× fewer requests and is ≥ 20× faster than (b), and is faster than (c).
 */
import pLimit from 'p-limit';
import { startEmulator, type SeedDocument, type SeedGroup } from '../src/emulator/index.js';
import { createClient } from '../src/api/client.js';
import type { ApiClient } from '../src/api/types.js';
import { readLiveState } from '../src/live/index.js';
import { LISTED_KINDS } from '../src/live/build-live-state.js';
import { orgListQuery } from '../src/live/read-live-state.js';
import { BUILTIN_ROLE_NAMES } from '../src/model/kinds.js';

const TOKEN = 'bench-token';
const LATENCY_MS = 20;

/**
 * 300 groups (20 teams × 14 subgroups + the 20 teams), 10 identities and 5 repos in each,
 * 5,000 role bindings (16 or 17 per group) and 200 subscriptions: 10,000 resources + the org.
 */
function buildSeed(): SeedDocument {
  const groups: SeedGroup[] = [];
  let index = 0;
  const group = (name: string): SeedGroup => {
    const i = index++;
    const bindings = i < 200 ? 17 : 16;
    return {
      name,
      identities: Array.from({ length: 10 }, (_, k) => ({ name: `id-${k}` })),
      repos: Array.from({ length: 5 }, (_, k) => ({ name: `repo-${k}` })),
      roleBindings: Array.from({ length: bindings }, (_, k) => ({
        identity: `id-${k % 10}`,
        role: BUILTIN_ROLE_NAMES[Math.floor(k / 10) + (k % 2) * 2]!,
      })),
      subscriptions: i < 200 ? [{ sink: `https://hooks.example/${i}` }] : [],
    };
  };
  for (let t = 0; t < 20; t++) {
    const team = group(`team-${t}`);
    team.groups = Array.from({ length: 14 }, (_, s) => group(`sub-${s}`));
    groups.push(team);
  }
  return { orgs: [{ name: 'bench', groups }] };
}

function newClient(url: string, extra: Partial<Parameters<typeof createClient>[0]> = {}): ApiClient {
  return createClient({ baseUrl: url, token: TOKEN, ...extra });
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

export async function run(): Promise<void> {
  const emulator = await startEmulator({ port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
  try {
    const seeded = emulator.seed(buildSeed());
    const orgUid = seeded.orgUids.bench!;
    emulator.setFaults({ latencyMs: LATENCY_MS });

    // (a) readLiveState
    const a = newClient(emulator.url);
    const live = await timed(() => readLiveState(a, { org: { name: 'bench' } }));
    const aRequests = a.requestCount;
    await a.close();
    const state = live.value;
    if (state.incomplete.length > 0 || state.ambiguities.length > 0)
      throw new Error(`bench read was not clean: ${JSON.stringify(state.incomplete)}`);
    const counts: Record<string, number> = {};
    for (const r of state.resources) counts[r.kind] = (counts[r.kind] ?? 0) + 1;

    // (b) baseline 1: the uid list comes from (a), in-process and uncounted.
    const b = newClient(emulator.url, { connections: 10 });
    const limit = pLimit(10);
    const refresh = await timed(() => Promise.all(state.resources.map((r) => limit(() => b.get(r.kind, r.uid)))));
    const bRequests = b.requestCount;
    await b.close();
    if (refresh.value.length !== state.resources.length)
      throw new Error('baseline 1 read a different number of resources');

    // (c) baseline 2: page_token cursors, one page after another, every kind at the same time.
    const c = newClient(emulator.url, { listStrategy: 'cursor' });
    const cursor = await timed(() => Promise.all(LISTED_KINDS.map((kind) => c.list(kind, orgListQuery(kind, orgUid)))));
    const cRequests = c.requestCount;
    await c.close();
    const cItems = cursor.value.reduce((n, l) => n + l.items.length, 0);
    if (cItems !== state.resources.length - 1)
      throw new Error(`baseline 2 read ${cItems} resources, expected ${state.resources.length - 1}`);

    const line = (label: string, ms: number, requests: number) =>
      `${label.padEnd(52)} ${ms.toFixed(0).padStart(7)} ms ${String(requests).padStart(7)} requests\n`;
    const out = process.stdout;
    out.write(
      `org: ${state.resources.length} resources (${Object.entries(counts)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ')})\n`,
    );
    out.write(`added latency: ${LATENCY_MS} ms per request\n`);
    out.write(line('(a) readLiveState', live.ms, aRequests));
    out.write(line('(b) baseline 1: GET per resource, 10 at a time', refresh.ms, bRequests));
    out.write(line('(c) baseline 2: sequential cursor read per kind', cursor.ms, cRequests));
    const fewer = bRequests / aRequests;
    const faster1 = refresh.ms / live.ms;
    const faster2 = cursor.ms / live.ms;
    const check = (ok: boolean) => (ok ? 'met' : 'MISSED');
    out.write(
      `vs baseline 1: ${fewer.toFixed(1)}× fewer requests (target ≥ 50×: ${check(fewer >= 50)}), ${faster1.toFixed(1)}× faster (target ≥ 20×: ${check(faster1 >= 20)})\n`,
    );
    out.write(
      `vs baseline 2: ${faster2.toFixed(2)}× faster (target > 1×: ${check(faster2 > 1)}), ${(cRequests / aRequests).toFixed(2)}× the requests\n`,
    );
  } finally {
    await emulator.close();
  }
}
