/**
 * The state file's journal and lock (DESIGN.md §6): a journal cut anywhere in its last record
 * loads the state before that record; a torn tail is cut off so later writes follow whole
 * records; a lock held by a live process refuses (or makes --emulator wait), a dead one's is
 * taken over.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { openDurableState, replayJournal } from '../../src/emulator/persist.js';
import { loadState } from '../../src/emulator/state-snapshot.js';
import { Store } from '../../src/emulator/store.js';
import { ACME, runCli } from '../e2e/cli-harness.js';
import { get, OWNER, post, startTestEmulator } from './emulator-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'emulator-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const names = async (emu: Awaited<ReturnType<typeof startTestEmulator>>) =>
  ((await get(emu, '/iam/v2/identities?order_by=name')).body.identities as { name: string }[]).map((i) => i.name);

describe('the journal', () => {
  it('acknowledges no change before it is on disk, not even one made while a compaction is written', async () => {
    const state = join(dir, 'compacting.json');
    const store = new Store();
    const { state: durable } = await openDurableState(state, store);
    /**
     * What a crash right now would leave: the snapshot and the journal as they are on disk. The
     * journal is read first: a compaction renames its new snapshot into place before its new
     * journal, so a journal read before the snapshot is never newer than it.
     */
    const onDisk = (): Set<string> => {
      const journal = readFileSync(`${state}.journal`);
      const copy = new Store();
      const generation = loadState(state, copy) ?? 0;
      replayJournal(journal, generation, copy, state);
      return new Set(copy.query('group', {}, 'uid').map((r) => r.uid));
    };
    const lost: string[] = [];
    const acknowledged: Promise<void>[] = [];
    let n = 0;
    // Changes keep arriving, one per turn of the event loop, while compactions come and go.
    for (let round = 0; round < 20; round++) {
      const compaction = durable.compact();
      for (let i = 0; i < 10; i++) {
        const uid = `g${String(n++).padStart(39, '0')}`;
        store.insert({ kind: 'group', uid, parent: null, seq: n, createMs: 0, updateMs: 0, data: { name: uid } });
        acknowledged.push(durable.commit().then(() => void (onDisk().has(uid) || lost.push(uid))));
        await new Promise((resolve) => setImmediate(resolve));
      }
      await compaction;
    }
    await Promise.all(acknowledged);
    await durable.close();
    expect(lost).toEqual([]);
    expect(onDisk().size).toBe(n);
  });

  it('cut at every byte offset of its last record, loads the state before that record; whole, the state after it', async () => {
    const state = join(dir, 'cut.json');
    const emu = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'acme' }] } });
    const org = (await get(emu, '/iam/v2/groups')).body.groups[0].uid as string;
    await post(emu, `/iam/v2/identities/${org}`, { name: 'first' });
    await post(emu, `/iam/v2/identities/${org}`, { name: 'second' });
    const before = readFileSync(`${state}.journal`);
    await post(emu, `/iam/v2/identities/${org}`, { name: 'last' });
    // Answered, so on disk: copy the files as a crash right now would leave them.
    const snapshot = readFileSync(state);
    const journal = readFileSync(`${state}.journal`);
    expect(journal.subarray(0, before.length).equals(before)).toBe(true);
    await emu.close();

    const lastRecord = journal.length - before.length;
    expect(lastRecord).toBeGreaterThan(50);
    // Every cut decoded as a start decodes it (the snapshot loaded, the journal replayed): the
    // decoder is what decides, so the cuts need no emulator each (issue 47).
    const snapshotPath = join(dir, 'cut-snapshot.json');
    writeFileSync(snapshotPath, snapshot);
    const decoded = (cut: number): string[] => {
      const store = new Store();
      replayJournal(journal.subarray(0, cut), loadState(snapshotPath, store) ?? 0, store, `${snapshotPath}.journal`);
      return store
        .query('identity', {}, 'uid')
        .map((r) => String(r.data.name))
        .sort();
    };
    for (let cut = before.length; cut <= journal.length; cut++) {
      expect(decoded(cut), `cut at ${cut}`).toEqual(
        cut === journal.length ? ['first', 'last', 'second'] : ['first', 'second'],
      );
    }
    // And a real start agrees at both ends and one cut mid-record.
    const crash = join(dir, 'crash');
    mkdirSync(crash);
    for (const cut of [before.length, before.length + Math.floor(lastRecord / 2), journal.length]) {
      const copy = join(crash, `at-${cut}.json`);
      writeFileSync(copy, snapshot);
      writeFileSync(`${copy}.journal`, journal.subarray(0, cut));
      const again = await startTestEmulator({ statePath: copy });
      try {
        expect(await names(again), `cut at ${cut}`).toEqual(decoded(cut));
      } finally {
        await again.close();
      }
    }
  });

  it('cuts a torn tail at start, so writes after a crash follow whole records and survive the next start', async () => {
    const state = join(dir, 'torn.json');
    const emu = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'acme' }] } });
    const org = (await get(emu, '/iam/v2/groups')).body.groups[0].uid as string;
    await post(emu, `/iam/v2/identities/${org}`, { name: 'kept' });
    const snapshot = readFileSync(state);
    const journal = readFileSync(`${state}.journal`);
    await emu.close();
    const copy = join(dir, 'torn-copy.json');
    writeFileSync(copy, snapshot);
    // A record half-appended when the process died.
    writeFileSync(`${copy}.journal`, Buffer.concat([journal, Buffer.from('0badc0de {"op":"put","r":{"kind":"iden')]));
    const first = await startTestEmulator({ statePath: copy });
    await post(first, `/iam/v2/identities/${org}`, { name: 'after-crash' });
    // Copy again without close (close would compact): the journal must read back whole.
    const snap2 = join(dir, 'torn-again.json');
    copyFileSync(copy, snap2);
    copyFileSync(`${copy}.journal`, `${snap2}.journal`);
    await first.close();
    const second = await startTestEmulator({ statePath: snap2 });
    try {
      expect(await names(second)).toEqual(['after-crash', 'kept']);
    } finally {
      await second.close();
    }
  });

  it('a journal of an older generation than its snapshot (a crash between the two renames of a compaction) adds nothing', async () => {
    const state = join(dir, 'generation.json');
    const emu = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'acme' }] } });
    const org = (await get(emu, '/iam/v2/groups')).body.groups[0].uid as string;
    await post(emu, `/iam/v2/identities/${org}`, { name: 'one' });
    const oldJournal = readFileSync(`${state}.journal`);
    await emu.flush(); // compaction: the snapshot now holds "one", the journal is new and empty
    await emu.close();
    writeFileSync(`${state}.journal`, oldJournal);
    const again = await startTestEmulator({ statePath: state });
    try {
      expect(await names(again)).toEqual(['one']);
    } finally {
      await again.close();
    }
  });
});

describe('the lock of a state file', () => {
  it('refuses a second emulator on the same file, naming the holder, until the first is closed', async () => {
    const state = join(dir, 'locked.json');
    const first = await startTestEmulator({ statePath: state });
    await expect(startTestEmulator({ statePath: state })).rejects.toThrow(
      new RegExp(
        `emulator state file .*locked\\.json is in use by an emulator \\(process ${process.pid} on ${hostname()}`,
      ),
    );
    await first.close();
    const second = await startTestEmulator({ statePath: state });
    await second.close();
  });

  it('takes over the lock of a process that no longer runs', async () => {
    const state = join(dir, 'stale.json');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(
      `${state}.lock`,
      JSON.stringify({ pid: Number(dead.stdout), host: hostname(), since: '2026-01-01T00:00:00.000Z' }),
    );
    const emu = await startEmulator({
      checkAnswers: true,
      statePath: state,
      tokens: [{ token: OWNER, role: 'owner' }],
    });
    expect(JSON.parse(readFileSync(`${state}.lock`, 'utf8')).pid).toBe(process.pid);
    await emu.close();
  });

  it('makes an --emulator command wait, saying so, instead of sharing the file', async () => {
    const cwd = join(dir, 'project');
    mkdirSync(join(cwd, '.platform-sync'), { recursive: true });
    const holder = await startTestEmulator({ statePath: join(cwd, '.platform-sync', 'emulator.json') });
    const run = runCli(['plan', ACME, '--emulator', '--bootstrap'], { cwd });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await holder.close();
    const done = await run;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toContain(
      `Waiting for .platform-sync/emulator.json: an emulator (process ${process.pid} on ${hostname()}, since`,
    );
    expect(done.stderr).toContain('is using it (giving up after 30 s, --lock-timeout)…');
  });
});
