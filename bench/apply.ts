/**
 * `npm run bench apply`: bootstrap of a ~2,000-resource org into an empty emulator with 20 ms
 * added latency per request, at concurrency 1, 8 and 16, through the real pipeline (manifests →
 * live read → plan → apply over HTTP).
 *
 * The limit an executor can reach is concurrency / round-trip time; the RTT is measured in the
 * same run, with the same fault settings, as the mean of sequential authenticated GETs. Issue 6
 * targets ≥ 80% of that limit at concurrency 16. The plan's dependency graph also bounds the
 * rate (the org before its groups, a group before its children, an identity before its
 * bindings), so the benchmark also reports the best any scheduler could do on this graph at
 * this concurrency (a unit-time list schedule), and the ratio against that.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../src/api/client.js';
import type { ApiClient } from '../src/api/types.js';
import { apply, buildStepGraph, measureCriticalPath, type StepGraph } from '../src/apply/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { readLiveState } from '../src/live/index.js';
import { loadManifests } from '../src/manifest/index.js';
import type { Plan } from '../src/model/plan.js';
import { plan } from '../src/plan/index.js';

const TOKEN = 'bench-apply-token';
const LATENCY_MS = 20;
const CONCURRENCIES = [1, 8, 16];
const GROUPS = 40;
const RTT_SAMPLES = 40;

/**
 * A wide org: 40 groups, each with 20 identities, 15 repos, 10 role bindings (to its own
 * identities) and 4 subscriptions — 1 + 40 + 40 × 49 = 2,001 resources. Wide on purpose: the
 * groups are created first, then their children all become ready together.
 */
function writeBenchManifest(dir: string): void {
  const lines = ['apiVersion: platform-sync/v1', 'org:', '  name: bench-apply', '  groups:'];
  for (let g = 0; g < GROUPS; g++) {
    lines.push(`    - name: team-${g}`, '      identities:');
    for (let i = 0; i < 20; i++) lines.push(`        - name: bot-${i}`);
    lines.push('      repos:');
    for (let r = 0; r < 15; r++)
      lines.push(`        - name: repo-${r}`, `          description: repo ${r} of team ${g}`);
    lines.push('      roleBindings:');
    for (let b = 0; b < 10; b++)
      lines.push(`        - identity: bot-${b}`, `          role: ${b % 2 === 0 ? 'viewer' : 'registry.pull'}`);
    lines.push('      subscriptions:');
    for (let s = 0; s < 4; s++) lines.push(`        - sink: https://hooks.bench.example/${g}/${s}`);
  }
  writeFileSync(join(dir, 'org.yaml'), `${lines.join('\n')}\n`);
}

/** Requests a step sends: a root-group create is preceded by the client's exactly-once name check. */
function requestsOf(graph: StepGraph, address: string): number {
  const step = graph.byAddress.get(address)!;
  if (step.action === 'create' && step.parent === null) return 2;
  if (step.action === 'create' && step.kind === 'repo' && typeof step.after?.readme === 'string') return 2;
  return 1;
}

/**
 * Makespan, in round trips, of running the graph at `concurrency` when every request takes one
 * round trip: steps start in plan order as soon as their dependencies are done and a slot is
 * free — the executor's own policy with zero overhead. Its rate is the best reachable here.
 */
function simulateSchedule(graph: StepGraph, concurrency: number): number {
  const unmet = new Map([...graph.waitsFor].map(([a, deps]) => [a, deps.length]));
  const index = new Map(graph.steps.map((s, i) => [s.address, i]));
  const ready = graph.steps.filter((s) => unmet.get(s.address) === 0).map((s) => s.address);
  const running: { address: string; end: number }[] = [];
  let now = 0;
  while (ready.length > 0 || running.length > 0) {
    ready.sort((a, b) => index.get(a)! - index.get(b)!);
    while (running.length < concurrency && ready.length > 0) {
      const address = ready.shift()!;
      running.push({ address, end: now + requestsOf(graph, address) });
    }
    now = Math.min(...running.map((r) => r.end));
    for (const finished of running.filter((r) => r.end === now)) {
      running.splice(running.indexOf(finished), 1);
      for (const d of graph.dependents.get(finished.address)!) {
        const left = unmet.get(d)! - 1;
        unmet.set(d, left);
        if (left === 0) ready.push(d);
      }
    }
  }
  return now;
}

/** Mean round trip of an authenticated GET (same server, same latency faults). */
async function measureRoundTripMs(client: ApiClient): Promise<number> {
  await client.list('group', { name: 'warm-up' });
  const t0 = performance.now();
  for (let i = 0; i < RTT_SAMPLES; i++) await client.list('group', { name: 'rtt-probe' });
  return (performance.now() - t0) / RTT_SAMPLES;
}

async function planBootstrap(client: ApiClient, dir: string): Promise<Plan> {
  const desired = await loadManifests([dir]);
  const live = await readLiveState(client, { org: { name: desired.org.name } });
  return plan(desired, live, { bootstrap: true });
}

const fmt = (n: number, digits = 1): string => n.toFixed(digits);
const pad = (s: string, n: number): string => s.padStart(n);

export async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-sync-bench-apply-'));
  try {
    writeBenchManifest(dir);
    process.stdout.write(`bootstrap of an empty org, ${LATENCY_MS} ms added latency per request\n`);
    process.stdout.write(
      `${['conc', 'steps', 'reqs', 'time s', 'ops/s', 'RTT ms', 'limit/s', 'ratio', 'graph-best/s', 'ratio'].map((h, i) => pad(h, [4, 6, 6, 8, 8, 7, 8, 6, 13, 6][i]!)).join(' ')}\n`,
    );
    const notes: string[] = [];
    for (const concurrency of CONCURRENCIES) {
      // A fresh emulator per run: each apply is a bootstrap into an empty org.
      const emulator = await startEmulator({
        port: 0,
        tokens: [{ token: TOKEN, role: 'owner' }],
        faults: { seed: 1, latencyMs: LATENCY_MS },
      });
      const client = createClient({ baseUrl: emulator.url, token: TOKEN });
      try {
        const bootstrap = await planBootstrap(client, dir);
        const rttMs = await measureRoundTripMs(client);
        const result = await apply(bootstrap, client, { concurrency });
        if (!result.ok) throw new Error(`bench apply failed: ${JSON.stringify(result.failed.slice(0, 3))}`);
        const graph = buildStepGraph(bootstrap.steps);
        const seconds = result.ms / 1000;
        const opsPerSecond = result.requests / seconds;
        const limit = concurrency / (rttMs / 1000);
        const bestSeconds = (simulateSchedule(graph, concurrency) * rttMs) / 1000;
        const best = result.requests / bestSeconds;
        const cells = [
          String(concurrency),
          String(bootstrap.steps.length),
          String(result.requests),
          fmt(seconds, 2),
          fmt(opsPerSecond),
          fmt(rttMs, 2),
          fmt(limit),
          `${fmt((100 * opsPerSecond) / limit, 0)}%`,
          fmt(best),
          `${fmt((100 * opsPerSecond) / best, 0)}%`,
        ];
        process.stdout.write(`${cells.map((c, i) => pad(c, [4, 6, 6, 8, 8, 7, 8, 6, 13, 6][i]!)).join(' ')}\n`);
        if (concurrency === CONCURRENCIES.at(-1)) {
          notes.push(
            `critical path: ${measureCriticalPath(graph)} steps; at concurrency ${concurrency} the graph allows at most ${fmt((100 * best) / limit, 0)}% of concurrency/RTT`,
            `target: ≥ 80% of concurrency/RTT at concurrency 16 — ${(100 * opsPerSecond) / limit >= 80 ? 'met' : 'NOT met'} (${fmt((100 * opsPerSecond) / limit, 0)}%)`,
          );
        }
        if (emulator.resourceCount() !== bootstrap.steps.length) {
          throw new Error(
            `expected ${bootstrap.steps.length} resources after the bootstrap, found ${emulator.resourceCount()}`,
          );
        }
      } finally {
        await client.close();
        await emulator.close();
      }
    }
    process.stdout.write(
      [
        'ops/s = requests / apply time; limit = concurrency / RTT (RTT = mean of sequential GETs with the same latency);',
        "graph-best = the same requests scheduled on this plan's dependency graph at this concurrency with zero overhead.",
        ...notes,
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
