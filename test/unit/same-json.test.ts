/**
 * sameJson (the planner's comparison of object fields) agrees with comparing canonicalJson
 * texts, which it replaces: over seeded random values, their reorderings and near misses; and
 * copies of JSON from outside keep a "__proto__" key as data.
 */
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/emulator/prng.js';
import { canonicalJson, copyValue, sameJson } from '../../src/model/kind-descriptor.js';
import { compactRelationship } from '../../src/model/identity-relationships.js';

describe('sameJson', () => {
  it('agrees with canonicalJson on random values, reordered copies and near misses', () => {
    const r = createSeededRandom(7);
    const leaf = () =>
      [null, true, false, 0, -0, 1, 1.5, NaN, Infinity, '', 'a', 'b', '1', undefined][Math.floor(r() * 14)];
    const value = (depth: number): unknown => {
      const roll = r();
      if (depth > 3 || roll < 0.4) return leaf();
      if (roll < 0.7) return Array.from({ length: Math.floor(r() * 3) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(r() * 4) }, () => [
          ['x', 'y', 'z', 'w'][Math.floor(r() * 4)]!,
          value(depth + 1),
        ]),
      );
    };
    /** The same value with object keys in another order, and sometimes one change. */
    const variant = (v: unknown, change: boolean): unknown => {
      if (Array.isArray(v)) return v.map((x, i) => variant(x, change && i === 0));
      if (v !== null && typeof v === 'object') {
        const entries = Object.entries(v).reverse();
        if (change && r() < 0.5) entries.push(['added', r() < 0.3 ? undefined : 1]);
        return Object.fromEntries(entries.map(([k, x], i) => [k, variant(x, change && i === 0)]));
      }
      return change && r() < 0.5 ? leaf() : v;
    };
    let equal = 0;
    let different = 0;
    for (let n = 0; n < 5000; n++) {
      const a = value(0);
      const b = variant(a, r() < 0.5);
      const expected = canonicalJson(a) === canonicalJson(b);
      expect(sameJson(a, b), `${canonicalJson(a)} vs ${canonicalJson(b)}`).toBe(expected);
      expect(sameJson(b, a)).toBe(expected);
      if (expected) equal++;
      else different++;
    }
    expect(equal).toBeGreaterThan(1000);
    expect(different).toBeGreaterThan(500);
  });
});

describe('copies of JSON from outside keep a "__proto__" key as data', () => {
  // JSON.parse keeps the key as an own property; assigning it would set the copy's prototype
  // instead: the key would vanish, and what it holds would be inherited.
  const parsed = () =>
    JSON.parse(
      '{"issuer": "https://i.example", "__proto__": {"subject": "x"}, "nested": {"__proto__": [1]}}',
    ) as Record<string, unknown>;

  it('copyValue', () => {
    const copy = copyValue(parsed()) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['issuer', '__proto__', 'nested']);
    expect(copy.subject).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed()));
    // So the key is seen: it is no match for the same object without it.
    expect(sameJson(copy, { issuer: 'https://i.example', nested: {} })).toBe(false);
    expect(sameJson(copy, parsed())).toBe(true);
  });

  it('compactRelationship', () => {
    const compact = compactRelationship(parsed()) as Record<string, unknown>;
    expect(Object.getPrototypeOf(compact)).toBe(Object.prototype);
    expect(Object.keys(compact)).toEqual(['issuer', '__proto__', 'nested']);
    expect(compact.subject).toBeUndefined();
  });
});
