/**
 * The one test emulator (issue 47): every emulator a test starts — `startEmulator()` in process,
 * `--emulator` through the CLI, `platform-sync emulator` spawned, the demo — checks its answers
 * against its contract, because the test run sets PLATFORM_SYNC_EMULATOR_STRICT=1 (here for
 * every worker, and so for every process a test spawns). And a 500 that no fault injected — a
 * bug in a handler, an answer that breaks the contract — fails the test that caused it, after
 * the test, whatever the test expected: the contract allows no 500 to any request. A test that
 * makes one on purpose takes it itself (takeInternalErrors).
 */
import { afterEach } from 'vitest';
import { takeInternalErrors } from '../../src/emulator/index.js';

process.env.PLATFORM_SYNC_EMULATOR_STRICT = '1';

afterEach(() => {
  const errors = takeInternalErrors();
  if (errors.length > 0)
    throw new Error(
      `the emulator answered 500 to ${errors.length} request${errors.length === 1 ? '' : 's'} the contract allows (a bug in a handler, or an answer that breaks the contract):\n${errors.slice(0, 5).join('\n')}`,
    );
});
