/**
 * The access oracle's probes tell every generated relationship from every other (issue 58): when
 * a pattern accepts a string another does not, some probe shows it, or a widening between them
 * would pass the property unseen — and a gain the product rightly reports would look false to it.
 * Any relationships can meet (an identity added or edited beside others of any family), so every
 * pair is held, not only a family's, and every set at once: a token of each escapes all those it
 * is not within together (two that each miss some of its tokens may together miss none of the
 * probes: test:deep seed 20261204, case 2,837). Where one language lies within another it is listed.
 */
import { describe, expect, it } from 'vitest';
import type { LiveResource, LiveState } from '../../src/model/resources.js';
import { accepts, universe } from './access-oracle.js';
import { RELATIONSHIPS } from './gen-relationships.js';

/** Equal languages: repo:acme/?.*, repo:acme/*.* and repo:acme/{0}.* are all repo:acme.*. */
const SAME = [[9, 15, 16]];

/**
 * Every relationship (by index) whose tokens all lie within another's (L(a) ⊆ L(b), each
 * requirement included); any pair not listed has a token one accepts and the other does not.
 * 1 is not within 22 (`repo:acme/x:y:…`) nor 28 (`repo:acme/:…`): test:deep seed 20261204, case 2,837.
 */
const WITHIN: Record<number, readonly number[]> = {
  0: [5, 6, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 21, 22, 26, 27, 28],
  1: [5, 6, 8, 9, 10, 11, 15, 16, 17, 18, 23, 24, 25, 26, 27],
  2: [14],
  5: [17],
  6: [5, 8, 9, 10, 11, 15, 16, 17, 18, 26, 27],
  8: [5, 9, 10, 11, 15, 16, 17, 18, 26, 27],
  9: [5, 15, 16, 17],
  10: [17],
  11: [17],
  12: [5, 8, 9, 10, 11, 15, 16, 17, 18, 21, 26, 27, 28],
  13: [5, 6, 8, 9, 10, 11, 15, 16, 17, 18, 21, 22, 26, 27, 28],
  15: [5, 9, 16, 17],
  16: [5, 9, 15, 17],
  18: [5, 17],
  19: [5, 8, 9, 10, 11, 12, 15, 16, 17, 18, 21, 26, 27, 28],
  20: [5, 6, 8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 21, 22, 26, 27, 28],
  21: [5, 8, 9, 10, 11, 15, 16, 17, 18, 26, 27, 28],
  23: [5, 17, 24, 25],
  24: [5, 17],
  25: [5, 17],
  26: [5, 8, 9, 10, 11, 15, 16, 17, 18, 27],
  28: [5, 8, 9, 10, 11, 15, 16, 17, 18, 26, 27],
};

const identity = (n: number) =>
  ({ kind: 'identity', uid: `i${n}`, fields: { name: `i${n}`, ...RELATIONSHIPS[n] } }) as unknown as LiveResource;
// The probes of a state that holds every relationship (static keys are probed by their own keys).
const probes = universe([{ resources: RELATIONSHIPS.map((_, n) => identity(n)) } as unknown as LiveState]);
const accepted = RELATIONSHIPS.map((_, n) => probes.filter((p) => accepts(identity(n), p)).map((p) => p.label));
const signature = (n: number) => accepted[n]!.join('\n');

describe('access oracle probes', () => {
  it('admit a token of every relationship', () => {
    expect(RELATIONSHIPS.map((_, n) => n).filter((n) => accepted[n]!.length === 0)).toEqual([]);
  });

  it('tell every relationship from every other it is not within: a probe one accepts and the other does not', () => {
    const blind: string[] = [];
    const unlisted: string[] = [];
    for (let a = 0; a < RELATIONSHIPS.length; a++) {
      for (let b = 0; b < RELATIONSHIPS.length; b++) {
        if (a === b) continue;
        const seenWithin = accepted[a]!.every((p) => accepted[b]!.includes(p));
        const listed = WITHIN[a]?.includes(b) === true;
        if (seenWithin && !listed)
          blind.push(`${a} within ${b}? ${JSON.stringify(RELATIONSHIPS[a])} ${JSON.stringify(RELATIONSHIPS[b])}`);
        if (!seenWithin && listed)
          unlisted.push(`${a} is listed within ${b}, yet ${accepted[a]!.find((p) => !accepted[b]!.includes(p))}`);
      }
    }
    expect(blind, 'no probe tells these apart').toEqual([]);
    expect(unlisted, 'listed within, but a probe tells them apart').toEqual([]);
  });

  it('hold, for every relationship, a token that none of those it is not within accepts (they may meet all at once)', () => {
    const escapes = (a: number) =>
      accepted[a]!.some((p) =>
        RELATIONSHIPS.every((_, b) => b === a || WITHIN[a]?.includes(b) === true || !accepted[b]!.includes(p)),
      );
    expect(RELATIONSHIPS.map((_, a) => a).filter((a) => !escapes(a))).toEqual([]);
  });

  it('see the languages listed as equal as equal (else they are not)', () => {
    for (const same of SAME) for (const n of same) expect(signature(n)).toBe(signature(same[0]!));
  });
});
