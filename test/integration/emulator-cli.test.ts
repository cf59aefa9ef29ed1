/**
 * `platform-sync emulator` as a user runs it: the built bin, a real port, a seed, a state file,
 * SIGTERM and SIGKILL. Needs `npm run build` (npm test builds first). What needs no process of its
 * own — token sources, fault flags, refusals, a second emulator on the state a process holds — runs
 * the command in this process (cli-harness startCli; issue 63: a cold process costs seconds here).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDoc } from '../support/docs.js';
import { startCli as startInProcess, type CliSession } from '../e2e/cli-harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/platform-sync');
const dir = mkdtempSync(join(tmpdir(), 'emulator-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exit: Promise<number | null>;
}

/** Starts the emulator command and waits for its "listening on" line. */
function startCli(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [bin, 'emulator', '--port', '0', ...args], {
    cwd: root,
    env: { ...process.env, PLATFORM_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1]!, output: () => out, exit });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exit.then((code) => reject(new Error(`emulator exited (${code}) before listening:\n${out}`)));
  });
}

/** Starts the emulator command in this process and waits for its "listening on" line. */
async function startHere(args: string[], env: Record<string, string> = {}): Promise<{ run: CliSession; url: string }> {
  const run = startInProcess(['emulator', '--port', '0', ...args], { env });
  const url = (await run.waitFor(/listening on (http:\/\/\S+)/))[1]!;
  return { run, url };
}

const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });

describe('platform-sync emulator', () => {
  beforeAll(() => {
    // Spawns the built CLI: `npm test` builds first. Missing is a failure, never a silent skip.
    if (!existsSync(join(root, 'dist/src/cli/main.js')))
      throw new Error('dist/src/cli/main.js is missing: run `npm run build` before this test');
  });

  it('serves a seed, never prints the token, and writes --state on SIGTERM', async () => {
    const state = join(dir, 'state.json');
    const run = await startCli([
      '--token',
      'cli-secret-token',
      '--viewer-token',
      'cli-viewer',
      '--seed',
      'examples/emulator-seed.yaml',
      '--state',
      state,
    ]);
    expect(run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const groups = (await (await fetch(`${run.url}/iam/v2/groups?order_by=name`, auth('cli-secret-token'))).json()) as {
      groups: { uid: string; name: string }[];
    };
    expect(groups.groups.map((g: { name: string }) => g.name)).toEqual(['acme', 'engineering', 'platform']);
    const created = await fetch(`${run.url}/iam/v2/groups/${groups.groups[0].uid}`, {
      method: 'POST',
      headers: { authorization: 'Bearer cli-secret-token', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'from-cli' }),
    });
    expect(created.status).toBe(200);
    expect(
      (await fetch(`${run.url}/iam/v2/groups/${groups.groups[0].uid}`, { method: 'DELETE', ...auth('cli-viewer') }))
        .status,
    ).toBe(403);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    expect(run.output()).not.toContain('cli-secret-token');
    expect(run.output()).not.toContain('cli-viewer');
    const saved = JSON.parse(readFileSync(state, 'utf8'));
    expect(saved.resources.map((r: { data: { name?: string } }) => r.data.name)).toContain('from-cli');
  });

  it('keeps every acknowledged write when killed with SIGKILL, and a second emulator on the same state is refused while it runs', async () => {
    const state = join(dir, 'killed.json');
    const run = await startCli(['--token', 'kill-token', '--state', state]);
    const refused = startInProcess(['emulator', '--port', '0', '--token', 'kill-token', '--state', state]);
    expect((await refused.done).code).toBe(1);
    expect(refused.output()).toContain(
      `emulator state file ${state} is in use by an emulator server (platform-sync emulator --state ${state}) (process ${run.child.pid} on`,
    );
    const root = (await (
      await fetch(`${run.url}/iam/v2/groups`, {
        method: 'POST',
        ...auth('kill-token'),
        body: JSON.stringify({ name: 'durable' }),
      })
    ).json()) as { uid: string };
    // 40 creates, 8 at a time: each answered 200 only once its journal line is fsynced.
    const acknowledged: string[] = [];
    for (let batch = 0; batch < 5; batch++) {
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          fetch(`${run.url}/iam/v2/identities/${root.uid}`, {
            method: 'POST',
            ...auth('kill-token'),
            body: JSON.stringify({ name: `id-${batch}-${i}` }),
          }),
        ),
      );
      for (const r of replies) if (r.status === 200) acknowledged.push(((await r.json()) as { uid: string }).uid);
    }
    expect(acknowledged).toHaveLength(40);
    run.child.kill('SIGKILL');
    await run.exit;
    // The dead holder's lock is taken over; every acknowledged write is there; no temporary file is left.
    const again = await startHere(['--token', 'kill-token', '--state', state]);
    const listed = (await (await fetch(`${again.url}/iam/v2/identities?page_size=200`, auth('kill-token'))).json()) as {
      identities: { uid: string }[];
    };
    expect(listed.identities.map((i) => i.uid).sort()).toEqual([...acknowledged].sort());
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    again.run.signal('SIGTERM');
    expect((await again.run.done).code).toBe(0);
  });

  it('takes the owner token from PLATFORM_TOKEN and fault flags from the command line', async () => {
    const { run, url } = await startHere(['--error-rate', '1', '--retry-after', '2', '--fault-seed', '3'], {
      PLATFORM_TOKEN: 'env-token',
    });
    const r = await fetch(`${url}/iam/v2/groups`, auth('env-token'));
    expect(r.status).toBe(503);
    expect(r.headers.get('retry-after')).toBe('2');
    run.signal('SIGINT');
    expect((await run.done).code).toBe(0);
    expect(run.output()).not.toContain('env-token');
  });

  it('takes several tokens, one scoped, from --tokens FILE without any token on the command line', async () => {
    const acme = '00000000000000000000000000000000000ac3e1'; // pinned in examples/emulator-seed.yaml
    const tokens = join(dir, 'tokens.yaml');
    writeFileSync(
      tokens,
      `- {token: file-owner, role: owner}\n- {token: file-viewer, role: viewer}\n- {token: file-scoped, role: owner, scope: "${acme}"}\n`,
    );
    const { run, url } = await startHere([
      '--tokens',
      tokens,
      '--seed',
      'examples/emulator-seed.yaml',
      '--internal-error-rate',
      '0',
      '--short-page-rate',
      '1',
    ]);
    const groups = async (token: string) =>
      (await (await fetch(`${url}/iam/v2/groups?page_size=200`, auth(token))).json()) as { groups: unknown[] };
    expect((await groups('file-owner')).groups).toHaveLength(3);
    const scoped = await fetch(`${url}/iam/v2/groups`, {
      method: 'POST',
      headers: { authorization: 'Bearer file-scoped', 'content-type': 'application/json' },
      body: '{"name":"another-org"}',
    });
    expect(scoped.status).toBe(403); // a scoped token cannot create a root org
    const viewer = await fetch(`${url}/iam/v2/groups/${acme}`, { method: 'DELETE', ...auth('file-viewer') });
    expect(viewer.status).toBe(403);
    // --short-page-rate 1: a first page of 2 (3 groups) holds 1 item and a token.
    const short = (await (await fetch(`${url}/iam/v2/groups?page_size=2`, auth('file-owner'))).json()) as {
      groups: unknown[];
      nextPageToken?: string;
    };
    expect(short.groups).toHaveLength(1);
    expect(short.nextPageToken).toBeTruthy();
    run.signal('SIGTERM');
    expect((await run.done).code).toBe(0);
    expect(run.output()).not.toMatch(/file-(owner|viewer|scoped)/);
  });

  it("runs the README's tokens.yaml as written: the scoped token sees acme/engineering and what is beneath it", async () => {
    const readme = readDoc('emulator.md');
    const block = /```yaml\n(# tokens\.yaml — for `platform-sync emulator ([^`]+)`\n[\s\S]*?)```/.exec(readme);
    expect(block, 'the tokens.yaml block of the README').not.toBeNull();
    const tokens = join(dir, 'readme-tokens.yaml');
    writeFileSync(tokens, block![1]!);
    const args = block![2]!.split(' ').map((a) => (a === 'tokens.yaml' ? tokens : a));
    const { run, url } = await startHere(args);
    try {
      const groups = (await (await fetch(`${url}/iam/v2/groups`, auth('eng-bot'))).json()) as {
        groups: { name: string }[];
      };
      expect(groups.groups.map((g) => g.name).sort()).toEqual(['engineering', 'platform']);
      const all = (await (await fetch(`${url}/iam/v2/groups`, auth('dev-viewer'))).json()) as { groups: unknown[] };
      expect(all.groups).toHaveLength(3);
    } finally {
      run.signal('SIGTERM');
      await run.done;
    }
  });

  it('refuses a token given both in --tokens and PLATFORM_TOKEN, without printing it', async () => {
    const tokens = join(dir, 'dup-tokens.yaml');
    writeFileSync(tokens, '- {token: dup-secret, role: viewer}\n');
    const run = startInProcess(['emulator', '--port', '0', '--tokens', tokens], {
      env: { PLATFORM_TOKEN: 'dup-secret' },
    });
    expect((await run.done).code).toBe(1);
    const out = run.output();
    expect(out).toContain('PLATFORM_TOKEN repeats a token already configured (entry [0] of --tokens');
    expect(out).not.toContain('dup-secret');
  });

  it('refuses bad flag values with a clear message', async () => {
    const run = startInProcess(['emulator', '--error-rate', '1.5']);
    expect((await run.done).code).not.toBe(0);
    const err = run.output();
    expect(err).toContain('--error-rate');
    expect(err).toContain('between 0 and 1');
  });
});
