/**
 * The invariant suite (I1–I8 and justified refusals, see check-case.ts) over generated orgs: seeded and deterministic
 * (INVARIANT_SEED), INVARIANT_RUNS cases (15 by default, CI adds 300; `npm run test:deep` runs thousands).
 * A failure prints the seed and fast-check's shrunk counterexample (INVARIANT_SHRINK=1 shrinks);
 * each one found becomes a named case in regressions.test.ts.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { caseArb, checkCase, Harness, ruleStats, RULES_UNKNOWN, RUNS, SEED } from './check-case.js';

/** Derived from the case count (issue 47): a case takes well under a second, a loaded machine several times that. */
const CASE_TIMEOUT_MS = 120_000 + RUNS * 2_000;

describe('invariants over generated orgs (I1–I8)', () => {
  const h = new Harness();
  beforeAll(() => h.start());
  afterAll(async () => {
    await h.stop();
    // How the access rules went (R1): judged, broken, and where DESIGN's two readings disagreed (either answer taken).
    if (RULES_UNKNOWN === undefined)
      process.stdout.write(
        `access rules (R1): ${ruleStats.judged} judged, ${ruleStats.broken} broken (${ruleStats.byEscalation} by escalation alone), ${ruleStats.either} either way\n`,
      );
  });

  // R1 needs the product to know org.accessRules (issue 59); asked of validate, so it turns on by itself once it does.
  if (RULES_UNKNOWN !== undefined)
    it.skip(`access rules (R1) are not judged: the product does not know org.accessRules yet (validate: ${RULES_UNKNOWN})`, () => {});

  it(
    `hold for ${RUNS} generated cases (seed ${SEED})`,
    async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, (c) => checkCase(h, c)),
        { numRuns: RUNS, seed: SEED, endOnFailure: process.env.INVARIANT_SHRINK !== '1', verbose: 1 },
      );
    },
    CASE_TIMEOUT_MS,
  );
});
