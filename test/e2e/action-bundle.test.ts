/**
 * The Action's entry (`node dist/src/action/main.js`, as action.yml runs it) takes its runner from
 * the bundle when the build made one that matches the modules, as the bin does (issue 63: a
 * step spared resolving some 150 modules), and from dist/src when the bundle is stale. Which it did is read from the process itself: every ES module Node loads (a loader
 * hook) and every CommonJS file in its require cache at exit. A real process: what is loaded at
 * a cold start is the point.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ACTION_BUNDLE_FILE, ENTRY_MARK_PREFIX } from '../../src/cli/launch.js';
import { makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';

const TOKEN = 'action-bundle-owner-token-5d1f';

/** Records each file Node loads as an ES module (a hook, on the loader's thread) and, at exit, the CommonJS ones. */
const OBSERVE = `
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
const hooks = \`import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(process.env.OBSERVED_MODULES, 'esm ' + url + '\\\\n');
  return next(url, context);
}\`;
register('data:text/javascript,' + encodeURIComponent(hooks));
process.on('exit', () => {
  const files = Object.keys(createRequire(import.meta.url).cache);
  appendFileSync(process.env.OBSERVED_MODULES, files.map((f) => 'cjs ' + f + '\\n').join(''));
});
`;

interface Loaded {
  outputs: string;
  log: string;
  /** The modules of dist/src the process loaded as ES modules, relative to the package (a newer Node's hook also sees `require`). */
  esm: string[];
  /** The package's CommonJS files in its require cache at exit, relative to the package. */
  cjs: string[];
  /** The bundle's files the step compiled (src/cli/launch.ts: the ones whose code cache it wrote), relative to the package. */
  compiled: string[];
}

describe("the Action's entry", () => {
  const temp = makeTempDir('action-bundle');
  let emulator: Emulator;
  let run = 0;
  const manifests = join(temp.dir, 'manifests');

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    mkdirSync(manifests);
    writeFileSync(join(manifests, 'org.yaml'), 'apiVersion: platform-sync/v1\norg:\n  name: acme\n');
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: TOKEN };
    const created = await runCli(['apply', manifests, '--bootstrap', '--auto-approve'], { env });
    expect(created.code, created.stderr).toBe(0);
    writeFileSync(join(temp.dir, 'observe.mjs'), OBSERVE);
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  /** A plan step of the Action installed at `pkg`, in a process of its own (the emulator answers from this one). */
  const step = async (pkg: string): Promise<Loaded> => {
    const dir = join(temp.dir, `step-${++run}`);
    mkdirSync(join(dir, 'runner'), { recursive: true });
    const observed = join(dir, 'observed');
    writeFileSync(observed, '');
    const env = {
      NO_COLOR: '1',
      PATH: process.env.PATH ?? '',
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: TOKEN,
      PS_COMMAND: 'plan',
      PS_PATHS: manifests,
      GITHUB_OUTPUT: join(dir, 'output'),
      GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
      RUNNER_TEMP: join(dir, 'runner'),
      OBSERVED_MODULES: observed,
      // The step's own: the bundle files it compiled are the ones whose code cache it writes.
      PLATFORM_SYNC_CODE_CACHE_DIR: join(dir, 'code-cache'),
    };
    const args = ['--import', join(temp.dir, 'observe.mjs'), join(pkg, 'dist', 'src', 'action', 'main.js')];
    const child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (c: Buffer) => (log += c.toString()));
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, log).toBe(0);
    const lines = readFileSync(observed, 'utf8').split('\n');
    const ours = (kind: string) =>
      lines
        .filter((l) => l.startsWith(`${kind} `))
        .map((l) => l.slice(kind.length + 1))
        .map((f) => (f.startsWith('file:') ? fileURLToPath(f) : f))
        .filter((f) => f.startsWith(`${pkg}/`) && !f.includes('/node_modules/'))
        .map((f) => relative(pkg, f));
    const cached = existsSync(join(dir, 'code-cache')) ? readdirSync(join(dir, 'code-cache')) : [];
    return {
      outputs: readFileSync(join(dir, 'output'), 'utf8'),
      log,
      esm: ours('esm').filter((f) => f.startsWith('dist/src/') && f.endsWith('.js')),
      cjs: ours('cjs'),
      compiled: cached.map((f) => join('dist', /^[0-9a-f]{16}\.(.+\.cjs)\.v\d/.exec(f)?.[1] ?? f)).sort(),
    };
  };
  const planned = (r: Loaded) => {
    expect(r.outputs, r.log).toMatch(/^exitcode=0$/m);
    expect(r.outputs).toMatch(/^plan-json=.+platform-sync-plan\.json$/m);
  };

  it('runs from the bundle when it matches the modules: no module of the CLI or the runner read from dist/src', async () => {
    const r = await step(REPO_ROOT);
    planned(r);
    // The start, the Action's file, the API client's and the saved plan's: not the lazy file (the emulator, export, adopt…).
    expect(
      r.compiled.map((f) => f.replace(/-[\w-]{8}\.cjs$/, '.cjs')),
      'npm run build makes the bundle',
    ).toEqual([
      join('dist', ACTION_BUNDLE_FILE),
      join('dist', 'platform-sync-client.cjs'),
      join('dist', 'platform-sync-plan-file.cjs'),
      join('dist', 'platform-sync.cjs'),
    ]);
    // Compiled by the loader, not Node's require.
    expect(r.cjs.filter((f) => f.endsWith('.cjs'))).toEqual([]);
    // The entry and what it checks and caches the bundle with; nothing of the runner or the CLI.
    expect(r.esm.sort()).toEqual([
      'dist/src/action/main.js',
      'dist/src/cli/launch.js',
      'dist/src/io/code-cache.js',
      'dist/src/io/read-file.js',
      'dist/src/util/lazy-require.js',
    ]);
  });

  // A missing bundle takes the same way (loadBundle is undefined without one: test/unit/launch.test.ts); one
  // process for both, since every process here costs the suite ≈0.8 s of CPU (issue 63).
  it('runs from dist/src when the bundle is stale (the modules built again by tsc after it)', async () => {
    // The package as installed, in a directory of its own (the real one stays as the build left it).
    const pkg = join(temp.dir, 'package');
    const dist = join(REPO_ROOT, 'dist');
    cpSync(join(dist, 'src'), join(pkg, 'dist', 'src'), { recursive: true, filter: (f) => !/\.(map|d\.ts)$/.test(f) });
    for (const f of readdirSync(dist).filter((name) => name.endsWith('.cjs')))
      cpSync(join(dist, f), join(pkg, 'dist', f));
    for (const f of ['package.json', 'schemas']) cpSync(join(REPO_ROOT, f), join(pkg, f), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(pkg, 'node_modules'));
    const entry = join(pkg, 'dist', 'src', 'cli', 'main.js');
    const marked = readFileSync(entry, 'utf8');
    expect(marked).toContain(ENTRY_MARK_PREFIX);
    writeFileSync(entry, marked.replace(new RegExp(`^${ENTRY_MARK_PREFIX}.*\n`, 'm'), ''));
    const r = await step(pkg);
    planned(r);
    expect(r.cjs.filter((f) => f.endsWith('.cjs'))).toEqual([]);
    expect(r.compiled).toEqual([]);
    expect(r.esm).toContain('dist/src/action/run.js');
    expect(r.esm).toContain('dist/src/cli/main.js');
  });
});
