/**
 * How bin/platform-sync loads the CLI: from its bundle (dist/platform-sync.cjs, made by
 * scripts/build-cli-bundle.ts, with the lazily loaded code in a second file beside it that it
 * requires on use), else (no bundle, or one older than the modules) from the modules in
 * dist/src. The bundle spares a cold run resolving and reading some 150 modules. The GitHub
 * Action (src/action/main.ts) loads its runner the same way, from a third file of the same build
 * ({@link ACTION_BUNDLE_FILE}), which the CLI never reads.
 *
 * The bundle's files are compiled here (a `vm.Script` each, with the CommonJS wrapper), not by
 * Node's loader, for V8's code cache: made at run time by the Node that runs the CLI, after the
 * command has run (so it holds the functions the run compiled, not only the top level), kept in
 * the user's own cache directory (src/io/code-cache.ts) under a name keyed by what V8 keys it to
 * — Node's version and arch, Node's flags — and by the bundle's id, and handed to the next run.
 * The cache the build made before (until issue 61) was refused on every other Node and under
 * `NODE_OPTIONS=--max-old-space-size`; this one is the runner's own. Figures on Node 20, 22 and 24,
 * warm and cold, in docs/performance.md ("Issue 61: a code cache made at run time"). No V8 flag:
 * the tiering budget set here before was a flag Node 22 and 24 do not know.
 */
import { readFileHeadSync, readTextSyncBounded } from '../io/read-file.js';
import type { CodeCacheState, CodeCacheStore } from '../io/code-cache.js';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import type { CliIo } from './context.js';

export { openCodeCache } from '../io/code-cache.js';

/** What the CLI entry (main.ts) exports, from whichever build it is loaded. */
export interface CliEntry {
  main(argv: string[], io: CliIo): Promise<number>;
  processIo(): CliIo;
}

/** The first line of a bundle: this prefix, then the sha256 of the text after the line. */
export const BUNDLE_ID_PREFIX = '// platform-sync CLI bundle ';

/** The file of the bundle that holds the Action's runner (src/action/run.ts and the modules only it imports). */
export const ACTION_BUNDLE_FILE = 'platform-sync-action.cjs';

/** The names the build gives the bundle's other files: `platform-sync-<name>[-<hash>].cjs`, beside it. */
export const BUNDLE_PART_FILE = /^platform-sync-[\w-]+\.cjs$/;

/** The CLI loaded from a bundle. */
export interface LoadedBundle {
  cli: CliEntry;
  /** Loads another file of the same build beside the bundle, by name (e.g. {@link ACTION_BUNDLE_FILE}). */
  part(name: string): unknown;
  /** What became of the code cache of each file loaded so far, by file name. */
  codeCache(): Record<string, CodeCacheState>;
  /**
   * Writes the code cache of each file loaded whose cache was not used: after the command has
   * run, so that it holds what the run compiled. Never fails; nothing without a cache directory.
   */
  saveCodeCache(): void;
}

/** The package's own files (the bundle, the entry module) are far below this. */
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

/** One file of the bundle as this process compiled it. */
interface CompiledFile {
  name: string;
  /** The text compiled (the file in its wrapper), which its cache is checked against (V8 checks only the length). */
  source: string;
  script: Script;
  /** What became of its code cache; a file whose cache was not `used` has one written after the run. */
  cache: CodeCacheState;
  /** With a cache: how many of the bundle's files the run that wrote it had compiled. */
  cachedFiles?: number | undefined;
  /** Whether its cache was written by this process. */
  saved?: boolean;
}

/**
 * Loads the CLI from `bundlePath`; undefined when there is no bundle, or when `entry` is not the
 * module it was made from (the modules were built again since, by `tsc` alone: the bundle would
 * run the code of the build before).
 *
 * The bundle's files are compiled here, not by Node's loader, so that each is compiled with its
 * code cache from `store` (the bin's and the Action's: {@link openCodeCache}; none without one)
 * and its cache can be written after the run. One registry of the files: the entry file, and every other file
 * ({@link BUNDLE_PART_FILE}) a file requires as `./<name>` or {@link LoadedBundle.part} names, is
 * evaluated once, and every file gets the same module (one `ApiError` class for all of them);
 * every other request (node:…, the packages left in node_modules) is Node's `require`.
 */
export function loadBundle(bundlePath: string, entry?: string, store?: CodeCacheStore): LoadedBundle | undefined {
  const head = readFileHeadSync(bundlePath, BUNDLE_ID_PREFIX.length + 65)?.toString('latin1');
  if (head === undefined || !head.startsWith(BUNDLE_ID_PREFIX) || !head.endsWith('\n')) return undefined;
  const id = head.slice(BUNDLE_ID_PREFIX.length, -1);
  // The build's hash (hex): it names the cache's files too.
  if (!/^[0-9a-f]{64}$/.test(id)) return undefined;
  if (entry !== undefined && !entryMatches(entry, id)) return undefined;
  const dir = dirname(bundlePath);
  const entryName = basename(bundlePath);
  const modules = new Map<string, { exports: unknown }>();
  const compiled: CompiledFile[] = [];
  const ownFile = (name: string): boolean => name === entryName || BUNDLE_PART_FILE.test(name);
  const load = (name: string): unknown => {
    const known = modules.get(name);
    if (known !== undefined) return known.exports;
    const path = join(dir, name);
    // The CommonJS wrapper, on the first line so that line numbers in stacks stay true. The cache
    // is checked against the very text compiled, wrapper included (review of issue 61).
    const file = readTextSyncBounded(path, { maxBytes: MAX_OWN_FILE_BYTES });
    const source = `(function (exports, require, module, __filename, __dirname) {${file}\n})`;
    const read = store?.read(id, name, source);
    const script = new Script(source, { filename: path, cachedData: read?.data });
    const cache: CodeCacheState =
      read === undefined
        ? 'off'
        : read.data === undefined
          ? read.state
          : script.cachedDataRejected
            ? 'rejected'
            : 'used';
    compiled.push({ name, source, script, cache, cachedFiles: read?.files });
    const module = { exports: {} as unknown };
    modules.set(name, module);
    const nodeRequire = createRequire(path);
    const require = Object.assign(
      (request: string): unknown =>
        request.startsWith('./') && ownFile(request.slice(2)) ? load(request.slice(2)) : nodeRequire(request),
      { resolve: nodeRequire.resolve, cache: nodeRequire.cache, main: nodeRequire.main },
    );
    try {
      (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, path, dir);
    } catch (err) {
      // As Node's loader: a file that threw is not a module (a second require runs it again).
      modules.delete(name);
      throw err;
    }
    return module.exports;
  };
  const cli = load(entryName) as CliEntry;
  return {
    cli,
    part(name) {
      if (!BUNDLE_PART_FILE.test(name)) throw new Error(`not a file of the bundle: ${name}`);
      return load(name);
    },
    codeCache: () => Object.fromEntries(compiled.map((f) => [f.name, f.cache])),
    saveCodeCache() {
      if (store === undefined) return;
      for (const file of compiled) {
        // A cache used is written again only by a run that compiled more of the bundle's files
        // than the one that wrote it (a `plan` after a `validate`): it holds more of what such runs
        // compile. Never less, so commands that alternate do not rewrite it each time. (A `--help`
        // writes none: the bin saves only after a command ran, CliIo `onCommand`.)
        if (file.saved || (file.cache === 'used' && (file.cachedFiles ?? 0) >= compiled.length)) continue;
        file.saved = true;
        try {
          // After the run: the data holds every function the run compiled, not only the top level.
          store.write(id, file.name, file.source, file.script.createCachedData(), compiled.length);
        } catch {
          // no cache this time: the next run compiles as this one did
        }
      }
    },
  };
}

/** What {@link exitWhenIdle} needs of the process (the process itself in the bin). */
export interface ExitingProcess {
  exitCode?: number | string | null | undefined;
  getActiveResourcesInfo(): string[];
  exit(code: number): never;
}

/**
 * Ends the process with `code` (what main answered) as soon as nothing is left to run: once the
 * promise jobs queued before it have run, no socket, server, timer, request or unfinished write
 * keeps the event loop alive, so Node would end now — but only after the background work V8 still
 * has in hand, optimising compiles of functions that will not run again and the tier-up of
 * undici's HTTP parser: ≈40–60 ms of wall and ≈60 ms of CPU after a 10k plan (docs/performance.md,
 * issue 61). While anything is active (a server, a terminal, a write still going) Node ends the
 * process as before, with `code` as its exit code; `exit` listeners run either way.
 */
export function exitWhenIdle(code: number, proc: ExitingProcess = process): void {
  proc.exitCode = code;
  setImmediate(() => {
    if (proc.getActiveResourcesInfo().length === 0) proc.exit(code);
  });
}
