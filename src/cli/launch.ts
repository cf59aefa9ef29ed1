/**
 * How bin/platform-sync loads the CLI: from its single-file build (dist/platform-sync.cjs,
 * made by scripts/build-cli-bundle.ts) with V8's code cache beside it, else (no bundle, or one
 * older than the modules) from the modules in dist/src. Node 20 has no compile cache of its own
 * (`module.enableCompileCache` came in 22), and a cold `plan` otherwise spends ≈50 ms resolving,
 * reading and compiling some 150 modules (`npm run bench plan-process`: a plan of the
 * 10,000-resource org, 545 → 495 ms).
 *
 * The cache is only a shortcut: the bundle's first line names a hash of its text, and a cache
 * is used only when it was made from exactly that text (V8 itself checks its version and
 * flags, and rejects a cache made by another Node). A missing, stale or rejected cache costs
 * the compile it would have saved, never a failure; nothing here writes unless asked to.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';
import type { CliIo } from './context.js';

/** What the CLI entry (main.ts) exports, from whichever build it is loaded. */
export interface CliEntry {
  main(argv: string[], io: CliIo): Promise<number>;
  processIo(): CliIo;
}

/** The first line of a bundle: this prefix, then the sha256 of the text after the line. */
export const BUNDLE_ID_PREFIX = '// platform-sync CLI bundle ';

/** The CLI loaded from a bundle, and what became of its code cache. */
export interface LoadedBundle {
  cli: CliEntry;
  /** `used`: V8 took the cache; `rejected`: V8 refused it; `stale`: made from another text; `none`: no cache file. */
  cache: 'used' | 'rejected' | 'stale' | 'none';
  /** Writes the code cache of everything compiled so far (after a representative run). */
  writeCache(): void;
}

/**
 * Loads the CLI from `bundlePath` (and `<bundlePath>.cache`); undefined when there is no bundle,
 * or when it is older than `entry` (the modules were built again since, by `tsc` alone: the
 * bundle would run the code of the build before).
 */
export function loadBundle(bundlePath: string, entry?: string): LoadedBundle | undefined {
  let source: string;
  try {
    if (entry !== undefined && statSync(bundlePath).mtimeMs < statSync(entry).mtimeMs) return undefined;
    source = readFileSync(bundlePath, 'utf8');
  } catch {
    return undefined;
  }
  const newline = source.indexOf('\n');
  const idLine = source.slice(0, newline + 1);
  if (newline < 0 || !idLine.startsWith(BUNDLE_ID_PREFIX)) return undefined;
  const cachePath = `${bundlePath}.cache`;
  const header = Buffer.from(idLine, 'utf8');
  let cache: LoadedBundle['cache'] = 'none';
  let cachedData: Buffer | undefined;
  try {
    const file = readFileSync(cachePath);
    if (file.subarray(0, header.length).equals(header)) cachedData = file.subarray(header.length);
    else cache = 'stale';
  } catch {
    // no cache: compiled as usual
  }
  // The CommonJS wrapper, on the same line as the id so that line numbers in stacks stay true.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundlePath, cachedData });
  if (cachedData) cache = script.cachedDataRejected === true ? 'rejected' : 'used';
  const module = { exports: {} as CliEntry };
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(bundlePath), module, bundlePath, dirname(bundlePath));
  return {
    cli: module.exports,
    cache,
    writeCache: () => writeFileSync(cachePath, Buffer.concat([header, script.createCachedData()])),
  };
}
