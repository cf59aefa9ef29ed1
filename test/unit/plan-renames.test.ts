/** The planner's rules: renames in place (renamedFrom). */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { desiredState, liveState, r, uidOf, step, outline, refusalsOf, renamed } from './plan-builders.js';

describe('plan: renames in place (renamedFrom)', () => {
  const backend = () =>
    liveState([
      r.group('backend', { description: 'Backend' }),
      r.identity('backend', 'ci'),
      r.binding('backend', 'ci', 'viewer'),
      r.binding('', '/backend/ci', 'editor'),
      r.repo('backend', 'app'),
      r.tag('backend', 'app', '1.0'),
      r.group('backend/db'),
      r.identity('backend/db', 'migrator'),
    ]);
  const services = (group = renamed(r.group('services', { description: 'Backend' }), 'backend')) => [
    group,
    r.identity('services', 'ci'),
    r.binding('services', 'ci', 'viewer'),
    r.binding('', '/services/ci', 'editor'),
    r.repo('services', 'app'),
    r.group('services/db'),
    r.identity('services/db', 'migrator'),
  ];

  it('renames a group with everything beneath and bound to it as one update of name: same uid, no delete, no create', () => {
    const live = backend();
    const p = plan(desiredState(services()), live);
    expect(p.refusals).toEqual([]);
    expect(p.steps).toEqual([
      expect.objectContaining({
        action: 'update',
        address: 'group:services',
        previousAddress: 'group:backend',
        uid: uidOf(live, 'group:backend'),
        updateMask: ['name'],
        before: { name: 'backend' },
        after: { name: 'services' },
      }),
    ]);
    expect(p.warnings).toEqual([]);
  });

  it('carries other changed fields in the same update, and renames nested resources too', () => {
    const live = backend();
    const desired = services(renamed(r.group('services', { description: 'Services' }), 'backend'));
    desired[6] = renamed(r.identity('services/db', 'schema-bot'), 'migrator');
    const p = plan(desiredState(desired), live);
    expect(
      p.steps.map((s) => [
        s.action,
        s.address,
        s.action === 'update' ? s.updateMask : [],
        s.action === 'update' ? s.previousAddress : undefined,
      ]),
    ).toEqual([
      ['update', 'group:services', ['name', 'description'], 'group:backend'],
      ['update', 'identity:services/db/schema-bot', ['name'], 'identity:services/db/migrator'],
    ]);
  });

  it('renames an identity its bindings name by the new name', () => {
    const live = liveState([r.identity('', 'old-bot'), r.binding('', 'old-bot', 'viewer')]);
    const p = plan(
      desiredState([renamed(r.identity('', 'ci-bot'), 'old-bot'), r.binding('', 'ci-bot', 'viewer')]),
      live,
    );
    expect(outline(p)).toEqual(['update identity:ci-bot']);
    expect(step(p, 'identity:ci-bot')).toMatchObject({
      previousAddress: 'identity:old-bot',
      updateMask: ['name'],
      uid: uidOf(live, 'identity:old-bot'),
    });
  });

  it('is a no-op once renamed, so the line may stay in the manifests', () => {
    const after = liveState([
      r.group('services', { description: 'Backend' }),
      r.identity('services', 'ci'),
      r.binding('services', 'ci', 'viewer'),
      r.binding('', '/services/ci', 'editor'),
      r.repo('services', 'app'),
      r.group('services/db'),
      r.identity('services/db', 'migrator'),
    ]);
    expect(plan(desiredState(services()), after).steps).toEqual([]);
  });

  it('refuses when both the old and the new name are live, naming both', () => {
    const live = liveState([r.group('backend'), r.group('services')]);
    const refusals = refusalsOf(desiredState([renamed(r.group('services'), 'backend')]), live);
    expect(refusals).toEqual([
      {
        rule: 'rename-conflict',
        message:
          `group:services is renamedFrom "backend", but both group:backend (uid ${uidOf(live, 'group:backend')}) and group:services (uid ${uidOf(live, 'group:services')}) exist live; ` +
          'delete or rename one of them by hand, or drop renamedFrom to manage group:services as it is',
        addresses: ['group:services', 'group:backend'],
      },
    ]);
  });

  it('takes renames one after another: a name freed by one rename may be taken by the next', () => {
    const live = liveState([r.repo('', 'a'), r.repo('', 'b')]);
    // b becomes c, which frees b for a; in the other order b is still live when a wants it.
    const p = plan(desiredState([renamed(r.repo('', 'c'), 'b'), renamed(r.repo('', 'b'), 'a')]), live);
    expect(p.refusals).toEqual([]);
    // The rename that frees b runs first: the API refuses a second sibling named b.
    expect(p.steps.map((s) => [s.address, s.action === 'update' ? s.previousAddress : undefined])).toEqual([
      ['repo:c', 'repo:b'],
      ['repo:b', 'repo:a'],
    ]);
    expect(step(p, 'repo:b').dependsOn).toEqual(['repo:c']);
    const reversed = plan(desiredState([renamed(r.repo('', 'b'), 'a'), renamed(r.repo('', 'c'), 'b')]), live);
    expect(reversed.refusals.map((x) => [x.rule, x.addresses])).toEqual([['rename-conflict', ['repo:b', 'repo:a']]]);
  });

  it('takes group renames one after another too, each deeper one inside its renamed parent', () => {
    const live = liveState([r.group('a'), r.group('b'), r.group('b/x'), r.repo('b/x', 'app'), r.group('c')]);
    // At one depth: b becomes d, which frees b for a, and c becomes e. One deeper, x (in what
    // was b, now d) becomes y, and its repo moves with it.
    const p = plan(
      desiredState([
        renamed(r.group('d'), 'b'),
        renamed(r.group('b'), 'a'),
        renamed(r.group('e'), 'c'),
        renamed(r.group('d/y'), 'x'),
        r.repo('d/y', 'app'),
      ]),
      live,
    );
    expect(p.refusals).toEqual([]);
    expect(p.steps.map((s) => [s.address, s.action === 'update' ? s.previousAddress : s.action])).toEqual([
      ['group:d', 'group:b'],
      ['group:b', 'group:a'], // after the rename that frees its name
      ['group:e', 'group:c'],
      ['group:d/y', 'group:d/x'], // its previous name, in its parent as renamed
    ]);
    expect(step(p, 'group:d/y')).toMatchObject({ uid: uidOf(live, 'group:b/x'), updateMask: ['name'] });
  });

  it('creates when neither name is live (the old one is gone already)', () => {
    expect(outline(plan(desiredState([renamed(r.repo('', 'new-app'), 'old-app')]), liveState([])))).toEqual([
      'create repo:new-app',
    ]);
  });
});
