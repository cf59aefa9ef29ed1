/**
 * The pieces of undici the client runs on — its `Pool` (requests go through the pool's
 * `dispatch`, exchange.ts) and its connector (connections opened ahead, preconnect.ts) — loaded
 * from their own modules rather than the package root. The root loads all of undici (fetch,
 * WebSocket, cookies, caches, the mock agent): ≈45 ms of a cold `plan` process, where the pool
 * and what it needs are ≈15 ms (`npm run bench plan-process`, module loading). undici has no
 * `exports` map, so the paths are ones Node resolves; should a later undici move a file, the
 * root is loaded instead, which costs time, never a failure.
 *
 * Loaded when the first client is made, not when this module is: a command that never talks to
 * the API (`validate`) does not load undici at all (15–40 ms of a cold `validate` of the 10k org,
 * docs/performance.md). test/unit/undici-pool.test.ts checks that they
 * are undici's own, that the root stays unloaded, and that `validate` loads no undici.
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

let pool: typeof Undici.Pool | undefined;
let connector: typeof Undici.buildConnector | undefined;

/** undici's `Pool`, loaded on the first call. */
export function undiciPool(): typeof Undici.Pool {
  pool ??= loadPart('lib/dispatcher/pool.js', 'Pool');
  return pool;
}

/** undici's `buildConnector`, loaded on the first call. */
export function undiciConnector(): typeof Undici.buildConnector {
  connector ??= loadPart('lib/core/connect.js', 'buildConnector');
  return connector;
}
