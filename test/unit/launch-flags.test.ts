import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { compilerFlagsFor, SHORT_RUN_COMPILER_FLAGS } from '../../src/cli/launch.js';

describe('the V8 flags the CLI sets for a short run', () => {
  it('raises the tiering budget when the user gave none', () => {
    expect(compilerFlagsFor([])).toBe(SHORT_RUN_COMPILER_FLAGS);
    expect(compilerFlagsFor(['--enable-source-maps', '--max-old-space-size=4096'])).toBe(SHORT_RUN_COMPILER_FLAGS);
    expect(compilerFlagsFor(['--interrupt-budget-factor-for-feedback-allocation=8'])).toBe(SHORT_RUN_COMPILER_FLAGS);
  });

  it("leaves the budget the user gave on node's command line alone", () => {
    expect(compilerFlagsFor(['--interrupt-budget=1000'])).toBeUndefined();
    expect(compilerFlagsFor(['--trace-gc', '--interrupt_budget=1000'])).toBeUndefined();
  });

  it('is a flag this Node takes (an unknown one would be ignored without a word)', () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    const name = SHORT_RUN_COMPILER_FLAGS.slice(0, SHORT_RUN_COMPILER_FLAGS.indexOf('='));
    expect(options).toContain(`  ${name} `);
  });
});
