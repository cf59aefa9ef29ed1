/**
 * The two pieces of undici the client runs on — the `Pool` and the `request` call — loaded from
 * their own modules rather than the package root. The root loads all of undici (fetch,
 * WebSocket, cookies, caches, the mock agent) and mixes `request` into every dispatcher: ≈45 ms
 * of a cold `plan` process, where these two and what they need are ≈15 ms (`npm run bench
 * plan-process`, module loading). undici has no `exports` map, so the paths are ones Node
 * resolves; should a later undici move a file, the root is loaded instead, which costs time,
 * never a failure. test/unit/undici-pool.test.ts checks that they are undici's own and that the
 * root stays unloaded.
 */
import { createRequire } from 'node:module';
import type { Dispatcher, Pool as UndiciPool } from 'undici';

const require = createRequire(import.meta.url);

type RequestCall = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

function load(): { Pool: typeof UndiciPool; request: RequestCall } {
  try {
    const Pool = require('undici/lib/dispatcher/pool.js') as unknown;
    const request = require('undici/lib/api/api-request.js') as unknown;
    if (typeof Pool === 'function' && typeof request === 'function') return { Pool: Pool as typeof UndiciPool, request: request as RequestCall };
  } catch {
    // moved or renamed in this undici: the root has them
  }
  const undici = require('undici') as typeof import('undici');
  return { Pool: undici.Pool, request: undici.Dispatcher.prototype.request as RequestCall };
}

const loaded = load();

export const Pool = loaded.Pool;

/** undici's `dispatcher.request(options)`, for any dispatcher (a pool, or one a caller hands in). */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return loaded.request.call(dispatcher, options);
}
