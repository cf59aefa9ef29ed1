import { defineConfig } from 'vitest/config';
import { generatedValidatorPatterns } from './test/support/generated-validators.js';
import SlowFirst from './test/support/slow-first.js';

export default defineConfig({
  test: {
    // The generated validators are loaded by Node, not rewritten by vite (test/support/generated-validators.ts).
    server: { deps: { external: generatedValidatorPatterns() } },
    include: ['test/**/*.test.ts'],
    // The example org's identity provider reads its client secret from the environment.
    setupFiles: ['test/support/example-secrets.ts', 'test/support/strict-emulator.ts', 'test/support/temp-dirs.ts'],
    // One rotating seed for every property and fuzz run, printed (INVARIANT_SEED replays it).
    // …and one temporary directory for the run, which must be empty when it ends (own-temp-dir.ts).
    globalSetup: ['test/support/rotating-seed.ts', 'test/support/own-temp-dir.ts'],
    // Guards against a hang, never a bound a loaded machine trips (issue 63): a test that finishes
    // in a second here has taken half a minute at a load of 15.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The machines are shared and have 2 cores: keep workers few so timing-sensitive
    // fault tests (latency, rate limits) are not starved.
    maxWorkers: 2,
    // Worker threads, not child processes: the same tests for less CPU (issue 63, about 15% of the
    // suite's own time; measured under load). No test changes the process's directory, signals or
    // exit; a spawned CLI inherits the thread's environment as it would the process's.
    pool: 'threads',
    // The longest files first, the same order on every machine (test/support/slow-first.ts).
    sequence: { sequencer: SlowFirst },
    // Test files share a worker's modules instead of loading the whole graph again per file
    // (which was a third of npm test's time). No test stubs modules, globals or the environment
    // of the process; module-level state is caches only.
    isolate: false,
  },
});
