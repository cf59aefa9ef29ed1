/** Fault decisions: seeded sequences and the rate-limit bucket (pure, injected clock). */
import { describe, expect, it } from 'vitest';
import { FaultInjector } from '../../src/emulator/faults.js';
import { generateHex, createSeededRandom } from '../../src/emulator/prng.js';

const sequence = (f: FaultInjector, n: number) => Array.from({ length: n }, () => f.decide());

describe('FaultInjector', () => {
  it('repeats the same decisions for the same seed, whatever the outcome', () => {
    const opts = { seed: 5, errorRate: 0.3, resetRate: 0.3, jitterMs: 10 };
    const a = sequence(new FaultInjector(opts, () => 0), 200);
    const b = sequence(new FaultInjector(opts, () => 0), 200);
    expect(b).toEqual(a);
    const actions = new Set(a.map((d) => d.action));
    expect(actions).toEqual(new Set(['none', 'error', 'reset-before', 'reset-after']));
    expect(sequence(new FaultInjector({ ...opts, seed: 6 }, () => 0), 200)).not.toEqual(a);
  });

  it('keeps the error sequence when only the reset rate changes (fixed draws per request)', () => {
    const errors = (resetRate: number) => sequence(new FaultInjector({ seed: 9, errorRate: 0.2, resetRate }, () => 0), 100).map((d) => d.action === 'error');
    expect(errors(0.5)).toEqual(errors(0));
  });

  it('limits to the configured rate with a one-second burst', () => {
    let now = 0;
    const f = new FaultInjector({ rateLimit: 2 }, () => now);
    expect(sequence(f, 3).map((d) => d.action)).toEqual(['none', 'none', 'ratelimit']);
    now = 500;
    expect(sequence(f, 2).map((d) => d.action)).toEqual(['none', 'ratelimit']);
    now = 10_000;
    expect(sequence(f, 3).map((d) => d.action)).toEqual(['none', 'none', 'ratelimit']);
  });

  it('rejects out-of-range settings', () => {
    expect(() => new FaultInjector({ resetRate: -0.1 }, () => 0)).toThrow(/resetRate/);
    expect(() => new FaultInjector({ latencyMs: Number.NaN }, () => 0)).toThrow(/latencyMs/);
  });
});

describe('generateHex', () => {
  it('is reproducible when seeded and always lowercase hex of the asked length', () => {
    const a = generateHex(40, createSeededRandom(1));
    expect(a).toMatch(/^[0-9a-f]{40}$/);
    expect(generateHex(40, createSeededRandom(1))).toBe(a);
    expect(generateHex(16)).toMatch(/^[0-9a-f]{16}$/);
  });
});
