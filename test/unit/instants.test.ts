/**
 * Timestamps compare as instants (issue 48, DESIGN.md §4 "Timestamps"): for every field a kind
 * declares as an instant (FieldSpec `instants`), any two spellings of one instant — `Z` or
 * `+00:00`, with milliseconds or without, another offset — plan to no change; another instant is
 * a change. As a property over generated instants and spellings (the run's seed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DESCRIPTORS, type Kind } from '../../src/model/kinds.js';
import { diffManagedFields } from '../../src/plan/fields.js';
import type { DesiredResource, LiveResource } from '../../src/model/resources.js';

/** Every (kind, field, member) declared as an instant ('' = the field itself). */
const INSTANTS = DESCRIPTORS.flatMap((d) =>
  d.fields.flatMap((f) => (f.instants ?? []).map((member) => ({ kind: d.kind as Kind, field: f.name, member }))),
);

/** One instant, spelled in one of the ways RFC 3339 allows. */
function spell(ms: number, how: number): string {
  const iso = new Date(ms).toISOString(); // 2027-06-30T00:00:00.000Z
  const whole = ms % 1000 === 0;
  switch (how % 4) {
    case 0:
      return iso;
    case 1:
      return whole ? iso.replace('.000Z', 'Z') : iso;
    case 2:
      return iso.replace('Z', '+00:00');
    default: {
      // The same instant at +02:00.
      const local = new Date(ms + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
      return whole ? local.replace('.000+', '+') : local;
    }
  }
}

const withValue = (field: string, member: string, value: string): Record<string, unknown> =>
  member === '' ? { [field]: value } : { [field]: { [member]: value } };
const resource = (kind: Kind, fields: Record<string, unknown>) =>
  ({
    kind,
    address: `${kind}:x`,
    groupPath: '',
    parentAddress: 'org',
    fields,
    source: { file: 'm.yaml', line: 1, column: 1 },
    uid: 'u',
    parentUid: 'o',
  }) as unknown as DesiredResource & LiveResource;

describe('timestamps compare as instants', () => {
  it('declares the times the service answers: an entitlement, static keys, an invite', () => {
    expect(INSTANTS.map((i) => `${i.kind}.${i.field}${i.member ? `.${i.member}` : ''}`).sort()).toEqual([
      'groupInvite.expirationTime',
      'identity.staticKeys.expirationTime',
      'repo.syncConfig.expiration',
    ]);
  });

  it('two spellings of one instant plan to nothing; another instant is a change (property)', () => {
    const seed = Number(process.env.INVARIANT_SEED ?? 48);
    fc.assert(
      fc.property(
        fc.constantFrom(...INSTANTS),
        fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) }),
        fc.boolean(),
        fc.nat(3),
        fc.nat(3),
        fc.integer({ min: 1, max: 86_400_000 }),
        (at, ms0, whole, a, b, delta) => {
          const ms = whole ? ms0 - (ms0 % 1000) : ms0;
          const declared = resource(at.kind, withValue(at.field, at.member, spell(ms, a)));
          const live = resource(at.kind, withValue(at.field, at.member, spell(ms, b)));
          expect(diffManagedFields(declared, live)).toEqual([]);
          const later = resource(at.kind, withValue(at.field, at.member, spell(ms + delta, a)));
          expect(diffManagedFields(later, live).length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 300, seed },
    );
  });
});
