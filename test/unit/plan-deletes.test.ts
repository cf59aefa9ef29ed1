/** The planner's rules: deletes. */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { desiredState, liveState, r, uidOf, step, outline, refusalsOf } from './plan-builders.js';

describe('plan: deletes', () => {
  it('ignoring an identity also ignores the bindings that reference it: hand-granted access is never revoked', () => {
    const OUTSIDE = `${'e'.repeat(40)}/0000000000000001`;
    const live = liveState([
      r.group('eng'),
      r.identity('eng', 'human-alice'),
      r.identity('eng', 'ci'),
      r.binding('eng', 'human-alice', 'viewer'), // granted by hand
      r.binding('', '/eng/human-alice', 'editor'), // in another group
      r.binding('eng', 'ci', 'viewer'),
      r.binding('eng', { uid: OUTSIDE }, 'viewer'), // a person outside the org
    ]);
    const desired = desiredState([r.group('eng'), r.identity('eng', 'ci')], {
      settings: { ignore: ['identity:*/human-*', 'roleBinding:*uid:*'] },
    });
    const p = plan(desired, live);
    expect(outline(p)).toEqual(['delete roleBinding:eng/ci=viewer']);
    expect(p.refusals).toEqual([]);
    // Without the ignore, the same access would be revoked.
    expect(
      outline(plan(desiredState([r.group('eng'), r.identity('eng', 'ci')]), live, { allowMassDelete: true })),
    ).toEqual(
      expect.arrayContaining([
        'delete roleBinding:eng/human-alice=viewer',
        'delete roleBinding:/eng/human-alice=editor',
        `delete roleBinding:eng/uid:${OUTSIDE}=viewer`,
      ]),
    );
  });

  it("a group cannot be deleted while an ignored identity's binding still lives in it", () => {
    const live = liveState([
      r.group('eng'),
      r.group('old'),
      r.identity('eng', 'human-bob'),
      r.binding('old', '/eng/human-bob', 'viewer'),
    ]);
    const refusals = refusalsOf(desiredState([r.group('eng')], { settings: { ignore: ['identity:*/human-*'] } }), live);
    expect(refusals.map((x) => x.rule)).toEqual(['not-empty']);
    expect(refusals[0]!.message).toContain('roleBinding:old//eng/human-bob=viewer');
  });

  it('deletes children first: bindings, tags (with a reason), identities/repos/roles, groups; deepest first within a kind', () => {
    const live = liveState([
      r.group('eng'),
      r.group('eng/platform'),
      r.identity('eng', 'ci'),
      r.role('eng/platform', 'deployer'),
      r.binding('eng/platform', '/eng/ci', 'deployer'),
      r.binding('', '/eng/ci', 'viewer'),
      r.repo('eng/platform', 'app'),
      r.tag('eng/platform', 'app', '1.0'),
      r.subscription('eng', 'https://h.example/x'),
    ]);
    const p = plan(desiredState([]), live);
    expect(outline(p)).toEqual([
      'delete roleBinding:eng/platform//eng/ci=deployer',
      'delete roleBinding:/eng/ci=viewer',
      'delete tag:eng/platform/app:1.0',
      'delete identity:eng/ci',
      'delete repo:eng/platform/app',
      'delete subscription:eng/https://h.example/x',
      'delete role:eng/platform/deployer',
      'delete group:eng/platform',
      'delete group:eng',
    ]);
    expect(step(p, 'tag:eng/platform/app:1.0').reason).toBe('tag of deleted repo:eng/platform/app');
    expect(step(p, 'repo:eng/platform/app').dependsOn).toEqual(['tag:eng/platform/app:1.0']);
    expect(step(p, 'identity:eng/ci').dependsOn).toEqual([
      'roleBinding:/eng/ci=viewer',
      'roleBinding:eng/platform//eng/ci=deployer',
    ]);
    expect(step(p, 'role:eng/platform/deployer').dependsOn).toEqual(['roleBinding:eng/platform//eng/ci=deployer']);
    expect(step(p, 'group:eng/platform').dependsOn).toEqual([
      'repo:eng/platform/app',
      'role:eng/platform/deployer',
      'roleBinding:eng/platform//eng/ci=deployer',
    ]);
    expect(step(p, 'group:eng').dependsOn).toEqual([
      'group:eng/platform',
      'identity:eng/ci',
      'subscription:eng/https://h.example/x',
    ]);
    expect(step(p, 'group:eng')).toMatchObject({
      uid: uidOf(live, 'group:eng'),
      parent: 'org',
      before: { name: 'eng' },
    });
    expect(step(p, 'roleBinding:/eng/ci=viewer').before).toEqual({ identity: '/eng/ci', role: 'viewer' });
  });

  it('shows a rename as a delete and a create of one kind under one parent, and says what goes with it', () => {
    const live = liveState([
      r.group('backend'),
      r.identity('backend', 'ci'),
      r.binding('backend', 'ci', 'viewer'),
      r.repo('', 'web'),
    ]);
    const p = plan(
      desiredState([
        r.group('services'),
        r.identity('services', 'ci'),
        r.binding('services', 'ci', 'viewer'),
        r.repo('', 'web'),
      ]),
      live,
    );
    expect(step(p, 'group:services').reason).toBe('looks like a rename of group:backend');
    expect(step(p, 'group:backend').reason).toBe('looks like a rename to group:services');
    expect(step(p, 'group:backend').dependsOn).toEqual(['identity:backend/ci', 'roleBinding:backend/ci=viewer']);
    expect(p.warnings).toEqual([
      'group:backend → group:services looks like a rename: resources are matched by name, so this is a delete and a create; ' +
        'the new one gets a new uid, and 2 other deletes come with it; to rename it in place instead (same uid, everything beneath and every binding kept), add renamedFrom: "backend" to group:services',
    ]);
    // The identity moved with its group: its own delete/create pair is under different parents.
    expect(step(p, 'identity:services/ci').reason).toBeUndefined();
    // Two creates and one delete under one parent are not guessed at.
    const two = plan(desiredState([r.repo('', 'a'), r.repo('', 'b')]), liveState([r.repo('', 'old')]));
    expect(two.warnings).toEqual([]);
    expect(two.steps.every((s) => s.reason === undefined)).toBe(true);
  });

  it('shows a move as a delete and a create of one kind and name under different groups', () => {
    const live = liveState([
      r.group('a'),
      r.group('b'),
      r.identity('a', 'ci'),
      r.identity('b', 'old'),
      r.binding('a', 'ci', 'viewer'),
    ]);
    const p = plan(desiredState([r.group('a'), r.group('b'), r.identity('b', 'ci'), r.identity('b', 'old')]), live);
    expect(outline(p)).toEqual(['create identity:b/ci', 'delete roleBinding:a/ci=viewer', 'delete identity:a/ci']);
    expect(step(p, 'identity:b/ci').reason).toBe('looks like a move of identity:a/ci');
    expect(step(p, 'identity:a/ci').reason).toBe('looks like a move to identity:b/ci');
    expect(p.warnings).toContain(
      'identity:a/ci → identity:b/ci looks like a move: resources are matched by group and name, so this is a delete and a create; ' +
        'the new one gets a new uid, and 1 other delete comes with it; a move to another group cannot be done in place: the uids of the moved resources will change',
    );
    // A move is the stronger guess: b/old under the same parent as b/ci is not also called a rename.
    const both = plan(
      desiredState([r.group('a'), r.group('b'), r.identity('b', 'ci'), r.binding('b', 'ci', 'viewer')]),
      live,
    );
    expect(step(both, 'identity:b/ci').reason).toBe('looks like a move of identity:a/ci');
    expect(step(both, 'identity:b/old').reason).toBeUndefined();
    // Into an existing group from one that is deleted: still a move.
    const fromDeleted = plan(desiredState([r.group('b'), r.identity('b', 'ci'), r.identity('b', 'old')]), live);
    expect(step(fromDeleted, 'identity:b/ci').reason).toBe('looks like a move of identity:a/ci');
    // Two deletes of one name: not guessed at.
    const two = plan(
      desiredState([r.group('a'), r.group('b'), r.group('c'), r.identity('c', 'x')]),
      liveState([r.group('a'), r.group('b'), r.identity('a', 'x'), r.identity('b', 'x')]),
    );
    expect(two.steps.every((x) => x.reason === undefined)).toBe(true);
  });

  it('refuses a move whose old identity keeps bindings because pruning of role bindings is off, and says how to fix it', () => {
    const live = liveState([r.group('a'), r.group('b'), r.identity('a', 'ci'), r.binding('', '/a/ci', 'viewer')]);
    const desired = desiredState(
      [r.group('a'), r.group('b'), r.identity('b', 'ci'), r.binding('', '/b/ci', 'viewer')],
      {
        settings: { prune: { roleBinding: false } },
      },
    );
    expect(refusalsOf(desired, live)).toEqual([
      {
        rule: 'not-empty',
        message:
          'cannot delete identity:a/ci: it is still referenced by roleBinding:/a/ci=viewer (settings.prune.roleBindings is false); ' +
          'the API would refuse with RESOURCE_NOT_EMPTY. To fix: turn pruning of role bindings on (settings.prune.roleBindings: true) ' +
          'so this plan deletes them too, or delete them by hand first',
        addresses: ['identity:a/ci', 'roleBinding:/a/ci=viewer'],
      },
    ]);
    // With pruning on, the old binding goes first and the move is planned.
    const p = plan(
      desiredState([r.group('a'), r.group('b'), r.identity('b', 'ci'), r.binding('', '/b/ci', 'viewer')]),
      live,
    );
    expect(outline(p)).toEqual([
      'create identity:b/ci',
      'create roleBinding:/b/ci=viewer',
      'delete roleBinding:/a/ci=viewer',
      'delete identity:a/ci',
    ]);
  });

  it('deletes a role only after the bindings are PATCHed away from it', () => {
    const live = liveState([r.identity('', 'bot'), r.role('', 'old'), r.binding('', 'bot', 'old')]);
    const p = plan(desiredState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer')]), live);
    expect(outline(p)).toEqual(['update roleBinding:bot=viewer', 'delete role:old']);
    expect(step(p, 'role:old').dependsOn).toEqual(['roleBinding:bot=viewer']);
  });

  it('moves a role between groups: create the new role, PATCH the binding to it, then delete the old role', () => {
    const live = liveState([
      r.group('a'),
      r.group('a/x'),
      r.identity('', 'bot'),
      r.role('a', 'deployer'),
      r.binding('a/x', '/bot', '/a/deployer'),
    ]);
    const p = plan(
      desiredState([
        r.group('a'),
        r.group('a/x'),
        r.identity('', 'bot'),
        r.role('', 'deployer'),
        r.binding('a/x', '/bot', '/deployer'),
      ]),
      live,
    );
    expect(outline(p)).toEqual([
      'create role:deployer',
      'update roleBinding:a/x//bot=/deployer',
      'delete role:a/deployer',
    ]);
    expect(step(p, 'roleBinding:a/x//bot=/deployer')).toMatchObject({
      uid: uidOf(live, 'roleBinding:a/x//bot=/a/deployer'),
      dependsOn: ['role:deployer'],
    });
    expect(step(p, 'role:a/deployer').dependsOn).toEqual(['roleBinding:a/x//bot=/deployer']);
  });

  it('replaces a binding whose identity is deleted: the old binding goes before the identity, the new one after its identity', () => {
    const live = liveState([r.group('g'), r.identity('', 'old-bot'), r.binding('g', '/old-bot', 'viewer')]);
    const p = plan(desiredState([r.group('g'), r.identity('', 'new-bot'), r.binding('g', '/new-bot', 'viewer')]), live);
    expect(outline(p)).toEqual([
      'create identity:new-bot',
      'create roleBinding:g//new-bot=viewer',
      'delete roleBinding:g//old-bot=viewer',
      'delete identity:old-bot',
    ]);
    expect(step(p, 'roleBinding:g//new-bot=viewer').dependsOn).toEqual(['identity:new-bot']);
    expect(step(p, 'identity:old-bot').dependsOn).toEqual(['roleBinding:g//old-bot=viewer']);
  });

  it('two live bindings of one identity in a group and one desired with another role: no guess, create and delete', () => {
    const live = liveState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer'), r.binding('', 'bot', 'editor')]);
    const p = plan(desiredState([r.identity('', 'bot'), r.binding('', 'bot', 'owner')]), live);
    expect(outline(p)).toEqual([
      'create roleBinding:bot=owner',
      'delete roleBinding:bot=editor',
      'delete roleBinding:bot=viewer',
    ]);
    // One of the two kept: the other pairs with the new role as one PATCH.
    const kept = plan(
      desiredState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer'), r.binding('', 'bot', 'owner')]),
      live,
    );
    expect(outline(kept)).toEqual(['update roleBinding:bot=owner']);
    expect(step(kept, 'roleBinding:bot=owner').uid).toBe(uidOf(live, 'roleBinding:bot=editor'));
  });

  it("leaves live tags alone unless their repo goes or the manifests declare that repo's tags", () => {
    const live = liveState([
      r.repo('', 'a'),
      r.tag('', 'a', '1'),
      r.repo('', 'b'),
      r.tag('', 'b', '1'),
      r.tag('', 'b', '2'),
    ]);
    const p = plan(desiredState([r.repo('', 'a'), r.repo('', 'b'), r.tag('', 'b', '2')]), live);
    expect(outline(p)).toEqual(['delete tag:b:1']);
    expect(step(p, 'tag:b:1').reason).toBeUndefined();
  });

  it('keeps what a kind with pruning off has, and says so', () => {
    const live = liveState([r.identity('', 'a'), r.identity('', 'b'), r.repo('', 'x')]);
    const p = plan(desiredState([], { settings: { prune: { identity: false } } }), live);
    expect(outline(p)).toEqual(['delete repo:x']);
    expect(p.warnings).toEqual([
      '2 identities not in the manifests are kept (identity:a, identity:b): settings.prune.identities is false',
    ]);
    const none = plan(desiredState([], { settings: { prune: false } }), live);
    expect(none.steps).toEqual([]);
    expect(none.warnings).toEqual([
      '2 identities not in the manifests are kept (identity:a, identity:b): settings.prune is false',
      '1 repo not in the manifests is kept (repo:x): settings.prune is false',
    ]);
  });

  it('names at most ten kept resources in the note, then how many more', () => {
    const subs = Array.from({ length: 12 }, (_, i) =>
      r.subscription('', `https://h.example/${String(i).padStart(2, '0')}`),
    );
    const p = plan(desiredState([], { settings: { prune: { subscription: false } } }), liveState(subs));
    const names = subs
      .slice(0, 10)
      .map((s) => s.address)
      .join(', ');
    expect(p.warnings).toEqual([
      `12 subscriptions not in the manifests are kept (${names} and 2 more): settings.prune.subscriptions is false`,
    ]);
  });

  it('never creates, updates or deletes an ignored address', () => {
    const live = liveState([
      r.identity('', 'human-ann', { description: 'x' }),
      r.identity('', 'bot', { description: 'x' }),
    ]);
    const desired = desiredState([r.identity('', 'bot', { description: 'y' }), r.identity('', 'human-bob')], {
      settings: { ignore: ['identity:human-*'] },
    });
    expect(outline(plan(desired, live))).toEqual(['update identity:bot']);
  });
});
