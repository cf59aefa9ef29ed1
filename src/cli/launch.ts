/**
 * How bin/platform-sync loads the CLI: from its bundle (dist/platform-sync.cjs, made by
 * scripts/build-cli-bundle.ts, with the lazily loaded code in a second file beside it that it
 * requires on use), else (no bundle, or one older than the modules) from the modules in
 * dist/src. The bundle spares a cold run resolving and reading some 150 modules. The GitHub
 * Action (src/action/main.ts) loads its runner the same way, from a third file of the same build
 * ({@link ACTION_BUNDLE_FILE}), which the CLI never reads.
 *
 * No V8 flag and no code cache of our own (issue 61): the tiering budget set here before was a
 * flag Node 22 and 24 do not know (V8 printed "unrecognized flag" on every run), and the code
 * cache was made by the build's Node, which V8 refuses on any other Node and under any
 * `NODE_OPTIONS` flag that changes its flag hash (`--max-old-space-size`); docs/performance.md
 * has the figures on Node 20, 22 and 24.
 */
import { readFileHeadSync, readTextSyncBounded } from '../io/read-file.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { CliIo } from './context.js';

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

/**
 * Loads the CLI from `bundlePath`; undefined when there is no bundle, or when `entry` is not the
 * module it was made from (the modules were built again since, by `tsc` alone: the bundle would
 * run the code of the build before).
 */
export function loadBundle(bundlePath: string, entry?: string): LoadedBundle | undefined {
  const head = readFileHeadSync(bundlePath, BUNDLE_ID_PREFIX.length + 65)?.toString('latin1');
  if (head === undefined || !head.startsWith(BUNDLE_ID_PREFIX) || !head.endsWith('\n')) return undefined;
  if (entry !== undefined && !entryMatches(entry, head.slice(BUNDLE_ID_PREFIX.length, -1))) return undefined;
  // Node's own loader, so that the lazy file's require of the bundle finds this very module.
  const load = createRequire(bundlePath);
  const cli = load(bundlePath) as CliEntry;
  const part = (name: string): unknown => {
    if (!BUNDLE_PART_FILE.test(name)) throw new Error(`not a file of the bundle: ${name}`);
    return load(join(dirname(bundlePath), name));
  };
  return { cli, part };
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
