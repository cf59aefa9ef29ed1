/**
 * Emulator scaling: a 200-item page (over HTTP, deep `skip`s and a cursor page) at 1k and at
 * 100k resources in one org, the ratio between them (target < 3), and the seed time for 100k.
 */
import { request } from 'undici';
import { startEmulator, type Emulator } from '../src/emulator/index.js';

const TOKEN = 'bench-token';
const PAGE = 200;
const REQUESTS = 200;

function seedRepos(emu: Emulator, count: number): { org: string; ms: number } {
  const t0 = performance.now();
  const result = emu.seed({
    orgs: [
      {
        name: `org-${count}`,
        repos: Array.from({ length: count }, (_, i) => ({
          name: `repo-${String(i).padStart(6, '0')}`,
          description: `repo ${i}`,
        })),
      },
    ],
  });
  return { org: result.orgUids[`org-${count}`]!, ms: performance.now() - t0 };
}

async function postJson(emu: Emulator, path: string, body: unknown): Promise<void> {
  const res = await request(`${emu.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`POST ${path} → ${res.statusCode} ${text}`);
}

async function getJson(emu: Emulator, path: string): Promise<Record<string, unknown>> {
  const res = await request(`${emu.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const body = (await res.body.json()) as Record<string, unknown>;
  if (res.statusCode !== 200) throw new Error(`GET ${path} → ${res.statusCode} ${JSON.stringify(body)}`);
  return body;
}

interface Figures {
  size: number;
  seedMs: number;
  /** First listing after the bulk seed: builds the sorted view once. */
  coldMs: number;
  /** A page right after an HTTP create (cached lists are updated in place, not rebuilt). */
  afterCreateMs: number;
  medianMs: number;
  meanMs: number;
}

async function measure(size: number): Promise<Figures> {
  const emu = await startEmulator({ tokens: [{ token: TOKEN, role: 'owner' }] });
  try {
    const { org, ms: seedMs } = seedRepos(emu, size);
    const base = `/registry/v2/repos?uidp.descendants_of=${org}&order_by=name&page_size=${PAGE}`;
    // Cold: the first listing after a change builds the sorted view for this query.
    const c0 = performance.now();
    const first = await getJson(emu, base);
    const coldMs = performance.now() - c0;
    const token = first.nextPageToken as string;
    const afterCreate: number[] = [];
    for (let i = 0; i < 21; i++) {
      await postJson(emu, `/registry/v2/repos/${org}`, { name: `created-during-bench-${i}` });
      const a0 = performance.now();
      await getJson(emu, `${base}&skip=${Math.floor(size / 2)}`);
      afterCreate.push(performance.now() - a0);
    }
    const afterCreateMs = afterCreate.sort((a, b) => a - b)[afterCreate.length >> 1]!;
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      // Alternate cursor pages and skips spread over the whole listing (deep ones included).
      const skip = Math.floor((((i * 7919) % 1000) / 1000) * Math.max(0, size - PAGE));
      const path = i % 4 === 0 ? `${base}&page_token=${encodeURIComponent(token)}` : `${base}&skip=${skip}`;
      const t0 = performance.now();
      const body = await getJson(emu, path);
      times.push(performance.now() - t0);
      if ((body.repos as unknown[]).length !== PAGE) throw new Error(`short page at skip ${skip}`);
    }
    times.sort((a, b) => a - b);
    return {
      size,
      seedMs,
      coldMs,
      afterCreateMs,
      medianMs: times[times.length >> 1]!,
      meanMs: times.reduce((a, b) => a + b, 0) / times.length,
    };
  } finally {
    await emu.close();
  }
}

export async function run(): Promise<void> {
  // Warm up the JIT and the HTTP stack so the first size measured is not penalised.
  await measure(1_000);
  const small = await measure(1_000);
  const large = await measure(100_000);
  const row = (f: Figures): string =>
    `${String(f.size).padStart(7)} repos: 200-item page median ${f.medianMs.toFixed(2)} ms, mean ${f.meanMs.toFixed(2)} ms ` +
    `(first listing after seed ${f.coldMs.toFixed(1)} ms; page right after a create, median ${f.afterCreateMs.toFixed(2)} ms)`;
  process.stdout.write(`${row(small)}\n${row(large)}\n`);
  process.stdout.write(`ratio 100k/1k (median page): ${(large.medianMs / small.medianMs).toFixed(2)} (target < 3)\n`);
  process.stdout.write(
    `seed 1k resources: ${small.seedMs.toFixed(0)} ms; seed 100k resources: ${large.seedMs.toFixed(0)} ms\n`,
  );
}
