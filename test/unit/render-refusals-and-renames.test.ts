import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { renderPlan } from '../../src/views/plan.js';
import { validatePlanDocument } from '../../src/saved-plan/plan-schema.js';
import { desiredState, liveState, r } from './plan-builders.js';

/** A plan refused because it would delete a protected repo, beside an ordinary delete. */
function refusedPlan() {
  const live = liveState([r.repo('', 'keep'), r.identity('', 'stray')]);
  return plan(desiredState([], { settings: { protect: ['repo:*'] } }), live);
}

const REFUSAL = 'repo:keep is protected (settings.protect) and may not be deleted';

describe('a refused plan in every view', () => {
  it('text: the steps it would take, then why it is refused', () => {
    const text = renderPlan(refusedPlan(), 'text');
    expect(text).toContain('platform-sync would make these changes to org acme');
    expect(text).toContain('- delete repo:keep');
    expect(text).toContain('- delete identity:stray');
    expect(text).toContain(`Refused: apply will not run this plan:\n  x ${REFUSAL}\n`);
  });

  it('markdown: a caution with the reasons, and every delete it would have made listed', () => {
    const md = renderPlan(refusedPlan(), 'markdown');
    expect(md).toContain(`> [!CAUTION]\n> **This plan is refused: apply will not run it.**\n>\n> - ${REFUSAL}\n`);
    expect(md).toContain('> **This plan would delete 2 resources:**');
    expect(md).toContain('> - `repo:keep`');
    expect(md).toContain('> - `identity:stray`');
    expect(md).toContain('- delete repo:keep');
  });

  it('json: steps and refusals, valid against the plan schema', () => {
    const doc = JSON.parse(renderPlan(refusedPlan(), 'json'));
    expect(doc.steps.map((s: { address: string }) => s.address).sort()).toEqual(['identity:stray', 'repo:keep']);
    expect(doc.refusals).toEqual([{ rule: 'protected', message: REFUSAL, addresses: ['repo:keep'] }]);
    expect(validatePlanDocument(doc)).toEqual([]);
  });

  it('an accepted plan has no refusals in any view', () => {
    const accepted = plan(desiredState([r.repo('', 'keep')]), liveState([r.repo('', 'keep'), r.identity('', 'stray')]));
    expect(accepted.refusals).toEqual([]);
    expect(JSON.parse(renderPlan(accepted, 'json'))).not.toHaveProperty('refusals');
    expect(renderPlan(accepted, 'text')).not.toContain('Refused');
    expect(renderPlan(accepted, 'markdown')).not.toContain('CAUTION');
  });
});

describe('a rename in place in every view', () => {
  function renamePlan() {
    const live = liveState([r.group('backend'), r.identity('backend', 'ci')]);
    const services = Object.assign(r.group('services'), { renamedFrom: 'backend' });
    return plan(desiredState([services, r.identity('services', 'ci')]), live);
  }

  it('text and markdown say rename, old address to new', () => {
    expect(renderPlan(renamePlan(), 'text')).toContain('~ rename group:backend → group:services');
    const md = renderPlan(renamePlan(), 'markdown');
    expect(md).toContain(
      '> **This plan renames 1 resource in place** (same uid; everything beneath and every binding kept):\n>\n> - `group:backend` → `group:services`\n',
    );
    expect(md).toContain('! rename group:backend → group:services');
  });

  it('json carries previousAddress, valid against the plan schema', () => {
    const doc = JSON.parse(renderPlan(renamePlan(), 'json'));
    expect(doc.steps).toEqual([
      expect.objectContaining({
        action: 'update',
        address: 'group:services',
        previousAddress: 'group:backend',
        updateMask: ['name'],
      }),
    ]);
    expect(validatePlanDocument(doc)).toEqual([]);
  });
});
