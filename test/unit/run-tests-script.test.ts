/**
 * `npm test` after its build is scripts/run-tests.sh: `biome ci .` beside `vitest run`. It must
 * fail when either fails, and hand its arguments to vitest (.ci/run passes its reporters so).
 * Run here with stand-ins for the two on PATH, as npm runs it (`sh`).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dirs.js';

const SCRIPT = resolve(import.meta.dirname, '..', '..', 'scripts', 'run-tests.sh');
const temp = makeTempDir('run-tests-script');
afterAll(temp.remove);

/** Runs the script with a biome and a vitest that exit with these codes; vitest writes its arguments. */
function run(biome: number, vitest: number, args: string[] = []): { code: number | null; vitestArgs: string } {
  const bin = join(temp.dir, `bin-${biome}-${vitest}`);
  const seen = join(temp.dir, `args-${biome}-${vitest}`);
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'biome'), `#!/bin/sh\nsleep 0.05\nexit ${biome}\n`, { mode: 0o755 });
  writeFileSync(join(bin, 'vitest'), `#!/bin/sh\nprintf '%s|' "$@" > '${seen}'\nexit ${vitest}\n`, { mode: 0o755 });
  const r = spawnSync('sh', [SCRIPT, ...args], { env: { PATH: `${bin}:/usr/bin:/bin` }, encoding: 'utf8' });
  return { code: r.status, vitestArgs: readFileSync(seen, 'utf8') };
}

describe('scripts/run-tests.sh', () => {
  it('passes only when both the checks and the tests pass', () => {
    expect(run(0, 0).code).toBe(0);
    expect(run(1, 0).code).not.toBe(0);
    expect(run(0, 1).code).not.toBe(0);
    expect(run(1, 1).code).not.toBe(0);
  });

  it('hands its arguments to vitest run, as written', () => {
    expect(run(0, 0, ['--reporter=dot', 'a file.test.ts']).vitestArgs).toBe('run|--reporter=dot|a file.test.ts|');
  });
});
