/** rfc3339Seconds: the planner's clock-free formatting of a time, held to Date's over generated times. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rfc3339Millis, rfc3339Seconds } from '../../src/util/time.js';

describe('rfc3339Seconds', () => {
  it('writes what Date writes, to the second, for any time from 1970 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) => {
        expect(rfc3339Seconds(ms)).toBe(new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
      }),
      { numRuns: 2000, seed: Number(process.env.INVARIANT_SEED ?? 38) },
    );
    expect(rfc3339Seconds(Date.UTC(2028, 1, 29, 23, 59, 59, 999))).toBe('2028-02-29T23:59:59Z');
  });

  it('rfc3339Millis writes exactly what Date writes (the form the service answers in) for any time from 1970 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799999 }), (ms) => {
        expect(rfc3339Millis(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000, seed: Number(process.env.INVARIANT_SEED ?? 39) },
    );
  });
});
