/**
 * The access oracle's probes tell every generated relationship from every other of its family
 * (issue 58): two patterns that accept other strings must accept other probes, or a widening
 * between them would pass the property unseen. Patterns whose languages are equal are listed.
 */
import { describe, expect, it } from 'vitest';
import type { LiveResource } from '../../src/model/resources.js';
import { accepts, universe } from './access-oracle.js';
import { FAMILIES, RELATIONSHIPS } from './gen-relationships.js';

/** Equal languages: repo:acme/?.*, repo:acme/*.* and repo:acme/{0}.* are all repo:acme.*. */
const SAME = [[9, 15, 16]];

const probes = universe([]);
const identity = (n: number) =>
  ({ kind: 'identity', uid: `i${n}`, fields: { name: `i${n}`, ...RELATIONSHIPS[n] } }) as unknown as LiveResource;
const signature = (n: number) =>
  probes
    .filter((p) => accepts(identity(n), p))
    .map((p) => p.label)
    .join('\n');

describe('access oracle probes', () => {
  it('tell every relationship of a family from every other of another language, and admit each', () => {
    const blind: string[] = [];
    for (const family of FAMILIES) {
      for (const a of family) {
        if (signature(a) === '') blind.push(`${a} admits no probe`);
        for (const b of family) {
          if (a >= b || SAME.some((s) => s.includes(a) && s.includes(b))) continue;
          if (signature(a) === signature(b))
            blind.push(`${a} and ${b}: ${JSON.stringify(RELATIONSHIPS[a])} ${JSON.stringify(RELATIONSHIPS[b])}`);
        }
      }
    }
    expect(blind).toEqual([]);
  });

  it('see the languages listed as equal as equal (else they are not)', () => {
    for (const same of SAME) for (const n of same) expect(signature(n)).toBe(signature(same[0]!));
  });
});
