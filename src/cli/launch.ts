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
import { createHash } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import { readFileSyncBounded, readTextSyncBounded } from '../io/read-file.js';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { setFlagsFromString } from 'node:v8';
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
  /** `used`: V8 took the cache; `rejected`: V8 refused it; `stale`: made from another text; `corrupt`: its data does not match its digest (never given to V8); `none`: no cache file. */
  cache: 'used' | 'rejected' | 'stale' | 'corrupt' | 'none';
  /** Writes the code cache of everything compiled so far (after a representative run). */
  writeCache(): void;
}

/** The package's own files (the bundle, its cache, the entry module) are far below this. */
const MAX_OWN_FILE_BYTES = 256 * 1024 * 1024;

/** The line the build adds to the entry module (dist/src/cli/main.js) naming the bundle made from it. */
export const ENTRY_MARK_PREFIX = '//# platform-sync-bundle ';

/**
 * Whether `entry` is the module the bundle was made from: the build marks it with the bundle's
 * id, and `tsc` writing the modules again drops the mark. By content, not by file times (an
 * install gives every file the time it likes).
 */
function entryMatches(entry: string, id: string): boolean {
  try {
    return readTextSyncBounded(entry, { maxBytes: MAX_OWN_FILE_BYTES }).includes(`${ENTRY_MARK_PREFIX}${id}\n`);
  } catch {
    return false;
  }
}

/**
 * V8's tiering budget for a run of the CLI: six times its default (66 KiB of bytecode run before
 * a function is optimised, in Node 20's V8). The default suits a page or a server that runs for
 * hours; a `plan` lives a second or two, and at the default V8 optimises some 115–130 functions
 * of a 10,000-resource plan on its helper thread (≈0.5 s of compiling, 10–18 deoptimisations),
 * most of which finish before the optimised code pays back. At six times: 42 functions (≈160 ms),
 * 3–4 deoptimisations. Against the floor (docs/performance.md, 20 runs interleaved): four times
 * 1.62× CPU / 1.38× wall, six times 1.52–1.55× / 1.34×, eight times 1.52× / 1.38× (fewer
 * compiles, but more of the plan runs unoptimised); at 100,000 resources six and eight are even.
 */
export const SHORT_RUN_COMPILER_FLAGS = '--interrupt-budget=405504';

/**
 * The V8 flags the CLI sets for itself: none when the user gave the budget on node's command line
 * (`node --interrupt-budget=… bin/platform-sync`); theirs wins. (Node refuses V8 flags such as
 * this one in NODE_OPTIONS, so the command line is the only place a user can give it.)
 */
export function compilerFlagsFor(execArgv: readonly string[]): string | undefined {
  return execArgv.some((arg) => /^--interrupt[-_]budget(=|$)/.test(arg)) ? undefined : SHORT_RUN_COMPILER_FLAGS;
}

/** Sets this process's flags for a short run (compilerFlagsFor), before what they concern compiles. */
export function useShortRunCompilerFlags(): void {
  const flags = compilerFlagsFor(process.execArgv);
  if (flags !== undefined) setFlagsFromString(flags);
}

/**
 * Loads the CLI from `bundlePath` (and `<bundlePath>.cache`); undefined when there is no bundle,
 * or when `entry` is not the module it was made from (the modules were built again since, by
 * `tsc` alone: the bundle would run the code of the build before).
 *
 * The cache file is the bundle's id line, `sha256:<hex>` of the data, then V8's data: V8 does not
 * checksum a cache (a damaged one can abort it), so a cache whose data does not match its digest
 * is never handed to V8.
 */
export function loadBundle(bundlePath: string, entry?: string): LoadedBundle | undefined {
  // Before anything of the CLI compiles, and in every process that loads the bundle (V8 keys its
  // cache to its flags: the run that writes the cache and the runs that read it must agree).
  useShortRunCompilerFlags();
  let source: string;
  try {
    source = readTextSyncBounded(bundlePath, { maxBytes: MAX_OWN_FILE_BYTES });
  } catch {
    return undefined;
  }
  const newline = source.indexOf('\n');
  const idLine = source.slice(0, newline + 1);
  if (newline < 0 || !idLine.startsWith(BUNDLE_ID_PREFIX)) return undefined;
  if (entry !== undefined && !entryMatches(entry, idLine.slice(BUNDLE_ID_PREFIX.length, -1))) return undefined;
  const cachePath = `${bundlePath}.cache`;
  const header = Buffer.from(idLine, 'utf8');
  let cache: LoadedBundle['cache'] = 'none';
  let cachedData: Buffer | undefined;
  try {
    const file = readFileSyncBounded(cachePath, { maxBytes: MAX_OWN_FILE_BYTES });
    if (!file.subarray(0, header.length).equals(header)) cache = 'stale';
    else {
      const rest = file.subarray(header.length);
      const end = rest.indexOf(0x0a);
      const digest = end < 0 ? '' : rest.subarray(0, end).toString('latin1');
      const data = rest.subarray(end + 1);
      if (end >= 0 && digest === `sha256:${createHash('sha256').update(data).digest('hex')}`) cachedData = data;
      else cache = 'corrupt';
    }
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
    writeCache: () => {
      // Written beside and renamed over: a reader never sees half a cache.
      const data = script.createCachedData();
      const temp = `${cachePath}.${process.pid}.tmp`;
      writeFileSync(temp, Buffer.concat([header, Buffer.from(`sha256:${createHash('sha256').update(data).digest('hex')}\n`, 'latin1'), data]));
      renameSync(temp, cachePath);
    },
  };
}
