import { describe, expect, it } from 'vitest';
import { compilerFlagsFor, SHORT_RUN_COMPILER_FLAGS } from '../../src/cli/launch.js';

describe('the V8 flags the CLI sets for a short run', () => {
  it('raises the tiering budget when the user set none', () => {
    expect(compilerFlagsFor([], undefined)).toBe(SHORT_RUN_COMPILER_FLAGS);
    expect(compilerFlagsFor(['--enable-source-maps'], '--max-old-space-size=4096')).toBe(SHORT_RUN_COMPILER_FLAGS);
  });

  it("leaves the budget the user gave, on the command line or in NODE_OPTIONS, alone", () => {
    expect(compilerFlagsFor(['--interrupt-budget=1000'], undefined)).toBeUndefined();
    expect(compilerFlagsFor([], '--trace-gc  --interrupt_budget=1000')).toBeUndefined();
    expect(compilerFlagsFor(['--interrupt-budget-factor-for-feedback-allocation=8'], undefined)).toBe(SHORT_RUN_COMPILER_FLAGS);
  });
});
