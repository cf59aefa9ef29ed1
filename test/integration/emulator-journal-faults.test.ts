/**
 * The journal is trusted only as far as it is whole (DESIGN.md §6): a torn last record is dropped
 * with a note; a damaged record before the last is corruption — the emulator refuses to start,
 * naming the file and the offset, and `repair` truncates there saying how many records it drops.
 * An fsync that fails stops the emulator acknowledging anything (503 until restart).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { JournalCorruptError, journalSync } from '../../src/emulator/persist.js';
import { get, post, startTestEmulator } from './emulator-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'emulator-journal-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const names = async (emu: Awaited<ReturnType<typeof startTestEmulator>>) =>
  ((await get(emu, '/iam/v2/identities?order_by=name')).body.identities as { name: string }[]).map((i) => i.name);

/** A state whose journal holds five records (five identities), as a crash would leave it (not compacted). */
async function fiveRecords(name: string): Promise<{ state: string; journal: Buffer; lines: number[] }> {
  const source = join(dir, `${name}-source.json`);
  const emu = await startTestEmulator({ statePath: source, seed: { orgs: [{ name: 'acme' }] } });
  const org = (await get(emu, '/iam/v2/groups')).body.groups[0].uid as string;
  for (const n of ['r1', 'r2', 'r3', 'r4', 'r5'])
    expect((await post(emu, `/iam/v2/identities/${org}`, { name: n })).status).toBe(200);
  const snapshot = readFileSync(source);
  const journal = readFileSync(`${source}.journal`);
  await emu.close();
  const state = join(dir, `${name}.json`);
  writeFileSync(state, snapshot);
  // Where each line starts: the header, then the five records.
  const lines: number[] = [0];
  for (let i = 0; i < journal.length - 1; i++) if (journal[i] === 0x0a) lines.push(i + 1);
  expect(lines).toHaveLength(6);
  return { state, journal, lines };
}

/** What starting an emulator on `state` throws (undefined when it starts: it is closed again). */
function startError(state: string): Promise<unknown> {
  return startTestEmulator({ statePath: state }).then(
    async (emu) => {
      await emu.close();
      return undefined;
    },
    (e: unknown) => e,
  );
}

describe('a damaged journal', () => {
  it('a flipped byte in record 2 of 5 is corruption: the emulator refuses to start, naming the file and the offset', async () => {
    const { state, journal, lines } = await fiveRecords('flip');
    const damaged = Buffer.from(journal);
    const at = lines[2]! + 20; // inside record 2
    damaged[at] = damaged[at]! ^ 0x01;
    writeFileSync(`${state}.journal`, damaged);
    const error = await startError(state);
    expect(error).toBeInstanceOf(JournalCorruptError);
    expect((error as Error).message).toContain(`${state}.journal is corrupt at byte ${lines[2]}`);
    expect((error as Error).message).toContain('3 more follow it');
    // Nothing was changed: the same refusal again.
    expect(readFileSync(`${state}.journal`).equals(damaged)).toBe(true);
  });

  it('regression 9 (issue 35): one damaged byte in the first line (the header) is corruption too, never an empty org', async () => {
    for (const [label, offset] of [
      ['its checksum', 2],
      ['its generation digit', -3],
    ] as const) {
      const { state, journal, lines } = await fiveRecords(`header-${offset}`);
      const damaged = Buffer.from(journal);
      const at = offset >= 0 ? offset : lines[1]! + offset; // `…"generation":N}` ends 2 bytes before the newline
      damaged[at] = damaged[at]! ^ 0x01;
      writeFileSync(`${state}.journal`, damaged);
      const error = await startError(state);
      expect(error, label).toBeInstanceOf(JournalCorruptError);
      expect((error as Error).message).toContain(`${state}.journal is corrupt at byte 0`);
      expect(readFileSync(`${state}.journal`).equals(damaged)).toBe(true);
    }
  });

  it('--repair truncates there, says how many records it drops, and keeps what came before', async () => {
    const { state, journal, lines } = await fiveRecords('repair');
    const damaged = Buffer.from(journal);
    damaged[lines[2]! + 20] = damaged[lines[2]! + 20]! ^ 0x01;
    writeFileSync(`${state}.journal`, damaged);
    const notes: string[] = [];
    const emu = await startTestEmulator({ statePath: state, repair: true, onNote: (n) => notes.push(n) });
    try {
      expect(await names(emu)).toEqual(['r1']);
      expect(notes).toEqual([
        `--repair: truncated ${state}.journal at byte ${lines[2]}, dropping 4 records (the damaged one and the 3 after it)`,
      ]);
    } finally {
      await emu.close();
    }
  });

  it('a torn last record is dropped with a note, the rest kept', async () => {
    const { state, journal, lines } = await fiveRecords('torn');
    writeFileSync(`${state}.journal`, journal.subarray(0, lines[5]! + 30));
    const notes: string[] = [];
    const emu = await startTestEmulator({ statePath: state, onNote: (n) => notes.push(n) });
    try {
      expect(await names(emu)).toEqual(['r1', 'r2', 'r3', 'r4']);
      expect(notes).toEqual([
        `dropped a torn last record of ${state}.journal at byte ${lines[5]} (30 bytes: a crash mid-append; it was never acknowledged)`,
      ]);
    } finally {
      await emu.close();
    }
  });
});

describe('an fsync that fails', () => {
  const original = journalSync.fdatasync;
  afterEach(() => {
    journalSync.fdatasync = original;
  });

  it('stops the emulator acknowledging or serving anything: 503 until restart, and the change is not served', async () => {
    const state = join(dir, 'eio.json');
    const emu = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'acme' }] } });
    try {
      const org = (await get(emu, '/iam/v2/groups')).body.groups[0].uid as string;
      expect((await post(emu, `/iam/v2/identities/${org}`, { name: 'durable' })).status).toBe(200);
      journalSync.fdatasync = async () => {
        throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      };
      const failed = await post(emu, `/iam/v2/identities/${org}`, { name: 'not-durable' });
      expect(failed.status).toBe(503);
      expect(failed.body.message).toContain('acknowledges nothing until it is restarted');
      journalSync.fdatasync = original;
      // Every later request, reads included: nothing serves the change that is not on disk.
      expect((await post(emu, `/iam/v2/identities/${org}`, { name: 'later' })).status).toBe(503);
      expect((await get(emu, '/iam/v2/identities')).status).toBe(503);
    } finally {
      await emu.close().catch(() => undefined);
    }
    // Restarted: what was acknowledged is there; what came after the failure was never applied
    // (the one whose fsync failed was answered 503: it may or may not have reached the disk).
    const again = await startTestEmulator({ statePath: state });
    try {
      const after = await names(again);
      expect(after).toContain('durable');
      expect(after).not.toContain('later');
    } finally {
      await again.close();
    }
  });
});
