import { describe, expect, it } from 'vitest';
import { buildStepGraph, InvalidPlanError, measureCriticalPath } from '../../src/apply/graph.js';
import type { PlanStep } from '../../src/model/plan.js';

const create = (address: string, parent: string | null, extra: Partial<PlanStep> = {}): PlanStep => ({
  action: 'create',
  kind: address === 'org' ? 'group' : (address.slice(0, address.indexOf(':')) as PlanStep['kind']),
  address,
  parent,
  ...extra,
});
const del = (address: string, parent: string, extra: Partial<PlanStep> = {}): PlanStep => ({
  ...create(address, parent, extra),
  action: 'delete',
  uid: `uid-of-${address}`,
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

  it('adds the edges a plan forgot: create after its parent and its refs, delete after its children', () => {
    const g = buildStepGraph([
      create('org', null),
      create('identity:bot', 'org'),
      create('roleBinding:bot=deployer', 'org', {
        refs: { identityUid: { address: 'identity:bot' }, roleUid: { address: 'role:deployer' } },
      }),
      create('role:deployer', 'org'),
      del('group:old', 'org'),
      del('repo:old/r', 'group:old'),
    ]);
    expect(g.waitsFor.get('identity:bot')).toEqual(['org']);
    expect([...g.waitsFor.get('roleBinding:bot=deployer')!].sort()).toEqual(['identity:bot', 'org', 'role:deployer']);
    expect(g.waitsFor.get('group:old')).toEqual(['repo:old/r']);
    expect(g.waitsFor.get('repo:old/r')).toEqual([]);
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
      steps.push(create(`group:g${g}`, 'org'));
      for (let r = 0; r < 4; r++) {
        steps.push(create(`repo:g${g}/r${r}`, `group:g${g}`));
        steps.push(create(`tag:g${g}/r${r}:v1`, `repo:g${g}/r${r}`));
      }
    }
    expect(measureCriticalPath(buildStepGraph(steps))).toBe(4);
    expect(measureCriticalPath(buildStepGraph([]))).toBe(0);
  });
});
