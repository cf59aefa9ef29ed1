/**
 * The order test files start in (issue 63: a suite in a minute): the ones that take longest — most
 * of them wait on processes — first, so that two workers finish together instead of one waiting
 * on the last long file; the rest by size, largest first. The same on every machine: a fresh
 * clone has no timings of its own, and a shared cache's are someone else's.
 */
import { statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Longest first, measured (docs/development.md, "How long npm test takes"). */
export const SLOW_FILES = [
  'test/invariants/invariants.test.ts',
  'test/e2e/starter-workflow.test.ts',
  'test/e2e/installed-package.test.ts',
  'test/e2e/apply.test.ts',
  'test/e2e/nightly-adopt.test.ts',
  'test/unit/fast-yaml.test.ts',
  'test/invariants/contract-fuzz.test.ts',
  'test/e2e/embedded.test.ts',
  'test/integration/field-experiment.test.ts',
  'test/e2e/redaction-property.test.ts',
  'test/unit/plan-generated.test.ts',
  'test/invariants/regressions-3.test.ts',
];

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => {
      const i = SLOW_FILES.findIndex((s) => f.moduleId.endsWith(s));
      return i < 0 ? SLOW_FILES.length : i;
    };
    const size = new Map(files.map((f) => [f, statSync(f.moduleId).size]));
    return [...files].sort((a, b) => rank(a) - rank(b) || size.get(b)! - size.get(a)!);
  }
}
