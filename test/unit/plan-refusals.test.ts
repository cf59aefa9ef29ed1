/** The planner's rules: refusals. */
import { describe, expect, it } from 'vitest';
import { UnsafePlanError } from '../../src/model/errors.js';
import { assertSafe, plan } from '../../src/plan/index.js';
import type { LiveState } from '../../src/model/resources.js';
import { BUILTIN_ROLES, desiredState, liveState, ORG_UID, r, uidOf, outline, refusalsOf } from './plan-builders.js';

describe('plan: refusals', () => {
  it('refuses one binding declared twice, by name and by uid, naming both locations', () => {
    const live = liveState([r.identity('', 'ci-nightly'), r.binding('', 'ci-nightly', 'viewer')]);
    const byUid = r.binding('', { uid: uidOf(live, 'identity:ci-nightly') }, { uid: BUILTIN_ROLES.viewer! });
    const desired = desiredState([r.identity('', 'ci-nightly'), r.binding('', 'ci-nightly', 'viewer'), byUid]);
    expect(refusalsOf(desired, live)).toEqual([
      {
        rule: 'declared-twice',
        message:
          'roleBinding:ci-nightly=viewer is declared twice (manifest.yaml:3:1 and manifest.yaml:4:1), once by name and once by uid; declare it once',
        addresses: ['roleBinding:ci-nightly=viewer'],
      },
    ]);
    // Other refusals are still found in the same round.
    const both = refusalsOf(
      desiredState([r.identity('', 'ci-nightly'), r.binding('', 'ci-nightly', 'viewer'), byUid], {
        settings: { protect: ['repo:*'] },
      }),
      liveState([r.identity('', 'ci-nightly'), r.binding('', 'ci-nightly', 'viewer'), r.repo('', 'keep')]),
    );
    expect(both.map((x) => x.rule)).toEqual(['declared-twice', 'protected']);
  });

  it('refuses to delete a protected resource', () => {
    const live = liveState([r.repo('', 'nginx'), r.repo('', 'tmp')]);
    const refusals = refusalsOf(desiredState([], { settings: { protect: ['repo:ng*'] } }), live);
    expect(refusals).toEqual([
      {
        rule: 'protected',
        message: 'repo:nginx is protected (settings.protect) and may not be deleted',
        addresses: ['repo:nginx'],
      },
    ]);
  });

  it('refuses to delete a group that keeps an ignored child, naming it', () => {
    const live = liveState([r.group('eng'), r.identity('eng', 'human-ann'), r.repo('eng', 'app')]);
    const refusals = refusalsOf(desiredState([], { settings: { ignore: ['identity:eng/human-*'] } }), live);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ rule: 'not-empty', addresses: ['group:eng', 'identity:eng/human-ann'] });
    expect(refusals[0]!.message).toBe(
      'cannot delete group:eng: it still holds identity:eng/human-ann (ignored); the API would refuse with RESOURCE_NOT_EMPTY',
    );
  });

  it('refuses to delete an identity that a kept binding references', () => {
    const live = liveState([r.group('eng'), r.identity('', 'bot'), r.binding('eng', '/bot', 'viewer')]);
    const refusals = refusalsOf(desiredState([r.group('eng')], { settings: { prune: { roleBinding: false } } }), live);
    expect(refusals.map((x) => x.message)).toEqual([
      'cannot delete identity:bot: it is still referenced by roleBinding:eng//bot=viewer (settings.prune.roleBindings is false); ' +
        'the API would refuse with RESOURCE_NOT_EMPTY. To fix: turn pruning of role bindings on (settings.prune.roleBindings: true) ' +
        'so this plan deletes them too, or delete them by hand first',
    ]);
  });

  it('refuses deleting more than the ratio of a kind with at least 10, unless allowed', () => {
    const ids = Array.from({ length: 10 }, (_, i) => r.identity('', `id-${i}`));
    const live = liveState(ids);
    const keep7 = desiredState(ids.slice(0, 7));
    const [refusal] = refusalsOf(keep7, live);
    expect(refusal).toMatchObject({
      rule: 'mass-delete',
      addresses: ['identity:id-7', 'identity:id-8', 'identity:id-9'],
    });
    expect(refusal!.message).toBe(
      'the plan deletes 3 of 10 identities (30%), more than --max-delete-ratio 0.25; pass --allow-mass-delete if that is intended',
    );
    expect(plan(keep7, live, { allowMassDelete: true }).summary.delete).toBe(3);
    expect(plan(keep7, live, { maxDeleteRatio: 0.3 }).summary.delete).toBe(3);
    // Below 10 of a kind, any share may go.
    expect(plan(desiredState([]), liveState(ids.slice(0, 9))).summary.delete).toBe(9);
  });

  it('judges a repo delete as one repo, not by its tags, and says how many tags go with it', () => {
    const repos = Array.from({ length: 13 }, (_, i) => r.repo('', `svc-${i}`));
    const tags = Array.from({ length: 12 }, (_, i) => r.tag('', 'svc-4', `v${i}`));
    const live = liveState([...repos, ...tags]);
    const p = plan(desiredState(repos.filter((x) => x.address !== 'repo:svc-4')), live);
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 13 });
    expect(p.warnings).toEqual(['12 tags go with its deleted repo (repo:svc-4): deleting a repo deletes its tags']);
    // The repos are still judged: 4 of 13 is more than 0.25.
    const [refusal] = refusalsOf(desiredState(repos.slice(4)), live);
    expect(refusal).toMatchObject({
      rule: 'mass-delete',
      addresses: ['repo:svc-0', 'repo:svc-1', 'repo:svc-2', 'repo:svc-3'],
    });
    expect(refusal!.message).toBe(
      'the plan deletes 4 of 13 repos (31%), more than --max-delete-ratio 0.25; pass --allow-mass-delete if that is intended',
    );
  });

  it('counts the managed live resources of the kind for the ratio: ignored ones and other kinds do not count', () => {
    const ids = Array.from({ length: 12 }, (_, i) => r.identity('', `id-${i}`));
    const humans = Array.from({ length: 4 }, (_, i) => r.identity('', `human-${i}`));
    const repos = Array.from({ length: 20 }, (_, i) => r.repo('', `repo-${i}`));
    const settings = { ignore: ['identity:human-*'] };
    const live = liveState([...ids, ...humans, ...repos]);
    expect(plan(desiredState([...ids.slice(0, 9), ...repos], { settings }), live).summary.delete).toBe(3);
    // 4 of 16 identities would be 25%; but 4 ignored ones are not managed: 4 of 12 is refused.
    const [refusal] = refusalsOf(desiredState([...ids.slice(0, 8), ...repos], { settings }), live);
    expect(refusal!.message).toBe(
      'the plan deletes 4 of 12 identities (33%), more than --max-delete-ratio 0.25; pass --allow-mass-delete if that is intended',
    );
    // With only 9 managed (the ignored ones do not make it 13), any share may go.
    expect(
      plan(desiredState([...repos], { settings }), liveState([...ids.slice(0, 9), ...humans, ...repos])).summary.delete,
    ).toBe(9);
  });

  it('refuses deletes and creates of a kind whose live read was incomplete, but not other changes', () => {
    const live = liveState([r.identity('', 'gone'), r.repo('', 'old')], {
      incomplete: [{ kind: 'identity', reason: 'page token restarted twice' }],
    });
    const refusals = refusalsOf(desiredState([r.repo('', 'old')]), live);
    expect(refusals).toEqual([
      {
        rule: 'incomplete-read',
        message:
          'cannot delete 1 identity (identity:gone): the live read of identity was incomplete (page token restarted twice); run plan again',
        addresses: ['identity:gone'],
      },
    ]);
    const withCreate = plan(
      desiredState([r.repo('', 'old'), r.identity('', 'gone'), r.identity('', 'new'), r.repo('', 'fresh')]),
      live,
    );
    expect(outline(withCreate)).toEqual(['create identity:new', 'create repo:fresh']);
    // The identity the read may have missed could be identity:new: its create is refused too; the repo's is not.
    expect(withCreate.refusals).toEqual([
      {
        rule: 'incomplete-read',
        message:
          'cannot create 1 identity (identity:new): the live read of identity was incomplete (page token restarted twice), ' +
          'so it may exist already in the part not read and a create could duplicate; run plan again',
        addresses: ['identity:new'],
      },
    ]);
  });

  it('refuses deletes that rely on an incomplete read of another kind: children, referencing bindings, binding keys', () => {
    const shapes = [
      r.group('old'),
      r.repo('old', 'app'),
      r.identity('', 'bot'),
      r.binding('', 'bot', 'viewer'),
      r.repo('', 'web'),
    ];
    const refusedFor = (kind: LiveState['incomplete'][number]['kind']) =>
      refusalsOf(desiredState([]), liveState(shapes, { incomplete: [{ kind, reason: 'restarted' }] })).flatMap(
        (x) => x.addresses,
      );
    // An unseen child of any kind would make the group delete fail with RESOURCE_NOT_EMPTY.
    expect(refusedFor('subscription')).toEqual(['group:old']);
    // An unseen tag blocks its repo (and so the group); unseen bindings block what they reference.
    expect(refusedFor('tag')).toEqual(['group:old', 'repo:old/app', 'repo:web']);
    expect(refusedFor('roleBinding')).toEqual(['group:old', 'identity:bot', 'roleBinding:bot=viewer']);
    // A binding's address is built from the identity listing: an incomplete one may misname it.
    expect(refusedFor('identity')).toEqual(['group:old', 'identity:bot', 'roleBinding:bot=viewer']);
    const [refusal] = refusalsOf(
      desiredState([r.group('old'), r.repo('old', 'app')]),
      liveState(shapes, { incomplete: [{ kind: 'tag', reason: 'restarted' }] }),
    );
    expect(refusal!.message).toBe(
      'cannot delete 1 repo (repo:web): the live read of tag was incomplete (restarted); run plan again',
    );
  });

  it('refuses when a desired address matches two live resources', () => {
    const live = liveState([r.repo('', 'dup'), r.repo('', 'dup'), r.repo('', 'other'), r.repo('', 'other')]);
    const refusals = refusalsOf(desiredState([r.repo('', 'dup')]), live);
    expect(refusals).toEqual([
      {
        rule: 'ambiguous-live',
        message: `repo:dup matches 2 live resources (${ORG_UID}/0000000000000001, ${ORG_UID}/0000000000000002); rename or remove the duplicates, the plan will not guess`,
        addresses: ['repo:dup'],
      },
      {
        rule: 'ambiguous-live',
        message: `repo:other matches 2 live resources (${ORG_UID}/0000000000000003, ${ORG_UID}/0000000000000004); rename or remove the duplicates, the plan will not guess`,
        addresses: ['repo:other'],
      },
    ]);
  });

  // Found by the review: duplicates nothing declares made no step and no refusal ("No changes", "No drift").
  it('refuses duplicates nothing declares when prune would delete them, not when ignored or not pruned', () => {
    const live = liveState([r.repo('', 'dup'), r.repo('', 'dup'), r.repo('', 'other'), r.repo('', 'other')]);
    const addresses = (settings: Parameters<typeof desiredState>[1]) =>
      refusalsOf(desiredState([r.repo('', 'dup')], settings), live).flatMap((x) => x.addresses);
    expect(addresses({ settings: { ignore: ['repo:other'] } })).toEqual(['repo:dup']);
    expect(addresses({ settings: { prune: { repo: false } } })).toEqual(['repo:dup']);
  });

  it('collects every refusal, keeps the steps of the refused plan, and stops it at assertSafe', () => {
    const ids = Array.from({ length: 10 }, (_, i) => r.identity('', `id-${i}`));
    const live = liveState([...ids, r.repo('', 'keep'), r.group('g'), r.identity('g', 'human')]);
    const refused = plan(desiredState([], { settings: { protect: ['repo:*'], ignore: ['identity:g/*'] } }), live);
    // A refused plan is still a plan: it lists what it would have deleted.
    expect(outline(refused)).toContain('delete repo:keep');
    expect(outline(refused)).toContain('delete identity:id-0');
    const err = (() => {
      try {
        assertSafe(refused);
      } catch (e) {
        return e as UnsafePlanError;
      }
      throw new Error('expected a refusal');
    })();
    expect(err).toBeInstanceOf(UnsafePlanError);
    expect(err.code).toBe('PLAN_UNSAFE');
    expect(err.refusals.map((x) => x.rule)).toEqual(['protected', 'not-empty', 'mass-delete']);
    expect(err.message).toContain('repo:keep is protected');
  });
});
