/**
 * Identity relationships in the plan (DESIGN.md §2): a change of relationship, or of a field
 * inside one, is one PATCH whose mask names the relationship field; the views say which part
 * changed, and a relationship replaced by another is shown as cleared.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { renderPlan } from '../../src/views/plan.js';
import type { UpdateStep } from '../../src/model/plan.js';
import { desiredState, liveState, r } from './plan-builders.js';

const GITHUB = 'https://token.actions.githubusercontent.com';

describe('identity relationships in a plan', () => {
  it('a changed subject pattern is one PATCH of claimMatch, shown field by field', () => {
    const live = liveState([
      r.identity('', 'ci', { claimMatch: { issuer: GITHUB, subjectPattern: 'repo:acme/app:.*' } }),
    ]);
    const desired = desiredState([
      r.identity('', 'ci', { claimMatch: { issuer: GITHUB, subjectPattern: 'repo:acme/.*:ref:refs/heads/main' } }),
    ]);
    const p = plan(desired, live);
    expect(p.steps).toHaveLength(1);
    const step = p.steps[0] as UpdateStep;
    expect(step.updateMask).toEqual(['claimMatch']);
    expect(step.after.claimMatch).toEqual({ issuer: GITHUB, subjectPattern: 'repo:acme/.*:ref:refs/heads/main' });
    expect(renderPlan(p, 'text')).toContain(
      'claimMatch.subjectPattern: "repo:acme/app:.*" → "repo:acme/.*:ref:refs/heads/main"',
    );
  });

  it('a relationship replaced by another is one PATCH naming the new one; the old one is shown as cleared', () => {
    const live = liveState([
      r.identity('', 'deployer', { claimMatch: { issuer: GITHUB, subject: 'repo:acme/app:ref:refs/heads/main' } }),
    ]);
    const aws = { awsAccount: '123456789012', arnPattern: 'arn:aws:sts::123456789012:assumed-role/deploy/.*' };
    const p = plan(desiredState([r.identity('', 'deployer', { awsIdentity: aws })]), live);
    const step = p.steps[0] as UpdateStep;
    expect(step.updateMask).toEqual(['awsIdentity']);
    expect(step.after).toEqual({ awsIdentity: aws });
    expect(step.before).toEqual({
      awsIdentity: undefined,
      claimMatch: { issuer: GITHUB, subject: 'repo:acme/app:ref:refs/heads/main' },
    });
    const text = renderPlan(p, 'text');
    expect(text).toContain(
      'awsIdentity: (unset) → {awsAccount: "123456789012", arnPattern: "arn:aws:sts::123456789012:assumed-role/deploy/.*"}',
    );
    expect(text).toContain(
      'claimMatch:  {issuer: "https://token.actions.githubusercontent.com", subject: "repo:acme/app:ref:refs/heads/main"} → (unset)',
    );
  });

  it('plans nothing when every relationship is as declared', () => {
    const live = liveState([
      r.identity('', 'signer', { servicePrincipal: 'COSIGNED' }),
      r.identity('', 'ci', { claimMatch: { issuer: GITHUB, subject: 's' } }),
    ]);
    const desired = desiredState([
      r.identity('', 'signer', { servicePrincipal: 'COSIGNED' }),
      r.identity('', 'ci', { claimMatch: { issuer: GITHUB, subject: 's' } }),
    ]);
    expect(plan(desired, live).steps).toEqual([]);
  });

  it('an identity whose manifest names no relationship leaves the live one alone', () => {
    const live = liveState([r.identity('', 'ci', { claimMatch: { issuer: GITHUB, subject: 's' } })]);
    expect(plan(desiredState([r.identity('', 'ci', { description: '' })]), live).steps).toEqual([]);
  });
});
