/**
 * The pieces of undici the client runs on — its `Pool` (requests go through the pool's
 * `dispatch`, exchange.ts) and its connector (connections opened ahead, preconnect.ts) — loaded
 * from their own modules rather than the package root. The root loads all of undici (fetch,
 * WebSocket, cookies, caches, the mock agent): ≈45 ms of a cold `plan` process, where the pool
 * and what it needs are ≈15 ms (`npm run bench plan-process`, module loading). undici has no
 * `exports` map, so the paths are ones Node resolves; should a later undici move a file, the
 * root is loaded instead, which costs time, never a failure. test/unit/undici-pool.test.ts checks
 * that they are undici's own and that the root stays unloaded.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

/** undici's own export `name`, from the module at `path` inside the package when it is there. */
function loadPart<K extends 'Pool' | 'buildConnector'>(path: string, name: K): (typeof Undici)[K] {
  try {
    const part = require(`undici/${path}`) as unknown;
    if (typeof part === 'function') return part as (typeof Undici)[K];
  } catch {
    // moved or renamed in this undici: the root has it
  }
  return (require('undici') as typeof Undici)[name];
}

export const Pool = loadPart('lib/dispatcher/pool.js', 'Pool');
export const buildConnector = loadPart('lib/core/connect.js', 'buildConnector');
