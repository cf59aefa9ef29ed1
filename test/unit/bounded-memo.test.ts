/** The bounded memo behind the answers kept per pattern and per issuer (src/util/bounded-memo.ts). */
import { describe, expect, it } from 'vitest';
import { boundedMemo } from '../../src/util/bounded-memo.js';

describe('boundedMemo', () => {
  it('works an answer out once per key while it holds fewer than its bound', () => {
    const calls: string[] = [];
    const memo = boundedMemo(3, (k) => (calls.push(k), k.length));
    expect([memo('a'), memo('bb'), memo('a'), memo('bb'), memo('ccc'), memo('a')]).toEqual([1, 2, 1, 2, 3, 1]);
    expect(calls).toEqual(['a', 'bb', 'ccc']);
  });

  it('never holds more than its bound: a stranger with many distinct keys costs memory of the bound only', () => {
    const calls: string[] = [];
    const memo = boundedMemo(3, (k) => (calls.push(k), k));
    for (const k of ['a', 'b', 'c', 'd']) memo(k);
    // Full at 3: the fourth key started it over, so 'a' is worked out again; 'd' is still kept.
    memo('d');
    memo('a');
    expect(calls).toEqual(['a', 'b', 'c', 'd', 'a']);
  });

  it('keeps an answer that is falsy (false, 0, the empty string) like any other', () => {
    let n = 0;
    const memo = boundedMemo(10, () => (n++, false));
    memo('x');
    memo('x');
    expect(n).toBe(1);
  });
});
