/**
 * `npm run bench plan-process`: the whole `platform-sync plan` process on a big org (issue 14),
 * side by side with two readers of the same org in the same run, at 20 ms per request. The org's
 * manifests are written twice (big-org.ts): in the README's flow style and in block style; every
 * measure of the process is taken for both, the two styles in turns (issue 61):
 *   - the product: `platform-sync plan --detailed-exitcode` as a fresh process (empty plan),
 *     wall, CPU, requests and peak memory; and `platform-sync validate` as a fresh process;
 *   - baseline 1: a per-resource refresh (one GET per uid, 10 at a time, as a Terraform
 *     provider refreshes; the uids come from an uncounted read);
 *   - baseline 2: a naive sequential cursor reader (one kind after another, page_size 200).
 * The baselines are timed in this process, reading only: no process start, no manifests, so
 * the comparison is in their favour. Baseline 2 runs after each plan run (the median of as many
 * runs), so that both meet the same load of a shared machine; baseline 1 takes minutes, once.
 * And the floor (floor.ts): a process that only starts, reads the manifests with js-yaml and
 * every list page of the org; the plan process's CPU is compared with it run by run (issue 28).
 * Then the CPU of a plan process by phase, and of the live build alone, cold in a process of
 * its own (live-build.ts). On Linux each CPU figure is also split into the main thread's and the
 * helper threads' (V8's optimizing compiler and parallel GC): a one-pass phase over 10,000
 * resources spends about as much on compiling its code as on running it. At 10k (issue 14's org) and 100k resources
 * (BENCH_SCALES=1 measures 10k only).
 * The product's processes are warm as a user's are after their first run: they compile the bundle
 * with V8's code cache (src/io/code-cache.ts) that the unmeasured first round wrote, in a cache
 * directory of the bench's own (the output says whether it was written); the floor has none.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import pLimit from 'p-limit';
import { startEmulator, type Emulator } from '../src/emulator/index.js';
import { createClient } from '../src/api/client.js';
import { readLiveState } from '../src/live/index.js';
import { LISTED_KINDS } from '../src/live/build-live-state.js';
import { orgListQuery } from '../src/live/read-live-state.js';
import { buildBigOrg, MANIFEST_STYLES, ORG, type ManifestStyle } from './big-org.js';

const TOKEN = 'bench-token';
const LATENCY_MS = 20;
const BIN = fileURLToPath(new URL('../../bin/platform-sync', import.meta.url));
const PRELOAD = fileURLToPath(new URL('../../bench/usage-preload.cjs', import.meta.url));
const PHASES = fileURLToPath(new URL('./plan-phases.js', import.meta.url));
const FLOOR = fileURLToPath(new URL('./floor.js', import.meta.url));
const LIVE_BUILD = fileURLToPath(new URL('./live-build.js', import.meta.url));

interface ProcessRun {
  wallMs: number;
  cpuMs: number;
  maxRssKiB: number;
  /** CPU of the main thread alone (Linux); the rest of cpuMs ran on helper threads. */
  mainThreadCpuMs?: number;
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a node script as a fresh process; CPU and peak memory come from the process itself. */
async function runProcess(args: string[], env: Record<string, string>): Promise<ProcessRun> {
  const dir = await mkdtemp(join(tmpdir(), 'ps-bench-usage-'));
  const usageFile = join(dir, 'usage.json');
  try {
    const started = performance.now();
    const child = spawn(process.execPath, ['--require', PRELOAD, ...args], {
      env: { ...process.env, ...env, PS_BENCH_USAGE_FILE: usageFile, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
    const wallMs = performance.now() - started;
    const usage = JSON.parse(await readFile(usageFile, 'utf8')) as {
      cpuMs: number;
      maxRssKiB: number;
      mainThreadCpuMs?: number;
    };
    return { wallMs, ...usage, exitCode, stdout, stderr };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A full collection of this process's heap (the emulator's, and the readers'): before each
 * measured run, so that what one run left behind is not collected during the next one.
 */
const collectGarbage: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface ThreadSplit {
  main: number;
  helpers: number;
}

/** Median CPU on the main thread and on every other thread of some runs; undefined where a run did not tell. */
function threadSplit(runs: readonly ProcessRun[]): ThreadSplit | undefined {
  if (runs.some((r) => r.mainThreadCpuMs === undefined)) return undefined;
  return {
    main: median(runs.map((r) => r.mainThreadCpuMs!)),
    helpers: median(runs.map((r) => r.cpuMs - r.mainThreadCpuMs!)),
  };
}

/** What one manifest style measured: the plan and the floor in turns, validate, the phases. */
interface StyleResult {
  style: ManifestStyle;
  plan: { wallMs: number; cpuMs: number; maxRssMiB: number; requests: number };
  /** The floor process (floor.ts): start, js-yaml values, every list page, JSON.parse. */
  floor: { wallMs: number; cpuMs: number; requests: number };
  /** The plan process's CPU over the floor's, run by run (median). */
  cpuRatio: number;
  wallRatio: number;
  /** Each run's plan over the floor run right after it: CPU and wall. */
  runRatios: { cpu: number; wall: number }[];
  /** Median CPU of the main thread and of the helper threads, of the plan and the floor processes (Linux only). */
  threads?: { plan: ThreadSplit; floor: ThreadSplit };
  validate: { wallMs: number; cpuMs: number };
  /** The floor of validate (floor.ts without a URL: start and js-yaml values), run in turns with it. */
  validateFloor: { wallMs: number; cpuMs: number };
  /** validate's wall over its floor's, run by run (median). */
  validateWallRatio: number;
  /** Per phase: CPU of all threads, of the main thread alone (where the system tells it), wall. */
  phases: Record<string, { cpu: number; main?: number; wall: number }>;
}

interface ScaleResult {
  scale: number;
  resources: number;
  files: number;
  styles: StyleResult[];
  refresh: { wallMs: number; requests: number };
  cursor: { wallMs: number; requests: number };
  /** CPU of building the live model from listings already read, alone and cold (live-build.ts); main thread's share where told. */
  liveBuild: { cpu: number; main?: number };
}

/** Runs `f` for each style in turn, `rounds` times: the styles meet the same load of the machine. */
async function inTurns<T>(
  rounds: number,
  styles: readonly ManifestStyle[],
  f: (style: ManifestStyle, round: number) => Promise<T>,
): Promise<Map<ManifestStyle, T[]>> {
  const out = new Map<ManifestStyle, T[]>(styles.map((s) => [s, []]));
  for (let round = 0; round < rounds; round++) for (const style of styles) out.get(style)!.push(await f(style, round));
  return out;
}

async function measure(scale: number, repeats: number): Promise<ScaleResult> {
  const orgs = new Map(MANIFEST_STYLES.map((style) => [style, buildBigOrg(scale, style)]));
  const org = orgs.get('flow')!;
  const root = await mkdtemp(join(tmpdir(), 'ps-bench-org-'));
  const dirs = new Map(MANIFEST_STYLES.map((style) => [style, join(root, style)]));
  let emulator: Emulator | undefined;
  try {
    for (const style of MANIFEST_STYLES) {
      await mkdir(dirs.get(style)!);
      for (const f of orgs.get(style)!.files) await writeFile(join(dirs.get(style)!, f.file), f.text);
    }
    const bytes = (style: ManifestStyle) => orgs.get(style)!.files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
    emulator = await startEmulator({ port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    const orgUid = emulator.seed(org.seed).orgUids[ORG]!;
    emulator.setFaults({ latencyMs: LATENCY_MS });
    // The bundle's code cache (src/io/code-cache.ts) in a directory of the bench's own, empty at the
    // start: the unmeasured first round writes it, and the measured runs compile with it, as a
    // user's runs after their first.
    const codeCache = join(root, 'code-cache');
    const env = { PLATFORM_TOKEN: TOKEN, PLATFORM_API_URL: emulator.url, PLATFORM_SYNC_CODE_CACHE_DIR: codeCache };
    process.stdout.write(
      `\norg: ${org.resources} resources in ${org.files.length} files (flow style ${(bytes('flow') / 1e6).toFixed(2)} MB, block style ${(bytes('block') / 1e6).toFixed(2)} MB), ${LATENCY_MS} ms per request\n`,
    );

    // Baseline 2: one kind after another, one page after another.
    const cursorRead = async (): Promise<{ wallMs: number; requests: number }> => {
      const c = createClient({ baseUrl: emulator!.url, token: TOKEN, listStrategy: 'cursor', pageSize: 200 });
      const started = performance.now();
      let items = 0;
      for (const kind of LISTED_KINDS) items += (await c.list(kind, orgListQuery(kind, orgUid))).items.length;
      const read = { wallMs: performance.now() - started, requests: c.requestCount };
      await c.close();
      if (items !== org.resources - 1)
        throw new Error(`the cursor reader read ${items} resources, expected ${org.resources - 1}`);
      return read;
    };

    // The product, as users run it. The first round is a warm-up (the emulator's first listings
    // build its indexes), then the median of `repeats`. The machine is shared and its speed
    // drifts within a minute, so everything is measured in turns rather than one after the
    // other: each plan run is followed by a floor run of the same manifests, the two styles
    // take turns, and baseline 2 runs after each round.
    const plans = new Map<ManifestStyle, ProcessRun[]>(MANIFEST_STYLES.map((s) => [s, []]));
    const floors = new Map<ManifestStyle, ProcessRun[]>(MANIFEST_STYLES.map((s) => [s, []]));
    const cursors: { wallMs: number; requests: number }[] = [];
    let requests = 0;
    let floorRequests = 0;
    for (let i = 0; i <= repeats; i++) {
      for (const style of MANIFEST_STYLES) {
        const dir = dirs.get(style)!;
        emulator.clearRequestLog();
        collectGarbage();
        const r = await runProcess([BIN, 'plan', '--detailed-exitcode', dir], env);
        if (r.exitCode !== 0)
          throw new Error(
            `plan (${style}) exited ${r.exitCode} (expected 0, no changes):\n${r.stderr.slice(0, 2000)}${r.stdout.slice(0, 2000)}`,
          );
        requests = emulator.requestLog.length;
        emulator.clearRequestLog();
        collectGarbage();
        const f = await runProcess([FLOOR, dir, emulator.url], env);
        if (f.exitCode !== 0) throw new Error(`the floor process failed:\n${f.stderr.slice(0, 2000)}`);
        const read = JSON.parse(f.stdout) as { items: number };
        if (read.items < org.resources - 1)
          throw new Error(`the floor read ${read.items} items, expected at least ${org.resources - 1}`);
        floorRequests = emulator.requestLog.length;
        if (i === 0) continue;
        plans.get(style)!.push(r);
        floors.get(style)!.push(f);
      }
      if (i === 0) {
        const cached = await readdir(codeCache).catch(() => []);
        process.stdout.write(
          cached.length > 0
            ? `the product's runs are warm: they compile with the code cache the unmeasured first run wrote (${cached.length} files)\n`
            : "the product's runs are cold: the first run wrote no code cache\n",
        );
        continue;
      }
      collectGarbage();
      cursors.push(await cursorRead());
    }
    // validate and its floor in turns, each validate followed by a floor process of the same files.
    const validates = await inTurns(repeats, MANIFEST_STYLES, async (style) => {
      const r = await runProcess([BIN, 'validate', dirs.get(style)!], env);
      if (r.exitCode !== 0) throw new Error(`validate (${style}) exited ${r.exitCode}:\n${r.stderr.slice(0, 2000)}`);
      const f = await runProcess([FLOOR, dirs.get(style)!], env);
      if (f.exitCode !== 0) throw new Error(`the validate floor (${style}) failed:\n${f.stderr.slice(0, 2000)}`);
      if ((JSON.parse(f.stdout) as { org?: string }).org !== ORG)
        throw new Error(`the validate floor (${style}) did not find the org: ${f.stdout.slice(0, 200)}`);
      return { validate: r, floor: f };
    });
    type PhaseRun = { phases: Record<string, number>; mains: Record<string, number>; walls: Record<string, number> };
    const phaseRuns = await inTurns(Math.min(repeats, 3), MANIFEST_STYLES, async (style) => {
      const r = await runProcess([PHASES, dirs.get(style)!, emulator!.url], env);
      if (r.exitCode !== 0) throw new Error(`plan-phases (${style}) failed:\n${r.stderr.slice(0, 2000)}`);
      return JSON.parse(r.stdout) as PhaseRun;
    });
    const buildRuns: { cpuMs: number; mainThreadCpuMs?: number }[] = [];
    for (let i = 0; i < Math.min(repeats, 3); i++) {
      const b = await runProcess([LIVE_BUILD, emulator.url, ORG], env);
      if (b.exitCode !== 0) throw new Error(`live-build failed:\n${b.stderr.slice(0, 2000)}`);
      const built = JSON.parse(b.stdout) as { cpuMs: number; mainThreadCpuMs?: number; resources: number };
      if (built.resources !== org.resources)
        throw new Error(`the live build built ${built.resources} resources, expected ${org.resources}`);
      buildRuns.push(built);
    }
    /** The median of what every run told (undefined when one did not). */
    const medianOf = (values: (number | undefined)[]) =>
      values.every((v) => v !== undefined) ? median(values as number[]) : undefined;
    const phasesOf = (runs: PhaseRun[]) =>
      Object.fromEntries(
        Object.keys(runs[0]!.phases).map((k) => {
          const main = medianOf(runs.map((p) => p.mains[k]));
          return [
            k,
            {
              cpu: median(runs.map((p) => p.phases[k]!)),
              ...(main !== undefined ? { main } : {}),
              wall: median(runs.map((p) => p.walls[k]!)),
            },
          ];
        }),
      );
    const buildMain = medianOf(buildRuns.map((b) => b.mainThreadCpuMs));

    // Baseline 1: the uids come from an uncounted read.
    const reader = createClient({ baseUrl: emulator.url, token: TOKEN });
    const state = await readLiveState(reader, { org: { name: ORG } });
    await reader.close();
    const b = createClient({ baseUrl: emulator.url, token: TOKEN, connections: 10 });
    const limit = pLimit(10);
    const started = performance.now();
    await Promise.all(state.resources.map((r) => limit(() => b.get(r.kind, r.uid))));
    const refresh = { wallMs: performance.now() - started, requests: b.requestCount };
    await b.close();

    const styles = MANIFEST_STYLES.map((style): StyleResult => {
      const p = plans.get(style)!;
      const f = floors.get(style)!;
      const v = validates.get(style)!;
      const planThreads = threadSplit(p);
      const floorThreads = threadSplit(f);
      return {
        style,
        plan: {
          wallMs: median(p.map((x) => x.wallMs)),
          cpuMs: median(p.map((x) => x.cpuMs)),
          maxRssMiB: Math.max(...p.map((x) => x.maxRssKiB)) / 1024,
          requests,
        },
        floor: {
          wallMs: median(f.map((x) => x.wallMs)),
          cpuMs: median(f.map((x) => x.cpuMs)),
          requests: floorRequests,
        },
        cpuRatio: median(p.map((x, i) => x.cpuMs / f[i]!.cpuMs)),
        wallRatio: median(p.map((x, i) => x.wallMs / f[i]!.wallMs)),
        runRatios: p.map((x, i) => ({ cpu: x.cpuMs / f[i]!.cpuMs, wall: x.wallMs / f[i]!.wallMs })),
        ...(planThreads && floorThreads ? { threads: { plan: planThreads, floor: floorThreads } } : {}),
        validate: {
          wallMs: median(v.map((x) => x.validate.wallMs)),
          cpuMs: median(v.map((x) => x.validate.cpuMs)),
        },
        validateFloor: { wallMs: median(v.map((x) => x.floor.wallMs)), cpuMs: median(v.map((x) => x.floor.cpuMs)) },
        validateWallRatio: median(v.map((x) => x.validate.wallMs / x.floor.wallMs)),
        phases: phasesOf(phaseRuns.get(style)!),
      };
    });
    return {
      scale,
      resources: org.resources,
      files: org.files.length,
      styles,
      refresh,
      cursor: { wallMs: median(cursors.map((c) => c.wallMs)), requests: cursors[0]!.requests },
      liveBuild: {
        cpu: median(buildRuns.map((b) => b.cpuMs)),
        ...(buildMain !== undefined ? { main: buildMain } : {}),
      },
    };
  } finally {
    await emulator?.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Issue 61's targets: the plan process over the floor, on both styles. */
const CPU_TARGET = 1.5;
const WALL_TARGET = 1.3;

function report(r: ScaleResult, base: ScaleResult | undefined): void {
  const out = process.stdout;
  const check = (ok: boolean) => (ok ? 'met' : 'MISSED');
  const row = (label: string, wall: number, cpu: string, requests: string, rss: string) =>
    `  ${label.padEnd(64)} ${`${wall.toFixed(0)} ms`.padStart(9)} ${cpu.padStart(10)} ${requests.padStart(9)} ${rss.padStart(10)}\n`;
  out.write(
    `  ${''.padEnd(64)} ${'wall'.padStart(9)} ${'CPU'.padStart(10)} ${'requests'.padStart(9)} ${'peak RSS'.padStart(10)}\n`,
  );
  for (const s of r.styles) {
    out.write(
      row(
        `[${s.style}] platform-sync plan --detailed-exitcode (process)`,
        s.plan.wallMs,
        `${s.plan.cpuMs.toFixed(0)} ms`,
        String(s.plan.requests),
        `${s.plan.maxRssMiB.toFixed(0)} MiB`,
      ),
    );
    out.write(
      row(
        `[${s.style}] floor: start, js-yaml values, every list page (process)`,
        s.floor.wallMs,
        `${s.floor.cpuMs.toFixed(0)} ms`,
        String(s.floor.requests),
        '',
      ),
    );
    out.write(
      row(
        `[${s.style}] platform-sync validate (process, offline)`,
        s.validate.wallMs,
        `${s.validate.cpuMs.toFixed(0)} ms`,
        '0',
        '',
      ),
    );
    out.write(
      row(
        `[${s.style}] validate's floor: start, js-yaml values (process)`,
        s.validateFloor.wallMs,
        `${s.validateFloor.cpuMs.toFixed(0)} ms`,
        '0',
        '',
      ),
    );
  }
  out.write(row('baseline 1: GET per resource, 10 at a time', r.refresh.wallMs, '', String(r.refresh.requests), ''));
  out.write(
    row(
      'baseline 2: sequential cursor read, page_size 200 (median)',
      r.cursor.wallMs,
      '',
      String(r.cursor.requests),
      '',
    ),
  );
  for (const s of r.styles) {
    // Interleaved with the floor, run by run (medians of the per-run ratios).
    out.write(
      `  [${s.style}] plan CPU ${s.cpuRatio.toFixed(2)}× the floor's (target ≤ ${CPU_TARGET}×: ${check(s.cpuRatio <= CPU_TARGET)}), ` +
        `wall ${s.wallRatio.toFixed(2)}× (target ≤ ${WALL_TARGET}×: ${check(s.wallRatio <= WALL_TARGET)}); run by run: ${s.runRatios.map((x) => `${x.cpu.toFixed(2)}/${x.wall.toFixed(2)}`).join(', ')} (CPU/wall)\n`,
    );
    if (s.threads) {
      const { plan, floor } = s.threads;
      out.write(
        `  [${s.style}] CPU by thread (medians): plan main thread ${plan.main.toFixed(0)} ms, helper threads ${plan.helpers.toFixed(0)} ms; ` +
          `floor ${floor.main.toFixed(0)} ms and ${floor.helpers.toFixed(0)} ms (helpers: V8's optimizing compiler and parallel GC, libuv)\n`,
      );
    }
  }
  const flow = r.styles[0]!;
  const vs1 = r.refresh.wallMs / flow.plan.wallMs;
  const vs2 = r.cursor.wallMs / flow.plan.wallMs;
  if (base === undefined) {
    out.write(
      `  [flow] plan: ${flow.plan.wallMs.toFixed(0)} ms (target ≤ 600 ms: ${check(flow.plan.wallMs <= 600)}); `,
    );
    out.write(
      `${vs1.toFixed(1)}× baseline 1 (target ≥ 40×: ${check(vs1 >= 40)}); ${vs2.toFixed(2)}× baseline 2 (target ≥ 2.4×: ${check(vs2 >= 2.4)})\n`,
    );
    for (const s of r.styles)
      out.write(
        `  [${s.style}] validate: ${s.validate.wallMs.toFixed(0)} ms (target ≤ 300 ms: ${check(s.validate.wallMs <= 300)}); ` +
          `${s.validateWallRatio.toFixed(2)}× the wall of its floor (${s.validateFloor.wallMs.toFixed(0)} ms, in turns)\n`,
      );
  } else {
    const growth = flow.plan.wallMs / base.styles[0]!.plan.wallMs;
    out.write(
      `  [flow] plan: ${vs1.toFixed(1)}× baseline 1, ${vs2.toFixed(2)}× baseline 2; ${growth.toFixed(1)}× the ${base.resources}-resource time for ${(r.resources / base.resources).toFixed(0)}× the resources (target ≤ 10×: ${check(growth <= 10)})\n`,
    );
    for (const s of r.styles)
      out.write(
        `  [${s.style}] peak RSS ${s.plan.maxRssMiB.toFixed(0)} MiB (target ≤ 400 MiB: ${check(s.plan.maxRssMiB <= 400)})\n`,
      );
  }
  const mainOf = (main: number | undefined) =>
    main !== undefined ? ` (main thread ${`${main.toFixed(0)} ms`.padStart(7)})` : '';
  for (const s of r.styles) {
    const total = Object.values(s.phases).reduce((a, b) => a + b.cpu, 0);
    const totalWall = Object.values(s.phases).reduce((a, b) => a + b.wall, 0);
    out.write(
      `  [${s.style}] a plan process by phase (median of up to 3; modules from dist/src, where the bin loads its bundle): CPU ${total.toFixed(0)} ms (all threads), wall ${totalWall.toFixed(0)} ms\n`,
    );
    for (const [name, { cpu, main, wall }] of Object.entries(s.phases)) {
      out.write(
        `    ${name.padEnd(24)} CPU ${`${cpu.toFixed(0)} ms`.padStart(7)} ${`${((cpu / total) * 100).toFixed(0)}%`.padStart(4)}${mainOf(main)}   wall ${`${wall.toFixed(0)} ms`.padStart(7)}\n`,
      );
    }
  }
  if (base === undefined) {
    const build = r.liveBuild.cpu;
    for (const s of r.styles) {
      const resolve = s.phases.resolve?.cpu ?? NaN;
      out.write(
        `  [${s.style}] resolve ${resolve.toFixed(0)} ms CPU${mainOf(s.phases.resolve?.main)} (target ≤ 50 ms: ${check(resolve <= 50)})\n`,
      );
    }
    out.write(
      `  live build ${build.toFixed(0)} ms CPU${mainOf(r.liveBuild.main)}, cold in a fresh process (target ≤ 50 ms: ${check(build <= 50)})\n`,
    );
  }
}

export async function run(): Promise<void> {
  const scales = (process.env.BENCH_SCALES ?? '1,10').split(',').map(Number);
  let base: ScaleResult | undefined;
  for (const scale of scales) {
    const r = await measure(scale, scale === 1 ? 5 : 3);
    report(r, base);
    base ??= r;
  }
}
