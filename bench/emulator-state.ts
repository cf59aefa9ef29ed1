/**
 * The emulator's state file under load (DESIGN.md §6):
 * - durability: an emulator process is killed with SIGKILL at a random moment while clients
 *   write, 20 times; every create it had acknowledged must be there after a restart (target 0
 *   missing), and no temporary file may be left;
 * - cost: 50 concurrent clients (loopback, a mix of creates, updates and page reads) against
 *   100k resources with and without `--state`, measured in the same run: write throughput with
 *   the state file ≥ 50% of without, read p95 ≤ 2× without.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { startEmulator, type Emulator, type SeedDocument } from '../src/emulator/index.js';

const TOKEN = 'bench-state-token';
const BIN = resolve(import.meta.dirname, '..', '..', 'bin', 'platform-sync');
const agent = new Agent({ connections: 64 });

async function call(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await request(`${url}${path}`, {
    method: method as 'GET',
    dispatcher: agent,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Starts `platform-sync emulator --state` as a child process and waits for its URL. */
function startChild(state: string): Promise<{ child: ChildProcess; url: string; exited: Promise<void> }> {
  const child = spawn(process.execPath, [BIN, 'emulator', '--port', '0', '--token', TOKEN, '--state', state], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.on('exit', () => done()));
  let out = '';
  return new Promise((ok, fail) => {
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) ok({ child, url: m[1]!, exited });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => fail(new Error(`emulator exited before listening:\n${out}`)));
  });
}

async function durabilityUnderKill(rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-kill-'));
  const state = join(dir, 'state.json');
  let acknowledged = 0;
  let missing = 0;
  let org = '';
  try {
    for (let round = 0; round < rounds; round++) {
      const { child, url, exited } = await startChild(state);
      if (org === '') org = ((await call(url, 'POST', '/iam/v2/groups', { name: 'durable' })).json.uid as string) ?? '';
      const acked: string[] = [];
      let stop = false;
      const writer = async (w: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          try {
            const r = await call(url, 'POST', `/registry/v2/repos/${org}`, { name: `r${round}-${w}-${i}` });
            if (r.status === 200) acked.push(r.json.uid as string);
          } catch {
            return; // the process is gone
          }
        }
      };
      const writers = Array.from({ length: 16 }, (_, w) => writer(w));
      await new Promise((r) => setTimeout(r, 100 + Math.floor(Math.random() * 400)));
      child.kill('SIGKILL');
      stop = true;
      await exited;
      await Promise.all(writers);
      const again = await startChild(state);
      const seen = new Set<string>();
      let token: string | undefined;
      do {
        const page = await call(
          again.url,
          'GET',
          `/registry/v2/repos?uidp.children_of=${org}&page_size=200${token ? `&page_token=${encodeURIComponent(token)}` : ''}`,
        );
        for (const r of page.json.repos as { uid: string }[]) seen.add(r.uid);
        token = (page.json.nextPageToken as string) || undefined;
      } while (token);
      again.child.kill('SIGKILL');
      await again.exited;
      acknowledged += acked.length;
      missing += acked.filter((uid) => !seen.has(uid)).length;
    }
    const leftovers = readdirSync(dir).filter((f) => f.endsWith('.tmp'));
    process.stdout.write(
      `kill -9 while 16 clients write, ${rounds} times: ${acknowledged} creates acknowledged, ${missing} missing after restart (target 0); ` +
        `temporary files left: ${leftovers.length}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Load {
  writes: number;
  reads: number;
  readP95: number;
  writeP95: number;
}

function seedDoc(size: number): SeedDocument {
  return {
    orgs: [
      {
        name: 'big',
        repos: Array.from({ length: size }, (_, i) => ({
          name: `repo-${String(i).padStart(6, '0')}`,
          description: `repo ${i}`,
        })),
      },
    ],
  };
}

/** 50 clients for `ms`: each loops create / update / read a page, in turn. */
async function mixedLoad(emu: Emulator, ms: number): Promise<Load> {
  const org = ((await call(emu.url, 'GET', '/iam/v2/groups?name=big')).json.groups as { uid: string }[])[0]!.uid;
  const some = (
    (await call(emu.url, 'GET', `/registry/v2/repos?uidp.children_of=${org}&page_size=200`)).json.repos as {
      uid: string;
    }[]
  ).map((r) => r.uid);
  const readTimes: number[] = [];
  const writeTimes: number[] = [];
  const deadline = performance.now() + ms;
  const client = async (c: number): Promise<void> => {
    for (let i = 0; performance.now() < deadline; i++) {
      const t0 = performance.now();
      if (i % 3 === 0) {
        await call(emu.url, 'POST', `/registry/v2/repos/${org}`, { name: `load-${c}-${i}` });
        writeTimes.push(performance.now() - t0);
      } else if (i % 3 === 1) {
        await call(emu.url, 'PATCH', `/registry/v2/repos/${some[(c * 7 + i) % some.length]}?updateMask=description`, {
          description: `edit ${c} ${i}`,
        });
        writeTimes.push(performance.now() - t0);
      } else {
        await call(
          emu.url,
          'GET',
          `/registry/v2/repos?uidp.children_of=${org}&order_by=name&page_size=200&skip=${(c * 997 + i * 31) % 90_000}`,
        );
        readTimes.push(performance.now() - t0);
      }
    }
  };
  await Promise.all(Array.from({ length: 50 }, (_, c) => client(c)));
  const p95 = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? 0;
  return { writes: writeTimes.length, reads: readTimes.length, readP95: p95(readTimes), writeP95: p95(writeTimes) };
}

async function costAtScale(size: number, ms: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-state-'));
  try {
    const measure = async (withState: boolean): Promise<Load> => {
      const emu = await startEmulator({
        tokens: [{ token: TOKEN, role: 'owner' }],
        seed: seedDoc(size),
        ...(withState ? { statePath: join(dir, 'state.json') } : {}),
      });
      try {
        await mixedLoad(emu, 1_000); // warm-up: JIT, sorted views, connections
        return await mixedLoad(emu, ms);
      } finally {
        await emu.close();
      }
    };
    const without = await measure(false);
    const withState = await measure(true);
    const row = (name: string, l: Load) =>
      `${name}: ${l.writes} writes (${((l.writes * 1000) / ms).toFixed(0)}/s, p95 ${l.writeP95.toFixed(1)} ms), ${l.reads} reads (p95 ${l.readP95.toFixed(1)} ms)`;
    process.stdout.write(
      `${(size / 1000).toFixed(0)}k resources, 50 clients, ${ms / 1000} s of creates/updates/page reads:\n`,
    );
    process.stdout.write(`  ${row('without --state', without)}\n  ${row('with --state   ', withState)}\n`);
    process.stdout.write(
      `  write throughput with/without: ${(withState.writes / without.writes).toFixed(2)} (target ≥ 0.5); ` +
        `read p95 with/without: ${(withState.readP95 / without.readP95).toFixed(2)} (target ≤ 2)\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  await durabilityUnderKill(20);
  await costAtScale(100_000, 8_000);
  await agent.close();
}
