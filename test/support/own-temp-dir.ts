/**
 * Tests clean up every directory they make (issue 60): the run gets a temporary directory of its
 * own (TMPDIR, set here before any worker starts, so that every `os.tmpdir()` of the run and of
 * every process it spawns is under it), and when the run ends, whatever is left in it is named
 * and fails the run — a leak is found by the test run that made it, never by a full disk later.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const own = mkdtempSync(join(tmpdir(), 'platform-sync-test-run-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = own;
  return () => {
    const left = readdirSync(own);
    rmSync(own, { recursive: true, force: true });
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    if (left.length > 0) {
      // Vitest reports an error thrown here but still exits 0: the exit code is set as well.
      process.exitCode = 1;
      throw new Error(
        `the test run left ${left.length} temporary entr${left.length === 1 ? 'y' : 'ies'} behind (a test that does not remove what it made): ${left.slice(0, 10).join(', ')}`,
      );
    }
  };
}
