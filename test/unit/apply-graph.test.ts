import { describe, expect, it } from 'vitest';
import { buildStepGraph, InvalidPlanError, measureCriticalPath } from '../../src/apply/graph.js';
import type { CreateStep, DeleteStep, PlanStep } from '../../src/model/plan.js';

const kindOf = (address: string): PlanStep['kind'] =>
  address === 'org' ? 'group' : (address.slice(0, address.indexOf(':')) as PlanStep['kind']);
const create = (address: string, parent: string | null, extra: Partial<CreateStep> = {}): CreateStep => ({
  action: 'create',
  kind: kindOf(address),
  address,
  parent,
  after: {},
  ...extra,
});
const del = (address: string, parent: string, extra: Partial<DeleteStep> = {}): DeleteStep => ({
  action: 'delete',
  kind: kindOf(address),
  address,
  parent,
  uid: `uid-of-${address}`,
  ...extra,
});

describe('buildStepGraph', () => {
  it('follows dependsOn and ignores dependencies on steps outside the plan (they exist already)', () => {
    const g = buildStepGraph([
      create('identity:bot', 'org', { parentUid: 'o', dependsOn: ['group:elsewhere'] }),
      create('roleBinding:bot=viewer', 'org', { parentUid: 'o', dependsOn: ['identity:bot'] }),
    ]);
    expect(g.waitsFor.get('identity:bot')).toEqual([]);
    expect(g.waitsFor.get('roleBinding:bot=viewer')).toEqual(['identity:bot']);
    expect(g.dependents.get('identity:bot')).toEqual(['roleBinding:bot=viewer']);
  });

  it('rejects a plan that lacks an edge it needs, naming each, instead of adding it', () => {
    const forgetful = () =>
      buildStepGraph([
        create('org', null),
        create('identity:bot', 'org'),
        create('roleBinding:bot=deployer', 'org', {
          dependsOn: ['org'],
          refs: { identityUid: { address: 'identity:bot' }, roleUid: { address: 'role:deployer' } },
        }),
        create('role:deployer', 'org', { dependsOn: ['org'] }),
        del('group:old', 'org'),
        del('repo:old/r', 'group:old'),
      ]);
    expect(forgetful).toThrow(InvalidPlanError);
    expect(forgetful).toThrow(
      'the plan cannot be applied: it lacks 4 ordering edges that they need (a bug in the planner, or an edited plan file): ' +
        'identity:bot must wait for org; roleBinding:bot=deployer must wait for identity:bot; roleBinding:bot=deployer must wait for role:deployer; group:old must wait for repo:old/r',
    );
    const complete = buildStepGraph([
      create('org', null),
      create('identity:bot', 'org', { dependsOn: ['org'] }),
      del('group:old', 'org', { dependsOn: ['repo:old/r'] }),
      del('repo:old/r', 'group:old'),
    ]);
    expect(complete.waitsFor.get('identity:bot')).toEqual(['org']);
    expect(complete.waitsFor.get('group:old')).toEqual(['repo:old/r']);
  });

  it('refuses duplicate addresses and cycles, naming them', () => {
    expect(() => buildStepGraph([create('repo:a', 'org'), create('repo:a', 'org')])).toThrow(
      /two steps have the address repo:a/,
    );
    const cyclic = () =>
      buildStepGraph([
        create('repo:a', 'org', { dependsOn: ['repo:c'] }),
        create('repo:b', 'org', { dependsOn: ['repo:a'] }),
        create('repo:c', 'org', { dependsOn: ['repo:b'] }),
      ]);
    expect(cyclic).toThrow(InvalidPlanError);
    expect(cyclic).toThrow(/cycle: repo:a → repo:c → repo:b → repo:a/);
  });

  it('measures the longest chain of steps', () => {
    const steps = [create('org', null)];
    for (let g = 0; g < 3; g++) {
      steps.push(create(`group:g${g}`, 'org', { dependsOn: ['org'] }));
      for (let r = 0; r < 4; r++) {
        steps.push(create(`repo:g${g}/r${r}`, `group:g${g}`, { dependsOn: [`group:g${g}`] }));
        steps.push(create(`tag:g${g}/r${r}:v1`, `repo:g${g}/r${r}`, { dependsOn: [`repo:g${g}/r${r}`] }));
      }
    }
    expect(measureCriticalPath(buildStepGraph(steps))).toBe(4);
    expect(measureCriticalPath(buildStepGraph([]))).toBe(0);
  });
});
