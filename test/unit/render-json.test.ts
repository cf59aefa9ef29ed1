import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { validatePlanDocument } from '../../src/saved-plan/plan-schema.js';
import { renderJsonPlan, renderPlan } from '../../src/views/plan.js';
import { desiredState, emptyLive, liveState, r } from './plan-builders.js';
import { scenarioPlan } from './render-scenario.js';

describe('renderJsonPlan', () => {
  it('is versioned and carries summary and steps as DESIGN §5 says', () => {
    const json = JSON.parse(renderPlan(scenarioPlan(), 'json')) as Record<string, unknown>;
    expect(json.formatVersion).toBe(1);
    expect(json.summary).toEqual({ create: 3, update: 3, delete: 2 });
    const steps = json.steps as Record<string, unknown>[];
    expect(steps.find((s) => s.address === 'repo:nginx')).toMatchObject({
      action: 'update',
      kind: 'repo',
      uid: expect.any(String),
      parent: 'org',
      updateMask: ['readme'],
      before: { readme: '# nginx\n\nOld text.\n' },
      after: { readme: '# nginx\n\nNew text.\nMore.\n' },
    });
    expect(steps.find((s) => s.address === 'roleBinding:eng/platform/deploy-bot=/deployer')).toMatchObject({
      action: 'create',
      dependsOn: ['group:eng/platform', 'identity:eng/platform/deploy-bot'],
    });
    expect(json).not.toHaveProperty('fingerprints');
  });

  it('validates against schemas/plan.schema.json for real planner output', () => {
    const plans = [
      scenarioPlan(),
      plan(desiredState([r.group('a'), r.identity('a', 'x'), r.binding('a', 'x', 'viewer')]), emptyLive(), {
        bootstrap: true,
      }),
      plan(desiredState([]), liveState([r.group('a'), r.repo('a', 'x'), r.tag('a', 'x', '1')])),
    ];
    for (const p of plans) {
      expect(validatePlanDocument(JSON.parse(renderPlan(p, 'json')))).toEqual([]);
      expect(validatePlanDocument(JSON.parse(renderJsonPlan(p, { fingerprints: true })))).toEqual([]);
    }
  });

  it('the schema rejects what is not a plan, naming where', () => {
    expect(validatePlanDocument({ formatVersion: 2, summary: { create: 0, update: 0, delete: 0 }, steps: [] })).toEqual(
      ['/formatVersion: must be equal to constant'],
    );
    const badStep = {
      formatVersion: 1,
      summary: { create: 0, update: 1, delete: 0 },
      steps: [{ action: 'update', kind: 'repo', address: 'repo:x' }],
    };
    expect(validatePlanDocument(badStep)).toEqual([
      "/steps/0: must have required property 'uid'",
      "/steps/0: must have required property 'updateMask'",
      "/steps/0: must have required property 'before'",
      "/steps/0: must have required property 'after'",
      '/steps/0: must match "then" schema',
    ]);
  });
});
