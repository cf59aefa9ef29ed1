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
    const errors = (resetRate: number) =>
      sequence(new FaultInjector({ seed: 9, errorRate: 0.2, resetRate }, () => 0), 100).map(
        (d) => d.action === 'error',
      );
    expect(errors(0.5)).toEqual(errors(0));
  });

  it('adds 500s (before or after applying) and short pages without changing what a seed gave before', () => {
    const base = { seed: 9, errorRate: 0.2, resetRate: 0.2 };
    const withNew = sequence(new FaultInjector({ ...base, internalErrorRate: 0.3, shortPageRate: 0.5 }, () => 0), 300);
    const without = sequence(new FaultInjector(base, () => 0), 300);
    // 503s and delays are exactly the same requests as without the new faults.
    expect(withNew.map((d) => d.action === 'error')).toEqual(without.map((d) => d.action === 'error'));
    expect(withNew.map((d) => d.delayMs)).toEqual(without.map((d) => d.delayMs));
    expect(without.every((d) => d.shortPage === undefined)).toBe(true);
    const actions = new Set(withNew.map((d) => d.action));
    expect(actions).toContain('internal-before');
    expect(actions).toContain('internal-after');
    const short = withNew.filter((d) => d.shortPage !== undefined);
    expect(short.length).toBeGreaterThan(100);
    expect(short.length).toBeLessThan(200);
    expect(short.every((d) => d.shortPage! >= 0 && d.shortPage! < 1)).toBe(true);
    expect(sequence(new FaultInjector({ ...base, internalErrorRate: 0.3, shortPageRate: 0.5 }, () => 0), 300)).toEqual(
      withNew,
    );
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
    expect(() => new FaultInjector({ internalErrorRate: 1.5 }, () => 0)).toThrow(
      /internalErrorRate must be between 0 and 1/,
    );
    expect(() => new FaultInjector({ shortPageRate: -1 }, () => 0)).toThrow(/shortPageRate must be between 0 and 1/);
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
