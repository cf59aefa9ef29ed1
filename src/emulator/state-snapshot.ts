/**
 * The emulator's snapshot file (see persist.ts): every resource but the built-in roles, parents
 * before children, with the journal generation that continues it. What is read back is checked
 * (format, version, kinds, parents) and a file that is not a state file is an error naming it.
 */
import { FileReadError, pathKind, readFileSyncBounded } from '../io/read-file.js';
import { UserError } from '../model/errors.js';
import { contractKinds } from './contract.js';
import type { ResourceData, Store, StoredResource } from './store.js';

const STATE_FORMAT = 'platform-sync-emulator-state';
const STATE_VERSION = 1;

interface StateFile {
  format: typeof STATE_FORMAT;
  version: number;
  /** The journal generation that continues this snapshot (absent in files written before journals: 0). */
  generation?: number;
  nextSeq: number;
  resources: StoredResource[];
}

/** Serializes the store (built-in roles excluded: they are recreated on start). */
export function serializeState(store: Store, generation = 0): string {
  const resources: StoredResource[] = [];
  for (const r of store.all()) if (!r.builtin) resources.push(r);
  // Parents before children, so loading can insert in file order.
  resources.sort((a, b) => a.seq - b.seq);
  const state: StateFile = { format: STATE_FORMAT, version: STATE_VERSION, generation, nextSeq: store.seq, resources };
  return JSON.stringify(state);
}

/** A state file that cannot be used: which file, and why (apart, so that the caller names the file as the user gave it). */
export class StateFileError extends UserError {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super('EMULATOR_STATE_INVALID', `emulator state file ${file} ${reason}; fix or remove it`);
  }
}

/** The kinds a state file may hold: those of the contract. */
const STORED_KINDS = new Set<string>(contractKinds().map((k) => k.kind));

export function checkResource(path: string, r: StoredResource, where: string): void {
  if (!r || typeof r.uid !== 'string' || !STORED_KINDS.has(r.kind) || typeof r.data !== 'object' || r.data === null) {
    throw new StateFileError(path, `has a malformed resource at ${where}`);
  }
}

/** Puts a resource whole: inserts it, or replaces the data of the stored one of that uid (its children stay). */
export function putResource(store: Store, r: StoredResource): void {
  const existing = store.get(r.kind, r.uid);
  if (!existing) {
    store.insert({
      kind: r.kind,
      uid: r.uid,
      parent: r.parent,
      seq: r.seq,
      createMs: r.createMs,
      updateMs: r.updateMs,
      data: r.data,
    });
    return;
  }
  const change: Partial<ResourceData> = {};
  for (const key of Object.keys(existing.data) as (keyof ResourceData)[]) change[key] = undefined;
  store.update(existing, Object.assign(change, r.data), r.updateMs);
}

/** Largest snapshot or journal read: far above a 100,000-resource org. */
const MAX_STATE_FILE_BYTES = 1024 * 1024 * 1024;

/**
 * Reads the snapshot or the journal through the door in: a device, a FIFO or a directory at the
 * state path (a committed `.platform-sync/emulator.json -> /dev/zero`) is refused at once.
 */
export function readStateFile(file: string, statePath: string): Buffer {
  try {
    return readFileSyncBounded(file, { maxBytes: MAX_STATE_FILE_BYTES });
  } catch (err) {
    if (err instanceof FileReadError) throw new StateFileError(statePath, `cannot be read: ${err.message}`);
    throw err;
  }
}

/**
 * Loads the snapshot at `path` into `store` when it exists. Returns its generation, or
 * undefined when there is no file. A file that is not a state file is an error naming it.
 */
export function loadState(path: string, store: Store): number | undefined {
  if (pathKind(path) === 'missing') return undefined;
  const text = readStateFile(path, path);
  let parsed: StateFile;
  try {
    parsed = JSON.parse(text.toString('utf8')) as StateFile;
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message)?.[1];
    throw new StateFileError(path, `is not valid JSON${at === undefined ? '' : ` (a syntax error at byte ${at})`}`);
  }
  if (parsed?.format !== STATE_FORMAT || !Array.isArray(parsed.resources))
    throw new StateFileError(path, `is not an emulator state file (format ${STATE_FORMAT})`);
  if (parsed.version !== STATE_VERSION)
    throw new StateFileError(path, `has version ${parsed.version}, this emulator reads version ${STATE_VERSION}`);
  store.invalidateSortedViews();
  parsed.resources.forEach((r, i) => {
    checkResource(path, r, `resources[${i}]`);
    if (r.parent !== null && !store.hasUid(r.parent))
      throw new StateFileError(path, `has resources[${i}] (${r.kind} ${r.uid}) whose parent ${r.parent} is missing`);
    putResource(store, r);
  });
  store.seq = parsed.nextSeq;
  store.invalidateSortedViews();
  return typeof parsed.generation === 'number' ? parsed.generation : 0;
}
