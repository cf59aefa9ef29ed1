/**
 * What a step does to a resource (src/model/step-effect.ts), held to the emulator's own answers:
 * over generated identities and updates (masks of whole fields and of leaves, in any order,
 * setting one relationship where another is live, clearing a description), the executor sends
 * the step to the emulator, and the identity it reads back holds exactly the fields
 * `fieldsAfterStep` says — the exclusive relationships included —, and the executor, which expects
 * the PATCH's answer to hold that effect (apply/answer-check.ts), finds no difference. A small run in `npm test`
 * (STEP_EFFECT_RUNS, default 25), the run's seed printed by the global setup.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { answerDifferences } from '../../src/apply/answer-check.js';
import { executeStep } from '../../src/apply/execute-step.js';
import type { ApiObject } from '../../src/api/types.js';
import { liveDefault, sameJson } from '../../src/model/kind-descriptor.js';
import { descriptorOf } from '../../src/model/kinds.js';
import type { UpdateStep } from '../../src/model/plan.js';
import { clearedFields, fieldsAfterStep } from '../../src/model/step-effect.js';
import { createInProcessApi } from '../support/in-process-api.js';

const RUNS = Number(process.env.STEP_EFFECT_RUNS ?? 25);
const SEED = Number(process.env.INVARIANT_SEED ?? 63);

const api = createInProcessApi({ seed: { orgs: [{ name: 'acme' }] } });
const org = api.seeded.orgUids.acme!;
afterAll(() => api.close());

const IDENTITY = descriptorOf('identity');

const claimMatch = fc.record({
  issuer: fc.constantFrom('https://token.actions.githubusercontent.com', 'https://issuer.acme.dev'),
  subject: fc.constantFrom('repo:acme/app:ref:refs/heads/main', 'deployer', 'repo:acme/web:environment:prod'),
});
const awsIdentity = fc.record({
  awsAccount: fc.constantFrom('123456789012', '210987654321'),
  arn: fc.constantFrom('arn:aws:iam::123456789012:role/deploy', 'arn:aws:iam::210987654321:role/ci'),
});
const servicePrincipal = fc.constantFrom('COSIGNED', 'INGESTER', 'CATALOG_SYNCER');
const description = fc.constantFrom('the release bot', 'deploys', '');
/** One relationship, as a create sends it. */
const relationship = fc.oneof(
  claimMatch.map((v) => ({ claimMatch: v })),
  awsIdentity.map((v) => ({ awsIdentity: v })),
  servicePrincipal.map((v) => ({ servicePrincipal: v })),
);
/** What an update may write, by mask path. */
const WRITABLE = {
  description: description,
  claimMatch: claimMatch,
  awsIdentity: awsIdentity,
  servicePrincipal: servicePrincipal,
  'claimMatch.subject': fc.constantFrom('repo:acme/app:ref:refs/tags/v1', 'other'),
} as const;
type Path = keyof typeof WRITABLE;

/** An identity's first relationship and description, then an update of it (a leaf of claimMatch only where it holds one). */
const identityAndUpdate = fc.tuple(relationship, description).chain(([start, text]) => {
  const paths = (Object.keys(WRITABLE) as Path[]).filter(
    (path) => path !== 'claimMatch.subject' || 'claimMatch' in start,
  );
  return (
    fc
      .uniqueArray(fc.constantFrom(...paths), { minLength: 1, maxLength: 3 })
      // A mask names a field whole or by its leaves, never both, and sets one relationship at most (as a plan's does).
      .filter(
        (mask) =>
          new Set(mask.map((path) => path.split('.')[0])).size === mask.length &&
          mask.filter((path) => path !== 'description').length <= 1,
      )
      .chain((mask) =>
        fc.tuple(
          fc.constant(start),
          fc.constant(text),
          fc.constant(mask),
          fc.tuple(...mask.map((path) => WRITABLE[path])),
        ),
      )
  );
});

/** The identity's managed fields as the API answers them, an absent one read as the API means it. */
function managed(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of IDENTITY.fields)
    out[spec.apiName ?? spec.name] = fields[spec.apiName ?? spec.name] ?? liveDefault(spec);
  return out;
}

/** A value of each relationship, for an answer that still holds one the step cleared. */
const HELD = {
  claimMatch: { issuer: 'https://i', subject: 's' },
  awsIdentity: { awsAccount: '1', arn: 'arn:aws:iam::1:role/r' },
  staticKeys: { issuer: 'https://i', subject: 's', publicKeys: '{}', expiration: '2030-01-01T00:00:00Z' },
  servicePrincipal: 'COSIGNED',
};

/** `answer` with the value at a dotted path changed: a string otherwise spelt, an object with one more key. */
function bent(answer: Record<string, unknown>, path: string): ApiObject {
  const copy = structuredClone(answer);
  const parts = path.split('.');
  let into = copy;
  for (const part of parts.slice(0, -1)) into = into[part] as Record<string, unknown>;
  const last = parts[parts.length - 1]!;
  const value = into[last];
  into[last] = typeof value === 'string' ? `${value}~bent` : { ...(value as object), bent: 'yes' };
  return copy as ApiObject;
}

let n = 0;
describe('what a step does to a resource (model/step-effect.ts)', () => {
  it('is what the emulator answers after the executor sends it (property)', async () => {
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(identityAndUpdate, async ([start, text, mask, values]) => {
        const created = await api.client.create('identity', org, { name: `id-${n++}`, description: text, ...start });
        const before = { ...created } as Record<string, unknown>;
        // As the planner writes a step: each masked path's value under the path itself.
        const after: Record<string, unknown> = Object.fromEntries(mask.map((path, i) => [path, values[i]]));
        const step: UpdateStep = {
          action: 'update',
          kind: 'identity',
          address: `identity:x`,
          uid: created.uid,
          updateMask: mask,
          before: {},
          after,
        };
        let differences: unknown[];
        try {
          ({ differences } = await executeStep(step, api.client, new Map(), () => ''));
        } catch (err) {
          if (process.env.STEP_EFFECT_DEBUG) console.log(mask, after, String(err));
          return; // refused by the service (a leaf of a relationship the identity does not hold): nothing to compare
        }
        applied++;
        const answer = (await api.client.get('identity', created.uid)) as Record<string, unknown>;
        const expected = managed(fieldsAfterStep(before, step)!);
        const got = managed(answer);
        for (const field of Object.keys(expected))
          expect(sameJson(got[field], expected[field]), `${field} after ${JSON.stringify(step.updateMask)}`).toBe(true);
        for (const field of clearedFields(step)) expect(answer[field], `${field} cleared`).toBeUndefined();
        // The executor's expectation is the same effect: the PATCH's answer holds it, so it reports no difference.
        expect(differences, JSON.stringify(step.updateMask)).toEqual([]);
        // …and an answer that holds other than the step wrote at any written path, or still holds a
        // cleared field, is a difference named by that path (model/step-holds.ts, the one walk).
        for (const path of mask) {
          const differs = answerDifferences(step, after, bent(answer, path)).map((d) => d.field);
          expect(differs, `${path} answered otherwise`).toContain(path);
        }
        for (const field of clearedFields(step)) {
          const kept = { ...answer, [field]: before[field] ?? HELD[field as keyof typeof HELD] };
          expect(answerDifferences(step, after, kept as ApiObject).map((d) => d.field)).toContain(field);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(applied, 'most generated updates are ones the service accepts').toBeGreaterThan(RUNS / 2);
  });

  it('a create is its fields, a delete leaves nothing, setting one exclusive field clears the others (examples)', () => {
    const step: UpdateStep = {
      action: 'update',
      kind: 'identity',
      address: 'identity:ci',
      uid: 'u',
      updateMask: ['claimMatch', 'description'],
      before: {},
      after: { claimMatch: { issuer: 'https://i', subject: 's' } },
    };
    expect(fieldsAfterStep({ name: 'ci', description: 'd', awsIdentity: { awsAccount: '1' } }, step)).toEqual({
      name: 'ci',
      claimMatch: { issuer: 'https://i', subject: 's' },
    });
    expect(clearedFields(step).sort()).toEqual(['awsIdentity', 'servicePrincipal', 'staticKeys']);
    expect(
      fieldsAfterStep(undefined, {
        action: 'create',
        kind: 'group',
        address: 'group:a',
        parent: 'org',
        after: { name: 'a' },
      }),
    ).toEqual({ name: 'a' });
    expect(
      fieldsAfterStep({ name: 'a' }, { action: 'delete', kind: 'group', address: 'group:a', uid: 'u' }),
    ).toBeUndefined();
  });
});
