/**
 * The order test files start in for a mutation run (vitest.mutate.config.ts): the quickest kinds
 * first — unit, then integration, invariants, end-to-end — and within a kind the smallest file
 * first. Stryker runs, for each mutant, the files of the tests that reached it and stops at the
 * first failure (`bail`), so a mutant a unit test kills is killed before any slow file starts;
 * npm test's slowest-first order (slow-first.ts) made every such mutant wait on the slow files.
 */
import { statSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const KINDS = ['/test/unit/', '/test/integration/', '/test/invariants/', '/test/e2e/'];

export default class FastFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const kind = (f: TestSpecification): number => {
      const i = KINDS.findIndex((k) => f.moduleId.includes(k));
      return i < 0 ? KINDS.length : i;
    };
    const size = new Map(files.map((f) => [f, statSync(f.moduleId).size]));
    return [...files].sort(
      (a, b) => kind(a) - kind(b) || size.get(a)! - size.get(b)! || (a.moduleId < b.moduleId ? -1 : 1),
    );
  }
}
