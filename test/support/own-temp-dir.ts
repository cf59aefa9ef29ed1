/**
 * Tests clean up every directory they make (issue 60): the run gets a temporary directory of its
 * own (TMPDIR, set here before any worker starts, so that every `os.tmpdir()` of the run and of
 * every process it spawns is under it), and when the run ends, whatever is left in it is named
 * and fails the run — a leak is found by the test run that made it, never by a full disk later.
 * The processes of the CLI that tests spawn keep their code cache (src/io/code-cache.ts) in a
 * directory of the run too (PLATFORM_SYNC_CODE_CACHE_DIR), removed with it: not the user's.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CODE_CACHE = 'code-cache';

/**
 * For a CLI process spawned with an environment of its own (no TMPDIR): its code cache goes to
 * the run's directory, never the user's; outside a run, nowhere. Read in the workers, after setup.
 */
export const CODE_CACHE_ENV: Record<string, string> =
  process.env.PLATFORM_SYNC_CODE_CACHE_DIR === undefined
    ? { NODE_DISABLE_COMPILE_CACHE: '1' }
    : { PLATFORM_SYNC_CODE_CACHE_DIR: process.env.PLATFORM_SYNC_CODE_CACHE_DIR };

export default function setup(): () => void {
  const own = mkdtempSync(join(tmpdir(), 'platform-sync-test-run-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = own;
  process.env.PLATFORM_SYNC_CODE_CACHE_DIR = join(own, CODE_CACHE);
  return () => {
    const left = readdirSync(own).filter((name) => name !== CODE_CACHE);
    rmSync(own, { recursive: true, force: true });
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    delete process.env.PLATFORM_SYNC_CODE_CACHE_DIR;
    if (left.length > 0) {
      // Vitest reports an error thrown here but still exits 0: the exit code is set as well.
      process.exitCode = 1;
      throw new Error(
        `the test run left ${left.length} temporary entr${left.length === 1 ? 'y' : 'ies'} behind (a test that does not remove what it made): ${left.slice(0, 10).join(', ')}`,
      );
    }
  };
}
