/**
 * The planned relation (src/access/planned-relation.ts), built from live's by the records a plan
 * changes, is the relation `relationOf` makes from scratch of the state the plan leads to — every
 * group, role, principal and grant, in the same order — and finds the same principals touched.
 * Over generated states (groups, roles, identities that share relationships, bindings, identity
 * providers and their mappings, invites that expire) and step lists (creates that name what other
 * creates make, updates of every access field, deletes, the org's own group deleted). A small run
 * in `npm test` (PLANNED_RELATION_RUNS, default 150), the run's seed printed by the global setup.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diffRelations, touchedPrincipals } from '../../src/access/access-diff.js';
import { plannedRelation } from '../../src/access/planned-relation.js';
import { type AccessRelation, relationOf } from '../../src/access/relation.js';
import { type AccessRecord, type AccessStateRecords, stateAfterSteps } from '../../src/access/state.js';
import { indexOfState } from '../../src/access/state-index.js';
import { keysOfSteps, touchedRelations } from '../../src/access/touched-relations.js';
import type { Kind } from '../../src/model/kinds.js';
import type { PlanStep } from '../../src/model/plan.js';

const RUNS = Number(process.env.PLANNED_RELATION_RUNS ?? 150);
const SEED = Number(process.env.INVARIANT_SEED ?? 61);

const CAPS = ['repo.list', 'repo.create', 'roles.update', 'role_bindings.create', 'identity.update', 'tag.create'];
const BUILTINS: Record<string, readonly string[]> = { 'b-viewer': ['repo.list'], 'b-owner': CAPS };
const ISSUERS = ['https://token.actions.githubusercontent.com', 'https://issuer.acme.dev'];
const PAST = '2026-01-01T00:00:00Z';
const FUTURE = '2027-01-01T00:00:00Z';
const NOW = Date.parse('2026-06-01T00:00:00Z');

const relationship = fc.oneof(
  fc.constant({}),
  fc
    .record({ issuer: fc.constantFrom(...ISSUERS), subject: fc.constantFrom('repo:a', 'repo:b') })
    .map((claimMatch) => ({ claimMatch })),
  fc.constant({ claimMatch: { issuer: ISSUERS[0] } }),
  fc
    .constantFrom('COSIGNED', 'SERVICE_PRINCIPAL_COSIGNED', 'INGESTER')
    .map((servicePrincipal) => ({ servicePrincipal })),
);
const oidc = fc.record(
  { issuer: fc.constantFrom(...ISSUERS), groupsClaim: fc.constantFrom('groups', 'teams') },
  { requiredKeys: [] },
);
const invite = fc.record({
  email: fc.constantFrom('alice@acme.dev', 'Alice@ACME.dev', 'bob@acme.dev', ''),
  expirationTime: fc.constantFrom(undefined, PAST, FUTURE),
});

/** One record of a kind, its references chosen by number among what exists (`pick`). */
type Pick = (kind: 'group' | 'role' | 'identity' | 'provider', n: number) => string;
const CHOICE = fc.nat({ max: 20 });
const recordSpec = fc.oneof(
  fc.tuple(fc.constant('group' as const), CHOICE, fc.constant({})),
  fc.tuple(
    fc.constant('role' as const),
    CHOICE,
    // A live role may list a capability twice (a server's answer is untrusted).
    fc.tuple(fc.subarray(CAPS), fc.boolean()).map(([capabilities, twice]) => ({
      capabilities: twice && capabilities.length > 0 ? [...capabilities, capabilities[0]!] : capabilities,
    })),
  ),
  {
    weight: 3,
    arbitrary: fc.tuple(
      fc.constant('identity' as const),
      CHOICE,
      fc.tuple(relationship, fc.option(fc.constant('carol@acme.dev'), { nil: undefined })),
    ),
  },
  { weight: 3, arbitrary: fc.tuple(fc.constant('roleBinding' as const), CHOICE, fc.tuple(CHOICE, CHOICE)) },
  fc.tuple(fc.constant('identityProvider' as const), CHOICE, fc.tuple(CHOICE, oidc)),
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constant('groupMapping' as const),
      CHOICE,
      fc.tuple(CHOICE, fc.constantFrom('admins', 'devs'), fc.option(CHOICE, { nil: undefined })),
    ),
  },
  fc.tuple(fc.constant('groupInvite' as const), CHOICE, fc.tuple(CHOICE, invite)),
);
type RecordSpec = typeof recordSpec extends fc.Arbitrary<infer T> ? T : never;

/** The fields and parent of a record of `kind`, from its spec's choices. */
function made(spec: RecordSpec, pick: Pick): { kind: Kind; parent: string; fields: Record<string, unknown> } {
  const [kind, at, data] = spec;
  const group = pick('group', at);
  const role = (n: number): string => pick('role', n);
  switch (kind) {
    case 'group':
    case 'role':
      return { kind, parent: group, fields: { ...data } };
    case 'identity': {
      const [rel, email] = data as [Record<string, unknown>, string | undefined];
      return { kind, parent: group, fields: { ...rel, ...(email ? { email } : {}) } };
    }
    case 'roleBinding': {
      const [r, i] = data as [number, number];
      return { kind, parent: group, fields: { roleUid: role(r), identityUid: pick('identity', i) } };
    }
    case 'identityProvider': {
      const [r, o] = data as [number, Record<string, unknown>];
      return { kind, parent: group, fields: { defaultRole: role(r), oidc: o } };
    }
    case 'groupMapping': {
      const [r, name, scope] = data as [number, string, number | undefined];
      const fields = {
        roleUid: role(r),
        externalGroupId: name,
        ...(scope === undefined ? {} : { scope: pick('group', scope) }),
      };
      return { kind, parent: pick('provider', at), fields };
    }
    case 'groupInvite': {
      const [r, i] = data as [number, { email: string; expirationTime?: string }];
      const fields = {
        role: role(r),
        email: i.email,
        ...(i.expirationTime ? { expirationTime: i.expirationTime } : {}),
      };
      return { kind, parent: group, fields };
    }
  }
}

const KIND_OF = { group: 'group', role: 'role', identity: 'identity', provider: 'identityProvider' } as const;

/** Picks among the records of a kind that `records` holds (and a key that names nothing, for roles and identities). */
function picker(records: () => Iterable<AccessRecord>, org: string): Pick {
  return (kind, n) => {
    const keys = [...records()].filter((r) => r.kind === KIND_OF[kind]).map((r) => r.key);
    if (kind === 'role') keys.push(...Object.keys(BUILTINS), 'u-no-role');
    if (kind === 'identity') keys.push('u-no-identity');
    if (kind === 'group' && keys.length === 0) return org;
    return keys.length === 0 ? 'u-none' : keys[n % keys.length]!;
  };
}

/** Live: the org's group, then each spec's record in turn (its references among those before it). */
function liveState(specs: readonly RecordSpec[]): AccessStateRecords {
  const records = new Map<string, AccessRecord>();
  records.set('u-org', { kind: 'group', key: 'u-org', address: 'org', parent: null, fields: {} });
  const pick = picker(() => records.values(), 'u-org');
  specs.forEach((spec, i) => {
    const { kind, parent, fields } = made(spec, pick);
    const key = `u${i}`;
    records.set(key, { kind, key, address: `${kind}:r${i}`, parent, fields });
  });
  return {
    records,
    builtinCapabilities: new Map(Object.entries(BUILTINS)),
    builtinNames: new Map(Object.keys(BUILTINS).map((k) => [k, k.slice(2)])),
    removed: new Map(),
  };
}

/** What an update of each kind may write: a mask's fields and their values. */
const RELATIONSHIPS = [
  { claimMatch: { issuer: ISSUERS[0], subject: 'repo:a' } },
  { claimMatch: { issuer: ISSUERS[1], subject: 'repo:b' } },
  { claimMatch: { issuer: ISSUERS[0] } },
  { servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' },
  { claimMatch: undefined },
];
const UPDATES: Record<string, Record<string, unknown>[]> = {
  group: [{ name: 'renamed' }, { description: 'changed' }],
  role: [{ capabilities: ['repo.list'] }, { capabilities: CAPS }, { capabilities: [] }, { description: 'x' }],
  identity: [...RELATIONSHIPS, { description: 'x' }, { email: 'dave@acme.dev' }],
  roleBinding: [{ roleUid: 'b-owner' }, { roleUid: 'b-viewer' }, { identityUid: 'u-no-identity' }],
  identityProvider: [
    { oidc: { issuer: ISSUERS[1] } },
    { oidc: { issuer: ISSUERS[0], groupsClaim: 'teams' } },
    { defaultRole: 'b-owner' },
    { defaultRole: undefined },
    { name: 'renamed' },
  ],
  groupMapping: [{ externalGroupId: 'devs' }, { roleUid: 'b-owner' }, { scope: undefined }],
  groupInvite: [{ expirationTime: FUTURE }, { expirationTime: PAST }, { role: 'b-owner' }, { email: 'bob@acme.dev' }],
};
const stepSpec = fc.oneof(
  fc.tuple(fc.constant('create' as const), recordSpec, fc.boolean()),
  fc.tuple(fc.constant('update' as const), CHOICE, CHOICE),
  fc.tuple(fc.constant('delete' as const), CHOICE, CHOICE),
);
type StepSpec = typeof stepSpec extends fc.Arbitrary<infer T> ? T : never;

/** The steps of the specs over `live`: each creates, updates or deletes what the state before it holds. */
function stepsOf(live: AccessStateRecords, specs: readonly StepSpec[]): PlanStep[] {
  const steps: PlanStep[] = [];
  let state = live;
  const pick = picker(() => state.records.values(), 'u-org');
  specs.forEach((spec, i) => {
    const live = [...state.records.values()].filter((r) => !r.key.startsWith('new:'));
    let step: PlanStep | undefined;
    if (spec[0] === 'create') {
      const { kind, parent, fields } = made(spec[1], pick);
      const address = `${kind}:new${i}`;
      const parentRecord = state.records.get(parent);
      // A created parent is named by address (its key made from it); a live one by uid, or by address when told.
      const byAddress = parent.startsWith('new:') || spec[2];
      step = {
        action: 'create',
        kind,
        address,
        parent: parentRecord?.address ?? null,
        ...(byAddress ? {} : { parentUid: parent }),
        after: fields,
      };
    } else {
      const target = live[spec[1] % live.length];
      if (target === undefined) return;
      if (spec[0] === 'delete')
        step = { action: 'delete', kind: target.kind, uid: target.key, address: target.address };
      else {
        const choices = UPDATES[target.kind]!;
        const after = choices[spec[2] % choices.length]!;
        const renamed = 'name' in after ? `${target.address}-renamed` : target.address;
        const updateMask = Object.keys(after);
        step = {
          action: 'update',
          kind: target.kind,
          uid: target.key,
          address: renamed,
          updateMask,
          before: {},
          after,
        };
      }
    }
    steps.push(step);
    state = stateAfterSteps(state, [step]);
  });
  return steps;
}

/** A relation as plain entries, in its order, with what its roles resolve to. */
function shown(rel: AccessRelation) {
  const keys = [...rel.state.records.keys(), ...Object.keys(BUILTINS), 'u-no-role'];
  return {
    records: [...rel.state.records],
    groups: [...rel.groups],
    principals: [...rel.principals],
    grantsOf: [...rel.grantsOf],
    children: [...rel.children],
    capabilities: keys.map((k) => [k, rel.capabilitiesOf(k)]),
    roleNames: keys.map((k) => [k, rel.roleName(k)]),
  };
}

describe('the planned relation, built from live by the records a plan changes', () => {
  it('is relationOf of the state the plan leads to, and touches the principals the two differ by', () => {
    const world = fc.tuple(
      fc.array(recordSpec, { maxLength: 14 }),
      fc.array(stepSpec, { maxLength: 6 }),
      fc.constantFrom(undefined, NOW),
    );
    let decided = 0;
    fc.assert(
      fc.property(world, ([recordSpecs, stepSpecs, now]) => {
        const before = liveState(recordSpecs);
        const steps = stepsOf(before, stepSpecs);
        const live = relationOf(before, now);
        const planned = plannedRelation(live, steps, now);
        const reference = relationOf(stateAfterSteps(before, steps), now);
        expect(shown(planned.relation)).toStrictEqual(shown(reference));
        expect([...planned.touched].sort()).toStrictEqual([...touchedPrincipals(live, reference)].sort());
        const changes = diffRelations(live, reference);
        expect(diffRelations(live, planned.relation, planned.touched)).toStrictEqual(changes);
        // Only the principals the plan can change and those that may cover them: the same changes.
        const few = touchedRelations(indexOfState(before, keysOfSteps(steps)), steps, now);
        if (few === undefined) return;
        for (const id of few.touched) expect(planned.touched).toContain(id);
        decided++;
        for (const [part, whole] of [
          [few.live, live],
          [few.planned, reference],
        ] as const) {
          // Each principal it holds, it holds whole: the same principal, the same grants in the same order.
          for (const [id, p] of part.principals) expect(p).toStrictEqual(whole.principals.get(id));
          for (const [id, grants] of part.grantsOf) expect(grants).toStrictEqual(whole.grantsOf.get(id));
        }
        expect(diffRelations(few.live, few.planned, few.touched, () => reference)).toStrictEqual(changes);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // Most worlds are decided by the touched relations (a few fall back to the whole ones).
    expect(decided).toBeGreaterThan(RUNS / 2);
  });

  it('is live’s own relation for a plan that changes no access record', () => {
    const before = liveState([
      ['group', 0, {}],
      ['identity', 0, [{ servicePrincipal: 'COSIGNED' }, undefined]],
      ['roleBinding', 1, [0, 0]],
    ]);
    const live = relationOf(before);
    const repo: PlanStep = { action: 'delete', kind: 'repo', uid: 'u-repo', address: 'repo:x' };
    const ghost: PlanStep = { action: 'delete', kind: 'identity', uid: 'u-gone', address: 'identity:gone' };
    for (const steps of [[], [repo], [ghost]]) {
      const planned = plannedRelation(live, steps);
      expect(planned.relation).toBe(live);
      expect(planned.touched.size).toBe(0);
    }
  });

  it('sees the gain of a role whose live capabilities list one twice ([a, a] → [a, b]) by a grant the plan keeps', () => {
    // Compared by count and one way only, [a, a] and [a, b] were the same role: the binding's
    // identity was not touched, and its gain of b was neither shown nor refused by --deny-new-access.
    const before = liveState([
      ['role', 0, { capabilities: ['repo.list', 'repo.list'] }],
      ['identity', 0, [{ claimMatch: { issuer: ISSUERS[0], subject: 'repo:a' } }, undefined]],
      ['roleBinding', 0, [0, 0]],
    ]);
    const steps: PlanStep[] = [
      {
        action: 'update',
        kind: 'role',
        address: 'role:r0',
        uid: 'u0',
        updateMask: ['capabilities'],
        before: { capabilities: ['repo.list', 'repo.list'] },
        after: { capabilities: ['repo.list', 'repo.create'] },
      },
    ];
    const live = relationOf(before);
    const reference = relationOf(stateAfterSteps(before, steps));
    const whole = diffRelations(live, reference);
    expect(JSON.stringify(whole)).toContain('repo.create');
    const planned = plannedRelation(live, steps);
    expect(diffRelations(live, planned.relation, planned.touched)).toStrictEqual(whole);
    const few = touchedRelations(indexOfState(before, keysOfSteps(steps)), steps, undefined)!;
    expect(diffRelations(few.live, few.planned, few.touched, () => reference)).toStrictEqual(whole);
  });

  it('holds the principals that cover one the plan touches, though the plan touches them not', () => {
    // `x` (one repository's workflows) is bound as owner where `wide` (every workflow of the
    // issuer) is owner already: no one gains anything — but only if `wide` is in the relations.
    const before = liveState([
      ['identity', 0, [{ claimMatch: { issuer: ISSUERS[0] } }, undefined]],
      ['roleBinding', 0, [1, 0]],
      ['identity', 0, [{ claimMatch: { issuer: ISSUERS[0], subject: 'repo:a' } }, undefined]],
      ['identity', 0, [{ claimMatch: { issuer: ISSUERS[0], subject: 'repo:b' } }, undefined]],
      ['identity', 0, [{ claimMatch: { issuer: ISSUERS[1], subject: 'repo:a' } }, undefined]],
      ['roleBinding', 0, [1, 3]],
    ]);
    const bind = (identity: string, role: string): PlanStep => ({
      action: 'create',
      kind: 'roleBinding',
      address: `roleBinding:${identity}`,
      parent: 'org',
      parentUid: 'u-org',
      after: { roleUid: role, identityUid: identity },
    });
    const steps = [bind('u2', 'b-owner'), bind('u3', 'b-viewer'), bind('u3', 'b-owner')];
    const live = relationOf(before);
    const reference = relationOf(stateAfterSteps(before, steps));
    const few = touchedRelations(indexOfState(before, keysOfSteps(steps)), steps, undefined)!;
    expect(few.live.principals.size).toBeLessThan(live.principals.size);
    expect(diffRelations(few.live, few.planned, few.touched, () => reference)).toStrictEqual(
      diffRelations(live, reference),
    );
    expect(diffRelations(live, reference)).toStrictEqual([]);
  });
});
