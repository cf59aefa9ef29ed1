/**
 * The bin's loader (src/cli/launch.ts): a bundle is run with its code cache only when the cache
 * was made from exactly its text; a missing, stale or corrupt cache is compiled past, never a
 * failure; no bundle means the modules in dist/src. What V8 does with a cache shows only in a
 * fresh process (within one, a text compiled before comes from V8's own in-memory cache), so
 * those loads run in one, through dist/ (built by `npm test`).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUNDLE_ID_PREFIX, ENTRY_MARK_PREFIX, loadBundle } from '../../src/cli/launch.js';
import { createHash } from 'node:crypto';

const dir = mkdtempSync(join(tmpdir(), 'ps-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle that exports main/processIo like the CLI's, and says where it runs from. */
function writeBundle(file: string, id: string, answer: number): void {
  const body = [
    `exports.main = async () => ${answer};`,
    'exports.processIo = () => ({ where: __filename, dir: __dirname, canRequire: typeof require("node:path").join });',
    // enough functions for a cache worth the name
    ...Array.from({ length: 50 }, (_, i) => `exports.f${i} = (x) => x * ${i} + ${answer};`),
  ].join('\n');
  writeFileSync(file, `${BUNDLE_ID_PREFIX}${id}\n${body}\n`);
}

/** Loads `file` in a fresh process: what became of its cache, and what its main answers. */
function loadFresh(file: string): { cache: string; answer: number } {
  const script = `
    const { loadBundle } = await import('./dist/src/cli/launch.js');
    const loaded = loadBundle(${JSON.stringify(file)});
    console.log(JSON.stringify({ cache: loaded.cache, answer: await loaded.cli.main([], loaded.cli.processIo()) }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { cache: string; answer: number };
}

describe('loadBundle', () => {
  it('is undefined without a bundle, or for a file that is not one', () => {
    expect(loadBundle(join(dir, 'missing.cjs'))).toBeUndefined();
    const other = join(dir, 'other.cjs');
    writeFileSync(other, 'exports.main = 1;\n');
    expect(loadBundle(other)).toBeUndefined();
  });

  it('is used only while the entry module is the one it was made from (by content: file times do not matter)', () => {
    const file = join(dir, 'older.cjs');
    const entry = join(dir, 'main.js');
    writeBundle(file, 'd'.repeat(64), 3);
    // Built by `tsc` alone after the bundle: the entry carries no mark of it.
    writeFileSync(entry, 'export {};\n');
    expect(loadBundle(file, entry)).toBeUndefined();
    writeFileSync(entry, `export {};\n${ENTRY_MARK_PREFIX}${'e'.repeat(64)}\n`);
    expect(loadBundle(file, entry)).toBeUndefined();
    // Marked with this bundle's id: used, even when the entry looks newer (as after an install).
    writeFileSync(entry, `export {};\n${ENTRY_MARK_PREFIX}${'d'.repeat(64)}\n//# sourceMappingURL=main.js.map\n`);
    utimesSync(file, new Date(2026, 0, 1), new Date(2026, 0, 1));
    utimesSync(entry, new Date(2026, 0, 2), new Date(2026, 0, 2));
    expect(loadBundle(file, entry)?.cli).toBeDefined();
  });

  it('runs the bundle as a CommonJS module, then with the cache it wrote', async () => {
    const file = join(dir, 'cli.cjs');
    writeBundle(file, 'a'.repeat(64), 7);
    const first = loadBundle(file)!;
    expect(first.cache).toBe('none');
    expect(await first.cli.main([], first.cli.processIo())).toBe(7);
    expect(first.cli.processIo()).toEqual({ where: file, dir, canRequire: 'function' });
    first.writeCache();
    expect(readFileSync(`${file}.cache`).subarray(0, BUNDLE_ID_PREFIX.length).toString()).toBe(BUNDLE_ID_PREFIX);

    expect(loadFresh(file)).toEqual({ cache: 'used', answer: 7 });
  });

  it('compiles past a cache made from another text, or one V8 refuses', async () => {
    const file = join(dir, 'changed.cjs');
    writeBundle(file, 'b'.repeat(64), 1);
    loadBundle(file)!.writeCache();
    // Rebuilt: another id, a cache of the old text beside it.
    writeBundle(file, 'c'.repeat(64), 2);
    const stale = loadBundle(file)!;
    expect(stale.cache).toBe('stale');
    expect(await stale.cli.main([], stale.cli.processIo())).toBe(2);

    // The right id and digest, but data V8 refuses.
    const header = Buffer.from(`${BUNDLE_ID_PREFIX}${'c'.repeat(64)}\n`);
    const junk = Buffer.from('not a V8 code cache at all, but long enough to be read as one');
    const digest = Buffer.from(`sha256:${createHash('sha256').update(junk).digest('hex')}\n`);
    writeFileSync(`${file}.cache`, Buffer.concat([header, digest, junk]));
    expect(loadFresh(file)).toEqual({ cache: 'rejected', answer: 2 });
  });

  it('never hands V8 a cache whose bytes were flipped (V8 does not checksum caches: it could abort)', async () => {
    const file = join(dir, 'flipped.cjs');
    writeBundle(file, 'f'.repeat(64), 5);
    loadBundle(file)!.writeCache();
    expect(loadFresh(file)).toEqual({ cache: 'used', answer: 5 });
    const good = readFileSync(`${file}.cache`);
    const headerLength = good.indexOf(0x0a, good.indexOf(0x0a) + 1) + 1;
    for (const at of [headerLength + 3, headerLength + 40, Math.floor((headerLength + good.length) / 2), good.length - 2]) {
      const flipped = Buffer.from(good);
      flipped[at] = flipped[at]! ^ 0xff;
      writeFileSync(`${file}.cache`, flipped);
      expect(loadFresh(file), `byte ${at}`).toEqual({ cache: 'corrupt', answer: 5 });
    }
  });
});
