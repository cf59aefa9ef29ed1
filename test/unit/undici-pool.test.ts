/**
 * The client's Pool and connector are undici's own, loaded without undici's root module
 * (src/api/undici-pool.ts): the very ones the package exports, and in a fresh process (dist/,
 * built by `npm test`) the package root is never loaded by them; and none of undici is loaded
 * before a client is made — `validate`, run from the bundle, loads no undici at all.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { undiciConnector, undiciPool } from '../../src/api/undici-pool.js';
import { REPO_ROOT } from '../e2e/cli-harness.js';

const require = createRequire(import.meta.url);

/** Runs an ES module script in a fresh process from the repository root; its last line of output, as JSON. */
function runScript(script: string): unknown {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** A script's line that prints which of undici's files the process has loaded. */
const UNDICI_LOADED = `Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/node_modules/undici/'))`;

describe('undici, as the client loads it', () => {
  it('is the pool and the connector undici exports', () => {
    const undici = require('undici') as typeof import('undici');
    expect(undiciPool()).toBe(undici.Pool);
    expect(undiciConnector()).toBe(undici.buildConnector);
  });

  it('is loaded without the rest of undici, and only once a client is made', () => {
    const script = `
      import { createRequire } from 'node:module';
      const { createClient } = await import('./dist/src/api/client.js');
      const before = ${UNDICI_LOADED};
      const client = createClient({ baseUrl: 'http://127.0.0.1:9', token: 't' });
      const loaded = ${UNDICI_LOADED};
      await client.close();
      console.log(JSON.stringify({ before: before.length, pool: loaded.some((f) => f.endsWith('/dispatcher/pool.js')), connector: loaded.some((f) => f.endsWith('/core/connect.js')), root: loaded.some((f) => f.endsWith('/undici/index.js')), fetch: loaded.some((f) => f.includes('/web/fetch/')), api: loaded.some((f) => f.includes('/lib/api/')) }));`;
    expect(runScript(script)).toEqual({
      before: 0,
      pool: true,
      connector: true,
      root: false,
      fetch: false,
      api: false,
    });
  });

  it('is not loaded by validate (from the bundle)', () => {
    const script = `
      import { createRequire } from 'node:module';
      import { PassThrough } from 'node:stream';
      const { loadBundle } = await import('./dist/src/cli/launch.js');
      const { cli } = loadBundle(${JSON.stringify(join(REPO_ROOT, 'dist', 'platform-sync.cjs'))}, ${JSON.stringify(join(REPO_ROOT, 'dist', 'src', 'cli', 'main.js'))});
      const quiet = () => new PassThrough().resume();
      const io = { ...cli.processIo(), stdout: quiet(), stderr: quiet() };
      const code = await cli.main(['node', 'platform-sync', 'validate', 'examples/acme'], io);
      console.log(JSON.stringify({ code, undici: ${UNDICI_LOADED} }));`;
    expect(runScript(script)).toEqual({ code: 0, undici: [] });
  });
});
