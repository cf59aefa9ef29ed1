/**
 * The bundle the bin runs (scripts/build-cli-bundle.ts, issue 61) is a file of what a command's
 * start needs, and files of the code only some commands reach for — the emulator; export, adopt,
 * and the `yaml` and `diff` packages; saved plans — which Node compiles only when one does (ajv's
 * compiler is in none: every validator is generated at build time). `validate` and
 * `plan` of a few thousand resources spent ≈30 ms compiling that code on every run.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ACTION_BUNDLE_FILE } from '../../src/cli/launch.js';
import { makeTempDir, REPO_ROOT } from '../e2e/cli-harness.js';

const DIST = join(REPO_ROOT, 'dist');
/** The modules each file holds, by the path comment the bundler puts before each. */
function modulesIn(file: string): string[] {
  return readFileSync(join(DIST, file), 'utf8')
    .split('\n')
    .filter((line) => /^\/\/ (node_modules|dist)\//.test(line))
    .map((line) => line.slice(3));
}

/** The `--emulator` server (the CLI reads token files with its tokens.js), export, adopt, init, audit. */
const LAZY =
  /^(node_modules\/(yaml|ajv|diff|fast-uri)\/|dist\/src\/(emulator\/(?!tokens\.js$)|export\/|adopt\/|init\/|audit\/))/;

/**
 * Node's own modules a `validate` has no use for, each a few ms of a fresh process's CPU to load
 * (src/util/lazy-require.ts): loaded on first use.
 */
const UNUSED_BUILTINS = /^NativeModule (crypto|readline\/promises|zlib|timers\/promises)$/;

/**
 * Runs each command of `runs` in turn from the bundle in one fresh process; says which of the
 * bundle's files were loaded after each (one process for all: issue 63).
 */
function loadedBy(runs: string[][], cwd: string): { code: number; files: string[] }[] {
  const script = `
    const { loadBundle } = await import('./dist/src/cli/launch.js');
    const loaded = loadBundle(${JSON.stringify(join(DIST, 'platform-sync.cjs'))}, ${JSON.stringify(join(DIST, 'src', 'cli', 'main.js'))});
    const { cli } = loaded;
    const { PassThrough } = await import('node:stream');
    const quiet = () => new PassThrough().resume();
    const results = [];
    for (const args of ${JSON.stringify(runs)}) {
      const io = { ...cli.processIo(), cwd: ${JSON.stringify(cwd)}, stdout: quiet(), stderr: quiet() };
      const code = await cli.main(['node', 'platform-sync', ...args], io);
      const builtins = process.moduleLoadList.filter((m) => new RegExp(${JSON.stringify(UNUSED_BUILTINS.source)}).test(m));
      // The bundle's files compiled so far (each has a code cache state), in the order they were.
      const files = Object.keys(loaded.codeCache()).map((name) => ${JSON.stringify(DIST)} + '/' + name);
      results.push({ code, files, builtins });
    }
    console.log(JSON.stringify(results));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', PLATFORM_SYNC_SECRET_ACME_OKTA: 'bundle-start-test-secret' },
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as { code: number; files: string[]; builtins: string[] }[];
}

describe('the bundle', () => {
  const temp = makeTempDir('bundle-start');
  afterAll(() => temp.remove());
  const lazyFile = readdirSync(DIST).find((f) => /^platform-sync-lazy-[\w-]+\.cjs$/.test(f))!;
  const emulatorFile = readdirSync(DIST).find((f) => /^platform-sync-emulator-[\w-]+\.cjs$/.test(f))!;
  const planFileName = readdirSync(DIST).find((f) => /^platform-sync-plan-file-[\w-]+\.cjs$/.test(f))!;
  const clientFile = readdirSync(DIST).find((f) => /^platform-sync-client-[\w-]+\.cjs$/.test(f))!;

  it('keeps what only some commands use out of the file every start compiles', () => {
    expect(lazyFile).toBeDefined();
    expect(planFileName).toBeDefined();
    const start = modulesIn('platform-sync.cjs');
    expect(start.length).toBeGreaterThan(100);
    expect(start.filter((m) => LAZY.test(m))).toEqual([]);
    const lazy = modulesIn(lazyFile);
    // The API client is a file of its own, which a command that reads a server loads (`validate` never).
    const client = modulesIn(clientFile);
    expect(client).toContain('dist/src/api/client.js');
    expect([...start, ...lazy].filter((m) => client.includes(m))).toEqual([]);
    for (const part of ['node_modules/yaml/', 'node_modules/diff/', 'dist/src/adopt/'])
      expect(lazy.some((m) => m.startsWith(part))).toBe(true);
    // The emulator (its contract's validators most of it) is a file of its own, without yaml
    // (required from the package for a YAML seed or tokens file only): `--emulator` compiles
    // neither adopt's, export's and audit's code nor yaml.
    const emulator = modulesIn(emulatorFile);
    expect(emulator).toContain('dist/src/emulator/contract-validators.js');
    expect(emulator.filter((m) => !m.startsWith('dist/src/emulator/'))).toEqual([]);
    expect(lazy.filter((m) => m.startsWith('dist/src/emulator/'))).toEqual([]);
    // No run compiles a schema: the manifest's, the saved plan's and the emulator's contract's
    // validators are ajv's code generated at build time (`npm run generate`); the two small
    // run-time helpers they call are required from the installed ajv, not bundled.
    // A saved plan's modules and its validator are a file of their own: writing a plan
    // (`plan --out`, the Action's plan step) compiles neither the lazy file nor the start's.
    const planFile = modulesIn(planFileName);
    expect(planFile).toEqual(
      expect.arrayContaining(['dist/src/saved-plan/saved-plan.js', 'dist/src/saved-plan/plan-validator.js']),
    );
    expect([...start, ...lazy, ...emulator, ...planFile].filter((m) => m.startsWith('node_modules/ajv/'))).toEqual([]);
    const savedPlan = /^dist\/src\/saved-plan\/(saved-plan|plan-schema|plan-validator)\.js$/;
    expect([...start, ...lazy, ...emulator].filter((m) => savedPlan.test(m))).toEqual([]);
    // The Action's runner is a file of its own (the Action's entry loads it): no command of the CLI compiles it.
    const action = (m: string) => m.startsWith('dist/src/action/');
    expect([...start, ...lazy, ...emulator, ...planFile].filter(action)).toEqual([]);
    expect(modulesIn(ACTION_BUNDLE_FILE).filter(action)).toContain('dist/src/action/run.js');
  });

  it("validate loads only the start file; plan on the embedded emulator loads the emulator's and the API client's", () => {
    const example = join(REPO_ROOT, 'examples', 'acme');
    const [validate, plan] = loadedBy(
      [
        ['validate', example],
        ['plan', example, '--emulator', '--bootstrap'],
      ],
      temp.dir,
    );
    expect(validate).toEqual({ code: 0, files: [join(DIST, 'platform-sync.cjs')], builtins: [] });
    // The embedded emulator's token is random (node:crypto, loaded when it is drawn), and the API
    // client's file loads node:zlib and node:timers/promises.
    expect(plan).toEqual({
      code: 0,
      files: [join(DIST, 'platform-sync.cjs'), join(DIST, emulatorFile), join(DIST, clientFile)],
      builtins: ['NativeModule crypto', 'NativeModule zlib', 'NativeModule timers/promises'],
    });
  });
});
