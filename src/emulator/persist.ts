/**
 * Emulator state on disk. Writes are atomic: the JSON goes to a temporary file in the same
 * directory, is fsynced, and is renamed over the state file, so a crash at any moment leaves
 * either the previous complete state or the new complete state, never a half-written file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { UserError } from '../model/errors.js';
import { KIND_INFO, type ApiKind } from '../model/kinds.js';
import type { Store, StoredResource } from './store.js';

const STATE_FORMAT = 'platform-sync-emulator-state';
const STATE_VERSION = 1;

interface StateFile {
  format: typeof STATE_FORMAT;
  version: number;
  nextSeq: number;
  resources: StoredResource[];
}

/** Serializes the store (built-in roles excluded: they are recreated on start). */
export function serializeState(store: Store): string {
  const resources: StoredResource[] = [];
  for (const r of store.all()) if (!r.builtin) resources.push(r);
  // Parents before children, so loading can insert in file order.
  resources.sort((a, b) => a.seq - b.seq);
  const state: StateFile = { format: STATE_FORMAT, version: STATE_VERSION, nextSeq: store.seq, resources };
  return JSON.stringify(state);
}

function stateError(path: string, reason: string): UserError {
  return new UserError('EMULATOR_STATE_INVALID', `emulator state file ${path} ${reason}; fix or remove it`);
}

/**
 * Loads `path` into `store` when it exists. Returns false when there is no file.
 * A file that is not a state file is an error naming it, never silently replaced.
 */
export function loadState(path: string, store: Store): boolean {
  if (!existsSync(path)) return false;
  let parsed: StateFile;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8')) as StateFile;
  } catch (err) {
    throw stateError(path, `is not valid JSON (${(err as Error).message})`);
  }
  if (parsed?.format !== STATE_FORMAT || !Array.isArray(parsed.resources)) throw stateError(path, `is not an emulator state file (format ${STATE_FORMAT})`);
  if (parsed.version !== STATE_VERSION) throw stateError(path, `has version ${parsed.version}, this emulator reads version ${STATE_VERSION}`);
  store.invalidateSortedViews();
  parsed.resources.forEach((r, i) => {
    if (!r || typeof r.uid !== 'string' || !(r.kind in KIND_INFO) || typeof r.data !== 'object')
      throw stateError(path, `has a malformed resource at resources[${i}]`);
    if (r.parent !== null && !store.hasUid(r.parent)) throw stateError(path, `has resources[${i}] (${r.kind} ${r.uid}) whose parent ${r.parent} is missing`);
    store.insert({ kind: r.kind as ApiKind, uid: r.uid, parent: r.parent, seq: r.seq, createMs: r.createMs, updateMs: r.updateMs, data: r.data });
  });
  store.seq = parsed.nextSeq;
  store.invalidateSortedViews();
  return true;
}

let tmpCounter = 0;

/** Writes `content` to `path` atomically (temporary file + fsync + rename). */
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
}
