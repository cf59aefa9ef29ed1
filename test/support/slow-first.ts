/**
 * The order test files start in (issue 63: a suite in a minute): the ones that take longest — most
 * of them wait on processes — first, so that two workers finish together instead of one waiting
 * on the last long file; the rest by size, largest first. The same on every machine: a fresh
 * clone has no timings of its own, and a shared cache's are someone else's.
 */
import { statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first, as measured on a quiet machine (Dec 5, 01:19; docs/development.md, "How long npm test takes"). */
export const SLOW_FILES = [
  'test/e2e/apply.test.ts',
  'test/e2e/starter-workflow.test.ts',
  'test/e2e/nightly-adopt.test.ts',
  'test/invariants/invariants.test.ts',
  'test/integration/apply-faults.test.ts',
  'test/e2e/installed-package.test.ts',
  'test/unit/fast-yaml.test.ts',
  'test/integration/emulator-lock.test.ts',
  'test/invariants/contract-fuzz.test.ts',
  'test/e2e/embedded.test.ts',
  'test/unit/plan-generated.test.ts',
  'test/integration/client-faults.test.ts',
  'test/e2e/action-bundle.test.ts',
  'test/e2e/access-patterns.test.ts',
  'test/e2e/access-principals.test.ts',
  'test/e2e/redaction-property.test.ts',
  'test/invariants/regressions-3.test.ts',
  'test/integration/field-experiment.test.ts',
];

/**
 * `files` by the index of the first entry of `list` their path matches (`matches`; none: after
 * them all), then by size — largest first, or smallest — then by path.
 */
export function orderFiles(
  files: readonly TestSpecification[],
  list: readonly string[],
  matches: (path: string, entry: string) => boolean,
  largestFirst: boolean,
): TestSpecification[] {
  const rank = new Map(
    files.map((f) => {
      const i = list.findIndex((entry) => matches(f.moduleId, entry));
      return [f, i < 0 ? list.length : i];
    }),
  );
  const size = new Map(files.map((f) => [f, statSync(f.moduleId).size * (largestFirst ? -1 : 1)]));
  return [...files].sort(
    (a, b) => rank.get(a)! - rank.get(b)! || size.get(a)! - size.get(b)! || (a.moduleId < b.moduleId ? -1 : 1),
  );
}

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return orderFiles(files, SLOW_FILES, (path, entry) => path.endsWith(entry), true);
  }
}
