/**
 * The order test files start in for a mutation run (vitest.mutate.config.ts): the quickest kinds
 * first — unit, then integration, invariants, end-to-end — and within a kind the smallest file
 * first. Stryker runs, for each mutant, the files of the tests that reached it and stops at the
 * first failure (`bail`), so a mutant a unit test kills is killed before any slow file starts;
 * npm test's slowest-first order (slow-first.ts) made every such mutant wait on the slow files.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { orderFiles } from './slow-first.js';

const KINDS = ['/test/unit/', '/test/integration/', '/test/invariants/', '/test/e2e/'];

export default class FastFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return orderFiles(files, KINDS, (path, kind) => path.includes(kind), false);
  }
}
