/**
 * The client's Pool and connector are undici's own, loaded without undici's root module
 * (src/api/undici-pool.ts): the very ones the package exports, and in a fresh process (dist/,
 * built by `npm test`) the package root is never loaded by them.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { buildConnector, Pool } from '../../src/api/undici-pool.js';

const require = createRequire(import.meta.url);

describe('undici, as the client loads it', () => {
  it('is the pool and the connector undici exports', () => {
    const undici = require('undici') as typeof import('undici');
    expect(Pool).toBe(undici.Pool);
    expect(buildConnector).toBe(undici.buildConnector);
  });

  it('is loaded without the rest of undici', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { Pool, buildConnector } = await import('./dist/src/api/undici-pool.js');
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/node_modules/undici/'));
      console.log(JSON.stringify({ pool: typeof Pool, connector: typeof buildConnector, root: loaded.some((f) => f.endsWith('/undici/index.js')), fetch: loaded.some((f) => f.includes('/web/fetch/')), api: loaded.some((f) => f.includes('/lib/api/')) }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      pool: 'function',
      connector: 'function',
      root: false,
      fetch: false,
      api: false,
    });
  });
});
