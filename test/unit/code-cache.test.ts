/**
 * V8's code cache of the bundle, made at run time (src/io/code-cache.ts, src/cli/launch.ts): the
 * next process compiles with what the last one wrote; a cache that does not check is never handed
 * to V8 and is written again; a directory that is not the user's own is never used; Node's switch
 * turns it off. Processes are fresh: V8 takes a cache only in a process that has not compiled
 * the same script.
 */
import { spawnSync } from 'node:child_process';
import { crc32 } from 'node:zlib';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_ID_PREFIX } from '../../src/cli/launch.js';
import { MAX_CACHE_BYTES, MAX_CACHE_FILES, openCodeCache } from '../../src/io/code-cache.js';
import { BIN, REPO_ROOT, makeTempDir, ACME } from '../e2e/cli-harness.js';

const temp = makeTempDir('code-cache');
afterAll(() => temp.remove());
let made = 0;

/** A bundle of two files in a directory of its own: the entry, and a part it requires on use. */
function makeBundle(id: string): string {
  const dir = join(temp.dir, `bundle-${made++}`);
  mkdirSync(dir);
  const functions = Array.from({ length: 60 }, (_, i) => `exports.f${i} = (x) => x * ${i};`).join('\n');
  writeFileSync(
    join(dir, 'platform-sync.cjs'),
    `${BUNDLE_ID_PREFIX}${id}\n${functions}\nexports.main = async () => require("./platform-sync-part-X1.cjs").g(2);\nexports.processIo = () => ({});\n`,
  );
  writeFileSync(join(dir, 'platform-sync-part-X1.cjs'), `exports.g = (x) => require("./platform-sync.cjs").f3(x);\n`);
  return join(dir, 'platform-sync.cjs');
}

/** A fresh process that loads `bundle` with the user's code cache as the bin does: what main answered, and each file's cache. */
function run(
  bundle: string,
  env: Record<string, string>,
  callMain = true,
): { answer: number; cache: Record<string, string> } {
  const script = `
    const { loadBundle, openCodeCache } = await import('./dist/src/cli/launch.js');
    const loaded = loadBundle(${JSON.stringify(bundle)}, undefined, openCodeCache());
    const answer = process.env.CALL_MAIN === '1' ? await loaded.cli.main([], loaded.cli.processIo()) : 0;
    process.stdout.write(JSON.stringify({ answer, cache: loaded.codeCache() }));
    loaded.saveCodeCache();`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    // Whether main is called is told by the environment: the script's text is in execArgv, which keys the cache.
    env: { PATH: process.env.PATH ?? '', ...env, CALL_MAIN: callMain ? '1' : '0' },
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { answer: number; cache: Record<string, string> };
}

/** A new cache directory, and the environment that names it. */
function cacheDir(): { dir: string; env: Record<string, string> } {
  const dir = join(temp.dir, `cache-${made++}`);
  return { dir, env: { PLATFORM_SYNC_CODE_CACHE_DIR: dir } };
}

/** The files in `dir` with their contents (nothing when there is no directory). */
const contents = (dir: string): Record<string, string> =>
  existsSync(dir)
    ? Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f)).toString('base64')]))
    : {};

const BOTH = (state: string) => ({ 'platform-sync.cjs': state, 'platform-sync-part-X1.cjs': state });

describe('the code cache', () => {
  it('a second process compiles every file with the cache the first wrote after its run, and writes nothing', () => {
    const bundle = makeBundle('1'.repeat(64));
    const { dir, env } = cacheDir();
    expect(run(bundle, env)).toEqual({ answer: 6, cache: BOTH('none') });
    // Made 0700, a file per bundle file, each 0600.
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const written = contents(dir);
    expect(Object.keys(written)).toHaveLength(2);
    for (const f of Object.keys(written)) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    expect(run(bundle, env)).toEqual({ answer: 6, cache: BOTH('used') });
    expect(contents(dir)).toEqual(written);
    // Another build (another id): files of its own, beside the first build's.
    const other = makeBundle('2'.repeat(64));
    expect(run(other, env).cache).toEqual(BOTH('none'));
    expect(Object.keys(contents(dir))).toHaveLength(4);
  });

  it('a cache made by a run that compiled fewer of the files is made again by one that compiles more, never by one that compiles fewer', () => {
    const bundle = makeBundle('b'.repeat(64));
    const { dir, env } = cacheDir();
    // The entry alone (as `--help` or `validate`), then the entry and its part (as a `plan`).
    expect(run(bundle, env, false)).toEqual({ answer: 0, cache: { 'platform-sync.cjs': 'none' } });
    const [entryCache] = readdirSync(dir);
    const first = readFileSync(join(dir, entryCache!));
    expect(run(bundle, env)).toEqual({
      answer: 6,
      cache: { 'platform-sync.cjs': 'used', 'platform-sync-part-X1.cjs': 'none' },
    });
    const second = readFileSync(join(dir, entryCache!));
    expect(second.equals(first)).toBe(false);
    expect(run(bundle, env)).toEqual({ answer: 6, cache: BOTH('used') });
    expect(run(bundle, env, false).cache).toEqual({ 'platform-sync.cjs': 'used' });
    expect(readFileSync(join(dir, entryCache!)).equals(second)).toBe(true);
  });

  it('a damaged, truncated, stale or rejected cache is not used, costs nothing but the compile, and is written again', () => {
    const bundle = makeBundle('3'.repeat(64));
    const { dir, env } = cacheDir();
    run(bundle, env);
    const [entryCache] = readdirSync(dir).filter((f) => f.includes('.platform-sync.cjs.'));
    const path = join(dir, entryCache!);
    const good = readFileSync(path);
    const damaged = Buffer.from(good);
    damaged[damaged.length - 100]! ^= 0xff;
    const damages: [string, Buffer, string][] = [
      ['a flipped byte', damaged, 'corrupt'],
      ['cut short', good.subarray(0, good.length - 10), 'corrupt'],
      [
        'another build',
        Buffer.from(good.toString('latin1').replace('3'.repeat(64), '4'.repeat(64)), 'latin1'),
        'stale',
      ],
      // (More kinds of damage, read in this process: the test of the store below.)
    ];
    for (const [what, data, state] of damages) {
      writeFileSync(path, data);
      expect(run(bundle, env).cache['platform-sync.cjs'], what).toBe(state);
      expect(readFileSync(path).length, what).toBeGreaterThan(1000);
      expect(run(bundle, env).cache['platform-sync.cjs'], what).toBe('used');
    }
    // Data that checks but is not V8's: V8 refuses it.
    const idLine = good.subarray(0, good.indexOf(0x0a) + 1);
    const notV8s = Buffer.from('not the data of this script');
    const digest = `crc32:${crc32(notV8s).toString(16).padStart(8, '0')} files:2\n`;
    writeFileSync(path, Buffer.concat([idLine, Buffer.from(digest), notV8s]));
    expect(run(bundle, env).cache['platform-sync.cjs']).toBe('rejected');
    expect(run(bundle, env).cache['platform-sync.cjs']).toBe('used');
    // Too large to read: as if there were none.
    truncateSync(path, MAX_CACHE_BYTES + 1);
    expect(run(bundle, env).cache['platform-sync.cjs']).toBe('none');
  });

  it('a directory that is a symlink, writable by others, or not the user’s, is never read or written', () => {
    const bundle = makeBundle('5'.repeat(64));
    const { dir, env } = cacheDir();
    run(bundle, env);
    const before = contents(dir);
    const link = join(temp.dir, `link-${made++}`);
    symlinkSync(dir, link);
    expect(openCodeCache({ PLATFORM_SYNC_CODE_CACHE_DIR: link })).toBeUndefined();
    expect(run(bundle, { PLATFORM_SYNC_CODE_CACHE_DIR: link }).cache).toEqual(BOTH('off'));
    for (const mode of [0o770, 0o702, 0o720]) {
      chmodSync(dir, mode);
      expect(openCodeCache(env), mode.toString(8)).toBeUndefined();
      expect(run(bundle, env).cache, mode.toString(8)).toEqual(BOTH('off'));
    }
    chmodSync(dir, 0o755);
    expect(run(bundle, env).cache).toEqual(BOTH('used'));
    // Nothing was written through the link or into the open directory (the files are the first run's).
    expect(contents(dir)).toEqual(before);
    if (process.getuid?.() === 0) {
      chownSync(dir, 65534, 65534);
      expect(openCodeCache(env)).toBeUndefined();
      expect(run(bundle, env).cache).toEqual(BOTH('off'));
    }
    expect(openCodeCache(env, { uid: 1234 })).toBeUndefined();
  });

  it('is off under NODE_DISABLE_COMPILE_CACHE, without a uid, for a relative directory, or one whose parent is missing', () => {
    const bundle = makeBundle('6'.repeat(64));
    const { dir, env } = cacheDir();
    expect(run(bundle, { ...env, NODE_DISABLE_COMPILE_CACHE: '1' }).cache).toEqual(BOTH('off'));
    expect(existsSync(dir)).toBe(false);
    expect(openCodeCache({ PLATFORM_SYNC_CODE_CACHE_DIR: 'relative/dir' })).toBeUndefined();
    expect(openCodeCache({ PLATFORM_SYNC_CODE_CACHE_DIR: join(dir, 'a', 'b') })).toBeUndefined();
    expect(openCodeCache(env, {})).toBeUndefined();
    expect(existsSync(dir)).toBe(false);
    expect(openCodeCache(env)?.dir).toBe(dir);
  });

  it('prunes, when it writes, its own files older than 30 days and all but the newest few, nothing else', () => {
    const { dir, env } = cacheDir();
    const store = openCodeCache(env)!;
    const old = new Date(Date.now() - 31 * 24 * 3600 * 1000);
    const recent = new Date(Date.now() - 24 * 3600 * 1000);
    store.write('7'.repeat(64), 'old.cjs', 'text', Buffer.from('x'), 1);
    const [oldFile] = readdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'not ours');
    // Names like ours but not ours (review of issue 61): a user's files in a directory they chose.
    writeFileSync(join(dir, '0123456789abcdef.my-report.tmp'), 'not ours either');
    writeFileSync(join(dir, '0123456789abcdef.report.v8cache'), 'nor this');
    writeFileSync(join(dir, `.${oldFile}.1-ab.tmp`), 'a temporary file left by a crash');
    // Written by a pre-release Node (its version has a suffix: review of issue 61).
    writeFileSync(join(dir, oldFile!.replace(/\.v\d+\.\d+\.\d+\./, '.v23.0.0-nightly20240101a1b2c3.')), 'ours');
    writeFileSync(join(dir, oldFile!.replace(/\.v\d+\.\d+\.\d+\./, '.v22.0.0-rc.1.')), 'ours');
    for (const f of readdirSync(dir)) utimesSync(join(dir, f), old, old);
    store.write('8'.repeat(64), 'first.cjs', 'text', Buffer.from('x'), 1);
    const others = ['0123456789abcdef.my-report.tmp', '0123456789abcdef.report.v8cache', 'notes.txt'];
    expect(
      readdirSync(dir)
        .filter((f) => !f.startsWith('8'))
        .sort(),
    ).toEqual(others);
    for (let i = 0; i < MAX_CACHE_FILES + 3; i++) store.write('8'.repeat(64), `f${i}.cjs`, 'text', Buffer.from('x'), 1);
    const ours = readdirSync(dir).filter((f) => !others.includes(f));
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(others));
    expect(ours).toHaveLength(MAX_CACHE_FILES);
    expect(ours.every((f) => f.startsWith('8'))).toBe(true);
    for (const f of ours) utimesSync(join(dir, f), recent, recent);
    store.write('9'.repeat(64), 'new.cjs', 'text', Buffer.from('x'), 1);
    expect(readdirSync(dir).filter((f) => f.startsWith('9'))).toHaveLength(1);
  });

  it('in this process: a cache reads back only for its build, file, text and flags; files and directory are private', () => {
    const { dir, env } = cacheDir();
    const store = openCodeCache(env)!;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const id = 'c'.repeat(64);
    const data = Buffer.from('v8 data of the script');
    store.write(id, 'platform-sync.cjs', 'the text', data, 2);
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    expect(store.read(id, 'platform-sync.cjs', 'the text')).toEqual({ state: 'none', data, files: 2 });
    expect(store.read(id, 'platform-sync.cjs', 'the texT').state).toBe('stale');
    expect(store.read('d'.repeat(64), 'platform-sync.cjs', 'the text')).toEqual({ state: 'none' });
    expect(store.read(id, 'platform-sync-part-X1.cjs', 'the text')).toEqual({ state: 'none' });
    // Damaged in place: never data.
    const [path] = readdirSync(dir).map((f) => join(dir, f));
    const good = readFileSync(path!);
    const lineEnd = good.indexOf(0x0a) + 1;
    const checkLine = good.subarray(lineEnd, good.indexOf(0x0a, lineEnd) + 1).toString('latin1');
    const flipped = Buffer.from(good);
    flipped[flipped.length - 1]! ^= 1;
    for (const damaged of [
      flipped,
      Buffer.alloc(0),
      Buffer.from('\x7fELF'),
      good.subarray(0, good.length - 1),
      good.subarray(0, lineEnd),
      Buffer.concat([good.subarray(0, lineEnd), Buffer.from(checkLine.replace('files:2', 'files:x'))]),
      Buffer.concat([good.subarray(0, lineEnd), Buffer.from(`#${checkLine}`), data]),
      Buffer.concat([good.subarray(0, lineEnd), Buffer.from(checkLine.replace('\n', ' \n')), data]),
    ]) {
      writeFileSync(path!, damaged);
      expect(store.read(id, 'platform-sync.cjs', 'the text').state).toBe('corrupt');
    }
    writeFileSync(path!, good);
    expect(store.read(id, 'platform-sync.cjs', 'the text').data).toEqual(data);
    // Other Node flags: a file of their own (V8 would refuse this one).
    const heap = openCodeCache({ ...env, NODE_OPTIONS: '--max-old-space-size=4096' })!;
    expect(heap.read(id, 'platform-sync.cjs', 'the text')).toEqual({ state: 'none' });
    // Off, or not a directory.
    expect(openCodeCache({ ...env, NODE_DISABLE_COMPILE_CACHE: '1' })).toBeUndefined();
    const file = join(temp.dir, `file-${made++}`);
    writeFileSync(file, 'a file');
    expect(openCodeCache({ PLATFORM_SYNC_CODE_CACHE_DIR: file })).toBeUndefined();
    // By default the user's directory in tmpdir; in CI none, unless one is asked for.
    const tmp = process.env.TMPDIR;
    try {
      process.env.TMPDIR = temp.dir;
      const own = join(temp.dir, `platform-sync-code-cache-${process.getuid?.()}`);
      expect(openCodeCache({ RUNNER_TEMP: dir })?.dir).toBe(own);
      expect(openCodeCache({})?.dir).toBe(own);
      for (const ci of ['false', '0', 'FALSE', '']) expect(openCodeCache({ CI: ci })?.dir, ci).toBe(own);
      for (const ci of [
        { CI: 'true' },
        { CI: '1' },
        { CI: 'yes' },
        { GITHUB_ACTIONS: 'true' },
        { GITHUB_ACTIONS: 'true', CI: 'true', RUNNER_TEMP: dir },
      ])
        expect(openCodeCache(ci), JSON.stringify(ci)).toBeUndefined();
      expect(openCodeCache({ CI: 'true', ...env })?.dir).toBe(dir);
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
  });

  it('a cache made from another text of the same length is not used: the file on disk runs (review of issue 61)', () => {
    const bundle = makeBundle('a'.repeat(64));
    const { env } = cacheDir();
    expect(run(bundle, env)).toEqual({ answer: 6, cache: BOTH('none') });
    // The part edited in place, its length and the bundle's id unchanged: f3 → f4.
    const part = join(bundle, '..', 'platform-sync-part-X1.cjs');
    const text = readFileSync(part, 'utf8');
    writeFileSync(part, text.replace('.f3(', '.f4('));
    expect(readFileSync(part, 'utf8')).toHaveLength(text.length);
    expect(run(bundle, env)).toEqual({
      answer: 8,
      cache: { 'platform-sync.cjs': 'used', 'platform-sync-part-X1.cjs': 'stale' },
    });
    expect(run(bundle, env)).toEqual({ answer: 8, cache: BOTH('used') });
  });

  it('is where it should be: never through a link spelt with a slash, nor relative', () => {
    const { dir } = cacheDir();
    mkdirSync(dir, { mode: 0o700 });
    const link = join(temp.dir, `link-${made++}`);
    symlinkSync(dir, link);
    expect(openCodeCache({ PLATFORM_SYNC_CODE_CACHE_DIR: `${link}/` })).toBeUndefined();
    expect(openCodeCache({ PLATFORM_SYNC_CODE_CACHE_DIR: `${dir}/` })?.dir).toBe(dir);
    const tmp = process.env.TMPDIR;
    try {
      process.env.TMPDIR = 'relative-tmp';
      expect(openCodeCache({})).toBeUndefined();
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
  });

  it('the bin writes the cache of a run and the next run compiles with it (the files stay as written); a run of no command writes none', () => {
    const { dir, env } = cacheDir();
    const bin = (args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
      });
    // A `--version` or a command's help compiles little of what commands run: its cache was kept
    // by every later `validate`, which compiles as many of the bundle's files (review of issue 61).
    expect(bin(['--version']).status).toBe(0);
    expect(bin(['validate', '--help']).status).toBe(0);
    expect(contents(dir)).toEqual({});
    expect(bin(['validate', ACME]).status).toBe(0);
    const written = contents(dir);
    expect(Object.keys(written).some((f) => f.includes('.platform-sync.cjs.'))).toBe(true);
    const times = Object.keys(written).map((f) => statSync(join(dir, f)).mtimeMs);
    expect(bin(['validate', ACME]).status).toBe(0);
    expect(contents(dir)).toEqual(written);
    expect(Object.keys(written).map((f) => statSync(join(dir, f)).mtimeMs)).toEqual(times);
  });
});
