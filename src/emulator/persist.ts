/**
 * Emulator state on disk (DESIGN.md §6): a snapshot plus an append-only journal, so a write is
 * acknowledged only once it is durable and its cost does not grow with the state.
 *
 * - `<state>` — the snapshot: every resource, and the `generation` of the journal that follows it.
 * - `<state>.journal` — a header line naming that generation, then one line per change
 *   (`<crc32 hex> <json>\n`: a resource put whole, or a uid deleted). Changes are appended by
 *   one writer; every request that changed state waits until its line is fsynced, and requests
 *   that arrive meanwhile share the next fsync (group commit).
 * - Compaction, once the journal outgrows the snapshot (and on close): the snapshot is written
 *   to a temporary file, fsynced and renamed over the old one, then a new empty journal of the
 *   next generation replaces the old the same way. A journal of an older generation than its
 *   snapshot (a crash between the two renames) holds nothing the snapshot lacks and is dropped.
 * - Loading replays the journal over the snapshot. Replay is idempotent (a put replaces, a
 *   delete of what is gone does nothing), so lines written again after a compaction are
 *   harmless. A torn last line — a crash mid-append: no newline, a bad checksum — is dropped and
 *   cut off, keeping everything before it. Temporary files left by a crash are removed.
 */
import {
  closeSync,
  existsSync,
  fdatasync,
  fsyncSync,
  ftruncateSync,
  openSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { listDirectorySync, pathKind } from '../io/read-file.js';
import { open, rename, unlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { UserError } from '../model/errors.js';
import type { ApiKind } from '../model/kinds.js';
import {
  checkResource,
  loadState,
  putResource,
  readStateFile,
  serializeState,
  StateFileError,
} from './state-snapshot.js';
import type { Store, StoredResource, StoreMutation } from './store.js';

/**
 * How a journal batch is made durable. Replaceable only by tests, to inject an fsync failure
 * (EIO) and check that the emulator then stops acknowledging writes.
 */
export const journalSync = { fdatasync: promisify(fdatasync) as (fd: number) => Promise<void> };

const JOURNAL_FORMAT = 'platform-sync-emulator-journal';
/** The journal is compacted into the snapshot once it is larger than this and than the snapshot. */
const MIN_COMPACT_BYTES = 4 * 1024 * 1024;

type JournalRecord = { op: 'put'; r: StoredResource } | { op: 'del'; kind: ApiKind; uid: string };

/**
 * The header line, checksummed like a record: a flipped digit of its generation would otherwise
 * make a current journal look older than its snapshot, and every acknowledged write in it would
 * be dropped without a word.
 */
function journalHeader(generation: number): string {
  const json = JSON.stringify({ format: JOURNAL_FORMAT, generation });
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** The header of a journal: checksummed, or (journals of earlier versions) bare JSON; undefined when it is damaged. */
function decodeHeader(line: string): { format?: string; generation?: number } | undefined {
  let json = line;
  if (!line.startsWith('{')) {
    json = line.slice(9);
    if (line.indexOf(' ') !== 8 || crc32(json).toString(16).padStart(8, '0') !== line.slice(0, 8)) return undefined;
  }
  try {
    const header = JSON.parse(json) as { format?: string; generation?: number } | null;
    return header !== null && typeof header === 'object' && typeof header.generation === 'number' ? header : undefined;
  } catch {
    return undefined;
  }
}

function encodeRecord(m: StoreMutation): string {
  const record: JournalRecord = m.op === 'put' ? { op: 'put', r: m.resource } : m;
  const json = JSON.stringify(record);
  return `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`;
}

/** A journal line back to its record, or undefined when it is torn or corrupt. */
function decodeRecord(line: string): JournalRecord | undefined {
  const space = line.indexOf(' ');
  if (space !== 8) return undefined;
  const json = line.slice(9);
  if (crc32(json).toString(16).padStart(8, '0') !== line.slice(0, 8)) return undefined;
  try {
    return JSON.parse(json) as JournalRecord;
  } catch {
    return undefined;
  }
}

export interface ReplayResult {
  /** Records applied. */
  applied: number;
  /** What was dropped and why (a torn last record, or what --repair cut), for the operator. */
  notes: string[];
  /** Bytes of the journal that hold a whole header and whole records (the rest is torn). */
  goodBytes: number;
  /** False when the journal belongs to an older snapshot (or has no readable header): ignore it. */
  current: boolean;
}

/** The journal is trusted only as far as it is whole (DESIGN.md §6): a bad record before the last. */
export class JournalCorruptError extends UserError {
  constructor(
    readonly journalPath: string,
    readonly offset: number,
    readonly recordsAfter: number,
  ) {
    super(
      'EMULATOR_JOURNAL_CORRUPT',
      `the emulator's journal ${journalPath} is corrupt at byte ${offset}: a record there is damaged and ${recordsAfter} more follow it, ` +
        'so this is no crash mid-append (only a torn last record is); the emulator does not start on state it cannot trust. ' +
        `Restore the file from a backup, or start with --repair to truncate it at byte ${offset} (dropping that record and the ${recordsAfter} after it)`,
    );
  }
}

/**
 * Replays the journal text over the store, for a snapshot of `generation`. A torn last record
 * (a crash mid-append: no newline, or a bad checksum on the last line) is dropped with a note;
 * a bad record with whole records after it is corruption: JournalCorruptError, unless `repair`,
 * which keeps what comes before it and notes how many records it drops.
 */
export function replayJournal(
  text: Buffer,
  generation: number,
  store: Store,
  path: string,
  repair = false,
): ReplayResult {
  const firstNewline = text.indexOf(0x0a);
  const notes: string[] = [];
  // The header is written whole (renamed into place), never appended: a journal that is empty
  // is no journal, but a header that does not read is damage like any other — the records after
  // it may hold every acknowledged write (DESIGN.md §6, §8 rev 4).
  if (text.length === 0) return { applied: 0, notes, goodBytes: 0, current: false };
  const header = firstNewline < 0 ? undefined : decodeHeader(text.subarray(0, firstNewline).toString('utf8'));
  if (header === undefined) {
    const after = firstNewline < 0 ? 0 : countLines(text, firstNewline + 1);
    if (!repair) throw new JournalCorruptError(`${path}.journal`, 0, after);
    notes.push(
      `--repair: dropped ${path}.journal whole: its header is damaged (${after} records after it were not replayed)`,
    );
    return { applied: 0, notes, goodBytes: 0, current: false };
  }
  if (header.format !== JOURNAL_FORMAT)
    throw new StateFileError(path, `has a journal that is not one (format ${JOURNAL_FORMAT})`);
  if (header.generation !== generation) {
    if ((header.generation ?? 0) > generation)
      throw new StateFileError(
        path,
        `has a journal of generation ${header.generation}, newer than its snapshot (${generation})`,
      );
    return { applied: 0, notes, goodBytes: 0, current: false };
  }
  const journalPath = `${path}.journal`;
  let offset = firstNewline + 1;
  let applied = 0;
  for (;;) {
    const end = text.indexOf(0x0a, offset);
    if (end < 0) {
      // No newline: a torn last record (or none).
      if (offset < text.length)
        notes.push(
          `dropped a torn last record of ${journalPath} at byte ${offset} (${text.length - offset} bytes: a crash mid-append; it was never acknowledged)`,
        );
      break;
    }
    const record = decodeRecord(text.subarray(offset, end).toString('utf8'));
    if (!record) {
      const after = countLines(text, end + 1);
      if (after === 0) {
        notes.push(
          `dropped a torn last record of ${journalPath} at byte ${offset} (a crash mid-append; it was never acknowledged)`,
        );
        break;
      }
      if (!repair) throw new JournalCorruptError(journalPath, offset, after);
      notes.push(
        `--repair: truncated ${journalPath} at byte ${offset}, dropping ${after + 1} records (the damaged one and the ${after} after it)`,
      );
      break;
    }
    if (record.op === 'put') {
      checkResource(path, record.r, `journal record ${applied + 1}`);
      putResource(store, record.r);
    } else {
      const existing = store.get(record.kind, record.uid);
      if (existing) store.remove(existing);
    }
    applied++;
    offset = end + 1;
  }
  return { applied, notes, goodBytes: offset, current: true };
}

/** Records (whole or not) from `offset` to the end of the journal text. */
function countLines(text: Buffer, offset: number): number {
  let n = 0;
  let at = offset;
  while (at < text.length) {
    const end = text.indexOf(0x0a, at);
    n++;
    if (end < 0) break;
    at = end + 1;
  }
  return n;
}

/** Removes temporary files a crash left beside the state (`<state>.*.tmp`). */
function removeStaleTemporaries(path: string): void {
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = listDirectorySync(dirname(path), { maxEntries: 100_000 });
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(prefix) && name.endsWith('.tmp')) unlinkSync(join(dirname(path), name));
}

let tmpCounter = 0;

/** Writes `content` to `path` atomically (temporary file + fsync + rename + fsync of the directory). */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${++tmpCounter}.tmp`;
  const handle = await open(tmp, 'w', 0o600);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  syncDirectory(dirname(path));
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not every platform can fsync a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The durable state of one emulator: records every store change, makes it durable before the
 * change is acknowledged, and compacts. Create with {@link openDurableState}.
 */
export class DurableState {
  private readonly journalPath: string;
  private fd: number;
  private generation: number;
  private journalBytes: number;
  private snapshotBytes: number;
  private pending: string[] = [];
  private recorded = 0;
  private durable = 0;
  private waiters: { upTo: number; resolve: () => void; reject: (err: Error) => void }[] = [];
  private writing = false;
  private failure: Error | undefined;
  private compactWanted = false;

  constructor(
    private readonly path: string,
    private readonly store: Store,
    state: { fd: number; generation: number; journalBytes: number; snapshotBytes: number },
  ) {
    this.journalPath = `${path}.journal`;
    this.fd = state.fd;
    this.generation = state.generation;
    this.journalBytes = state.journalBytes;
    this.snapshotBytes = state.snapshotBytes;
    store.onMutation = (m) => this.record(m);
  }

  private record(m: StoreMutation): void {
    // Encoded now: the stored object changes on later updates.
    this.pending.push(encodeRecord(m));
    this.recorded++;
  }

  /** Resolves once every change recorded so far is durable; rejects if it cannot be written. */
  commit(): Promise<void> {
    if (this.durable >= this.recorded) return Promise.resolve();
    const upTo = this.recorded;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ upTo, resolve, reject }));
    this.kick();
    return done;
  }

  /** Makes everything durable and writes a fresh snapshot (with an empty journal). */
  async compact(): Promise<void> {
    this.compactWanted = true;
    const done = new Promise<void>((resolve, reject) =>
      this.waiters.push({ upTo: Number.POSITIVE_INFINITY, resolve, reject }),
    );
    this.kick();
    await done;
  }

  /** Compacts and closes the journal; the store is no longer recorded. */
  async close(): Promise<void> {
    await this.compact();
    this.store.onMutation = undefined;
    closeSync(this.fd);
  }

  private kick(): void {
    if (this.writing) return;
    this.writing = true;
    // The writes run off the request's own tick, so requests arriving together share one fsync.
    setImmediate(() => {
      this.writeLoop()
        .catch((err: unknown) => {
          this.failure = err as Error;
          for (const w of this.waiters.splice(0)) w.reject(this.failure);
        })
        .finally(() => {
          this.writing = false;
          if (this.waiters.length > 0 && this.failure === undefined) this.kick();
        });
    });
  }

  private async writeLoop(): Promise<void> {
    if (this.failure) throw this.failure;
    while (this.pending.length > 0 || this.compactWanted) {
      if (this.pending.length > 0) {
        // `pending` holds the changes recorded last, up to `recorded`: durable up to there once written.
        const batch = this.pending;
        const upTo = this.recorded;
        this.pending = [];
        const buffer = Buffer.from(batch.join(''), 'utf8');
        writeAll(this.fd, buffer);
        await journalSync.fdatasync(this.fd);
        this.journalBytes += buffer.length;
        // Not a count added: changes a snapshot already made durable may be written again here.
        this.durable = Math.max(this.durable, upTo);
        this.settle();
      }
      if (this.compactWanted || this.journalBytes > Math.max(MIN_COMPACT_BYTES, this.snapshotBytes)) {
        this.compactWanted = false;
        // What was recorded up to the snapshot is durable with it; what was recorded while it
        // was written is not (it waits in `pending` for the new journal, the next turn).
        const inSnapshot = await this.writeSnapshot();
        this.durable = Math.max(this.durable, inSnapshot);
        this.settle(true);
      }
    }
  }

  private settle(all = false): void {
    const still: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.upTo === Number.POSITIVE_INFINITY ? all : w.upTo <= this.durable) w.resolve();
      else still.push(w);
    }
    this.waiters = still;
  }

  /**
   * Compaction: the snapshot of the next generation (taken now, synchronously: it holds every
   * change applied so far, pending ones included), then an empty journal of that generation.
   * Returns how many recorded changes the snapshot holds.
   */
  private async writeSnapshot(): Promise<number> {
    const next = this.generation + 1;
    const content = serializeState(this.store, next);
    const inSnapshot = this.recorded;
    await writeFileAtomic(this.path, content);
    this.snapshotBytes = Buffer.byteLength(content);
    await writeFileAtomic(this.journalPath, journalHeader(next));
    closeSync(this.fd);
    this.fd = openSync(this.journalPath, 'a');
    this.generation = next;
    this.journalBytes = Buffer.byteLength(journalHeader(next));
    return inSnapshot;
  }
}

/** Appends the whole buffer (a batch of small lines: the fsync after it is the real wait). */
function writeAll(fd: number, buffer: Buffer): void {
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
}

/**
 * Opens the durable state at `path`: removes crash leftovers, loads the snapshot and replays the
 * journal into `store` (cutting a torn tail), and opens the journal for appending. `seed` runs
 * when there was no state yet; then (and when the journal was of an older generation) a
 * snapshot is written at once, so the files exist from the start.
 */
export async function openDurableState(
  path: string,
  store: Store,
  seed?: () => void,
  options: { repair?: boolean } = {},
): Promise<{ state: DurableState; loaded: boolean; notes: string[] }> {
  removeStaleTemporaries(path);
  const journalPath = `${path}.journal`;
  // Opening a FIFO to append would wait for a reader forever: only a regular journal is opened.
  if (!['missing', 'file'].includes(pathKind(journalPath)))
    throw new StateFileError(
      path,
      `has a journal ${journalPath} that is not a regular file (a FIFO, a device or a directory is never opened)`,
    );
  const generation = loadState(path, store);
  const loaded = generation !== undefined;
  let replay: ReplayResult = { applied: 0, notes: [], goodBytes: 0, current: false };
  if (loaded && existsSync(journalPath)) {
    store.invalidateSortedViews();
    replay = replayJournal(readStateFile(journalPath, path), generation, store, path, options.repair === true);
    store.invalidateSortedViews();
  }
  if (!loaded) seed?.();
  let fd: number;
  if (replay.current) {
    // Cut a torn tail, so that new records follow whole ones.
    fd = openSync(journalPath, 'r+');
    ftruncateSync(fd, replay.goodBytes);
    fsyncSync(fd);
    closeSync(fd);
    fd = openSync(journalPath, 'a');
  } else {
    fd = openSync(journalPath, 'a');
  }
  const state = new DurableState(path, store, {
    fd,
    generation: generation ?? 0,
    journalBytes: replay.goodBytes,
    snapshotBytes: loaded ? statSync(path).size : 0,
  });
  if (!replay.current) await state.compact();
  return { state, loaded, notes: replay.notes };
}
