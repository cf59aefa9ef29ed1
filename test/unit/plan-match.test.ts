/**
 * Matching (src/plan/phases/match.ts): a live resource is claimed by one declaration only. Only a
 * pinned uid can reach a live resource another declaration's address names, so matching keeps
 * the matched apart only for those; these plans hold it to the rule.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { desiredState, liveState, outline, r, step, uidOf } from './plan-builders.js';

describe('plan: matching', () => {
  it('a live group a pinned uid claims is not matched again by the declaration at its address', () => {
    const live = liveState([r.group('eng', { description: 'd' }), r.repo('', 'web')]);
    const engUid = uidOf(live, 'group:eng');
    // The org pinned to the uid of group eng: the org takes eng; the declared eng is then a create,
    // and the live root that nothing matched is left to delete.
    const desired = desiredState([r.org(), r.group('eng', { description: 'd' }), r.repo('', 'web')], {
      orgUid: engUid,
    });
    const p = plan(desired, live);
    expect(outline(p)).toEqual(['create group:eng', 'update org']);
    expect(step(p, 'org')).toMatchObject({ uid: engUid, before: { name: 'eng' }, after: { name: 'acme' } });
    expect(p.refusals.map((x) => x.rule)).toEqual([]);
  });

  it("the live resource at a pinned declaration's address is not matched by it: the pinned uid is", () => {
    const live = liveState([r.group('eng'), r.group('ops')]);
    const desired = desiredState([r.group('eng')]);
    const eng = desired.resources.find((d) => d.address === 'group:eng')!;
    eng.uid = uidOf(live, 'group:ops');
    const p = plan(desired, live);
    // ops is updated into eng; the live eng, which nothing matched, is deleted.
    expect(p.steps.map((s) => `${s.action} ${s.address} ${'uid' in s ? s.uid : ''}`)).toEqual([
      `update group:eng ${uidOf(live, 'group:ops')}`,
      `delete group:eng ${uidOf(live, 'group:eng')}`,
    ]);
  });

  it('a binding declared twice, by name and by uid, is planned once (the first) and refused', () => {
    const live = liveState([r.identity('', 'bot')]);
    const byUid = r.binding('', { uid: uidOf(live, 'identity:bot') }, 'viewer');
    const p = plan(desiredState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer'), byUid]), live);
    expect(outline(p)).toEqual(['create roleBinding:bot=viewer']);
    expect(step(p, 'roleBinding:bot=viewer').source?.line).toBe(3);
    expect(p.refusals.map((x) => x.rule)).toEqual(['declared-twice']);
  });
});
