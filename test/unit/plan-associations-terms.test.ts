/**
 * Account associations and accepted terms in the planner (built states): an association is
 * updated by a mask naming the changed blocks and deleted before its group; an acceptance is
 * created once and never deleted (a note instead).
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import type { CreateStep, UpdateStep } from '../../src/model/plan.js';
import { desiredState, liveState, r } from './plan-builders.js';

describe('account associations in a plan', () => {
  it('updates only the blocks that changed, in one PATCH naming them', () => {
    const live = liveState([
      r.accountAssociation('', { amazon: { account: '123456789012' }, google: { projectId: 'a' } }),
    ]);
    const p = plan(
      desiredState([r.accountAssociation('', { amazon: { account: '123456789012' }, google: { projectId: 'b' } })]),
      live,
    );
    const step = p.steps[0] as UpdateStep;
    expect([step.action, step.address, step.updateMask]).toEqual(['update', 'accountAssociation:/', ['google']]);
  });

  it('is deleted before its group, and a group and its association are told apart though they share a uid', () => {
    const group = r.group('eng');
    const live = liveState([
      group,
      {
        shape: r.accountAssociation('eng', { github: { installations: [{ installationId: '1' }] } }),
        uid: `${'a'.repeat(40)}/0000000000000001`,
      },
    ]);
    const p = plan(desiredState([]), live);
    expect(p.steps.map((s) => [s.action, s.address, s.dependsOn])).toEqual([
      ['delete', 'accountAssociation:eng', undefined],
      ['delete', 'group:eng', ['accountAssociation:eng']],
    ]);
  });
});

describe('accepted terms in a plan', () => {
  it('creates an acceptance once, and never deletes one: a document left out is a warning', () => {
    const created = plan(desiredState([r.terms('tos-2026')]), liveState([])).steps as CreateStep[];
    expect(created.map((s) => [s.action, s.address, s.after])).toEqual([
      ['create', 'terms:tos-2026', { docId: 'tos-2026' }],
    ]);
    const kept = plan(desiredState([]), liveState([r.terms('tos-2026')]));
    expect(kept.steps).toEqual([]);
    expect(kept.warnings).toEqual([
      'terms:tos-2026 stays: accepted terms documents are permanent, so leaving one out of the manifests changes nothing',
    ]);
  });
});
