/**
 * undici's `Pool`, the one piece of undici the client runs on (it sends through the pool's
 * `dispatch`, exchange.ts), loaded from its own module rather than the package root. The root
 * loads all of undici (fetch, WebSocket, cookies, caches, the mock agent): ≈45 ms of a cold
 * `plan` process, where the pool and what it needs are ≈15 ms (`npm run bench plan-process`,
 * module loading). undici has no `exports` map, so the path is one Node resolves; should a later
 * undici move the file, the root is loaded instead, which costs time, never a failure.
 * test/unit/undici-pool.test.ts checks that it is undici's own and that the root stays unloaded.
 */
import { createRequire } from 'node:module';
import type { Pool as UndiciPool } from 'undici';

const require = createRequire(import.meta.url);

function loadPool(): typeof UndiciPool {
  try {
    const Pool = require('undici/lib/dispatcher/pool.js') as unknown;
    if (typeof Pool === 'function') return Pool as typeof UndiciPool;
  } catch {
    // moved or renamed in this undici: the root has it
  }
  return (require('undici') as typeof import('undici')).Pool;
}

export const Pool = loadPool();
