import { describe, expect, it } from 'vitest';
import { UnsafePlanError, UserError } from '../../src/model/errors.js';
import type { Plan, PlanRefusal, PlanStep, StepRefs } from '../../src/model/plan.js';
import { assertSafe, plan, type PlanOptions } from '../../src/plan/index.js';
import { fingerprintLive } from '../../src/saved-plan/fingerprint.js';
import type { DesiredState, LiveState } from '../../src/model/resources.js';
import { BUILTIN_ROLES, desiredState, emptyLive, liveState, ORG_UID, r, uidOf } from './plan-builders.js';

/** A step with every action's fields readable (absent where its action has none). */
type AnyStep = PlanStep & { before?: Record<string, unknown>; after?: Record<string, unknown>; refs?: StepRefs; uid?: string; updateMask?: string[] };

function step(p: Plan, address: string): AnyStep {
  const found = p.steps.find((s) => s.address === address);
  if (!found) throw new Error(`no step ${address} in ${p.steps.map((s) => `${s.action} ${s.address}`).join(', ')}`);
  return found;
}

function outline(p: Plan): string[] {
  return p.steps.map((s) => `${s.action} ${s.address}`);
}

function refusalsOf(desired: DesiredState, live: LiveState, options?: PlanOptions): PlanRefusal[] {
  const refusals = plan(desired, live, options).refusals;
  if (refusals.length === 0) throw new Error('expected the plan to be refused');
  return refusals;
}

const ISSUER = 'https://token.actions.githubusercontent.com';

describe('plan: matching and updates', () => {
  it('plans nothing when live matches desired', () => {
    const shapes = [r.group('eng'), r.identity('eng', 'bot', { description: 'x' }), r.repo('', 'nginx', { description: 'd' })];
    const p = plan(desiredState(shapes), liveState(shapes));
    expect(p.steps).toEqual([]);
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 0 });
    expect(p.org).toEqual({ name: 'acme', uid: ORG_UID });
  });

  it('leaves fields absent from the manifest alone, and clears a description set to ""', () => {
    const live = liveState([r.identity('', 'bot', { description: 'kept', claimMatch: { issuer: ISSUER, subject: 's' } }), r.repo('', 'app', { description: 'old' })]);
    const p = plan(desiredState([r.identity('', 'bot'), r.repo('', 'app', { description: '' })]), live);
    expect(outline(p)).toEqual(['update repo:app']);
    expect(step(p, 'repo:app')).toMatchObject({ updateMask: ['description'], before: { description: 'old' }, after: { description: '' } });
  });

  it('puts exactly the changed fields in updateMask, before and after', () => {
    const live = liveState([r.identity('', 'bot', { description: 'same', claimMatch: { issuer: ISSUER, subject: 'old' } })]);
    const desired = desiredState([r.identity('', 'bot', { description: 'same', claimMatch: { issuer: ISSUER, subject: 'new' } })]);
    const s = step(plan(desired, live), 'identity:bot');
    expect(s).toMatchObject({
      action: 'update',
      uid: uidOf(live, 'identity:bot'),
      parent: 'org',
      parentUid: ORG_UID,
      updateMask: ['claimMatch'],
      before: { claimMatch: { issuer: ISSUER, subject: 'old' } },
      after: { claimMatch: { issuer: ISSUER, subject: 'new' } },
      source: { file: 'manifest.yaml', line: 2, column: 1 },
    });
    expect(Object.keys(s.before!)).toEqual(['claimMatch']);
  });

  it('compares claimMatch structurally and capabilities as a set, sending the desired order', () => {
    const live = liveState([
      r.identity('', 'bot', { claimMatch: { subject: 's', issuer: ISSUER } as never }),
      r.role('', 'deployer', { capabilities: ['tag.create', 'repo.list'] }),
      r.role('', 'reader', { capabilities: ['repo.list'] }),
    ]);
    const desired = desiredState([
      r.identity('', 'bot', { claimMatch: { issuer: ISSUER, subject: 's' } }),
      r.role('', 'deployer', { capabilities: ['repo.list', 'tag.create'] }),
      r.role('', 'reader', { capabilities: ['tag.list', 'repo.list'] }),
    ]);
    const p = plan(desired, live);
    expect(outline(p)).toEqual(['update role:reader']);
    expect(step(p, 'role:reader')).toMatchObject({ updateMask: ['capabilities'], after: { capabilities: ['tag.list', 'repo.list'] } });
  });

  it('sends a changed readme in the repo update with "readme" in the mask', () => {
    const live = liveState([r.repo('', 'nginx', { description: 'd', readme: '# old\n' })]);
    const p = plan(desiredState([r.repo('', 'nginx', { description: 'e', readme: '# new\n' })]), live);
    expect(step(p, 'repo:nginx')).toMatchObject({
      updateMask: ['description', 'readme'],
      before: { description: 'd', readme: '# old\n' },
      after: { description: 'e', readme: '# new\n' },
    });
  });

  it('treats a readme never set as empty', () => {
    const live = liveState([r.repo('', 'nginx')]);
    expect(plan(desiredState([r.repo('', 'nginx', { readme: '' })]), live).steps).toEqual([]);
    expect(outline(plan(desiredState([r.repo('', 'nginx', { readme: 'x' })]), live))).toEqual(['update repo:nginx']);
  });

  it('renames the org when its uid is pinned', () => {
    const live = liveState([r.identity('', 'bot')], { orgUid: 'f'.repeat(40) });
    const desired = desiredState([r.org({ name: 'acme-corp' }), r.identity('', 'bot')], { orgUid: 'f'.repeat(40) });
    const p = plan(desired, live);
    expect(outline(p)).toEqual(['update org']);
    expect(step(p, 'org')).toMatchObject({ uid: 'f'.repeat(40), updateMask: ['name'], before: { name: 'acme' }, after: { name: 'acme-corp' } });
    expect(p.org).toEqual({ name: 'acme-corp', uid: 'f'.repeat(40) });
  });

  it('warns instead of replacing a tag whose digest changed (tags are immutable)', () => {
    const live = liveState([r.repo('', 'app'), r.tag('', 'app', '1.0', 'sha256:aa')]);
    const p = plan(desiredState([r.repo('', 'app'), r.tag('', 'app', '1.0', 'sha256:bb')]), live);
    expect(p.steps).toEqual([]);
    expect(p.warnings).toEqual([expect.stringContaining('tag:app:1.0 has digest sha256:aa but the manifests say sha256:bb')]);
  });
});

describe('plan: role bindings', () => {
  const base = [r.group('eng'), r.identity('', 'bot'), r.role('', 'deployer', { capabilities: ['repo.list'] })];

  it('turns a changed role into one PATCH of roleUid', () => {
    const live = liveState([...base, r.binding('eng', '/bot', 'viewer')]);
    const p = plan(desiredState([...base, r.binding('eng', { path: 'bot' }, { path: 'deployer' })]), live);
    expect(outline(p)).toEqual(['update roleBinding:eng//bot=/deployer']);
    expect(step(p, 'roleBinding:eng//bot=/deployer')).toMatchObject({
      kind: 'roleBinding',
      uid: uidOf(live, 'roleBinding:eng//bot=viewer'),
      updateMask: ['roleUid'],
      before: { roleUid: BUILTIN_ROLES.viewer },
      after: { roleUid: uidOf(live, 'role:deployer') },
      refs: { roleUid: { address: 'role:deployer', uid: uidOf(live, 'role:deployer') } },
      reason: 'role viewer → deployer (was roleBinding:eng//bot=viewer)',
    });
  });

  it('a role change to a role being created depends on that create and carries no uid yet', () => {
    const live = liveState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer')]);
    const p = plan(desiredState([r.identity('', 'bot'), r.role('', 'new-role', { capabilities: ['repo.list'] }), r.binding('', 'bot', 'new-role')]), live);
    expect(outline(p)).toEqual(['create role:new-role', 'update roleBinding:bot=new-role']);
    const s = step(p, 'roleBinding:bot=new-role');
    expect(s.refs).toEqual({ roleUid: { address: 'role:new-role' } });
    expect(s.after).toEqual({});
    expect(s.dependsOn).toEqual(['role:new-role']);
  });

  it('matches by full address when an identity has more than one binding in a group', () => {
    const live = liveState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer')]);
    const p = plan(desiredState([r.identity('', 'bot'), r.binding('', 'bot', 'editor'), r.binding('', 'bot', 'owner')]), live);
    expect(outline(p)).toEqual(['create roleBinding:bot=editor', 'create roleBinding:bot=owner', 'delete roleBinding:bot=viewer']);
  });

  it('normalises identityUid/roleUid that point inside the org to paths before matching', () => {
    const live = liveState([r.identity('', 'bot'), r.role('', 'deployer'), r.binding('', 'bot', 'deployer'), r.binding('', 'bot', 'viewer')]);
    const desired = desiredState([
      r.identity('', 'bot'),
      r.role('', 'deployer'),
      r.binding('', { uid: uidOf(live, 'identity:bot') }, { uid: uidOf(live, 'role:deployer') }),
      r.binding('', 'bot', { uid: BUILTIN_ROLES.viewer }),
    ]);
    expect(plan(desired, live).steps).toEqual([]);
  });

  it('keeps an identity outside the org as {uid}, resolved to that uid in refs', () => {
    const outsider = 'b'.repeat(40) + '/0000000000000001';
    const p = plan(desiredState([r.binding('', { uid: outsider }, 'viewer')]), liveState([]));
    expect(step(p, `roleBinding:uid:${outsider}=viewer`)).toMatchObject({
      action: 'create',
      parent: 'org',
      parentUid: ORG_UID,
      after: { identityUid: outsider, roleUid: BUILTIN_ROLES.viewer },
      refs: { identityUid: { address: `identity:uid:${outsider}`, uid: outsider }, roleUid: { address: 'role:builtin:viewer', uid: BUILTIN_ROLES.viewer } },
    });
  });
});

describe('plan: creates', () => {
  it('bootstraps a missing org: the org first (parent null), everything under it', () => {
    const desired = desiredState([
      r.group('eng'),
      r.group('eng/platform'),
      r.identity('eng', 'ci'),
      r.role('eng/platform', 'deployer', { capabilities: ['repo.list'] }),
      r.binding('eng/platform', '/eng/ci', 'deployer'),
      r.repo('', 'nginx', { readme: '# nginx\n' }),
    ]);
    const p = plan(desired, emptyLive(), { bootstrap: true });
    expect(outline(p)).toEqual([
      'create org',
      'create group:eng',
      'create group:eng/platform',
      'create identity:eng/ci',
      'create role:eng/platform/deployer',
      'create repo:nginx',
      'create roleBinding:eng/platform//eng/ci=deployer',
    ]);
    expect(step(p, 'org')).toMatchObject({ parent: null, after: { name: 'acme' }, reason: 'bootstrap: no root group named acme is visible to this token' });
    expect(step(p, 'org').parentUid).toBeUndefined();
    expect(step(p, 'org').dependsOn).toBeUndefined();
    expect(step(p, 'group:eng/platform')).toMatchObject({ parent: 'group:eng', dependsOn: ['group:eng'] });
    expect(step(p, 'repo:nginx').after).toEqual({ name: 'nginx', readme: '# nginx\n' });
    const binding = step(p, 'roleBinding:eng/platform//eng/ci=deployer');
    expect(binding.dependsOn).toEqual(['group:eng/platform', 'identity:eng/ci', 'role:eng/platform/deployer']);
    expect(binding.refs).toEqual({ identityUid: { address: 'identity:eng/ci' }, roleUid: { address: 'role:eng/platform/deployer' } });
    expect(p.org).toEqual({ name: 'acme' });
  });

  it('fills parentUid and reference uids from live when they exist', () => {
    const live = liveState([r.group('eng'), r.identity('eng', 'ci')]);
    const p = plan(desiredState([r.group('eng'), r.identity('eng', 'ci'), r.binding('eng', 'ci', 'registry.push')]), live);
    const s = step(p, 'roleBinding:eng/ci=registry.push');
    expect(s).toMatchObject({
      parent: 'group:eng',
      parentUid: uidOf(live, 'group:eng'),
      refs: { identityUid: { address: 'identity:eng/ci', uid: uidOf(live, 'identity:eng/ci') } },
      after: { identityUid: uidOf(live, 'identity:eng/ci'), roleUid: BUILTIN_ROLES['registry.push'] },
    });
    expect(s.dependsOn).toBeUndefined();
  });

  it('creates a subscription and a declared tag under their parents', () => {
    const p = plan(desiredState([r.repo('', 'app'), r.tag('', 'app', '1.0', 'sha256:ab'), r.subscription('', 'https://h.example/x')]), liveState([]));
    expect(outline(p)).toEqual(['create repo:app', 'create subscription:https://h.example/x', 'create tag:app:1.0']);
    expect(step(p, 'tag:app:1.0')).toMatchObject({ parent: 'repo:app', dependsOn: ['repo:app'], after: { name: '1.0', digest: 'sha256:ab' } });
  });
});

/** A desired shape that says `renamedFrom: <old>`. */
function renamed<S extends object>(shape: S, old: string): S {
  return { ...shape, renamedFrom: old };
}

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
    expect(p.steps.map((s) => [s.action, s.address, s.action === 'update' ? s.updateMask : [], s.action === 'update' ? s.previousAddress : undefined])).toEqual([
      ['update', 'group:services', ['name', 'description'], 'group:backend'],
      ['update', 'identity:services/db/schema-bot', ['name'], 'identity:services/db/migrator'],
    ]);
  });

  it('renames an identity its bindings name by the new name', () => {
    const live = liveState([r.identity('', 'old-bot'), r.binding('', 'old-bot', 'viewer')]);
    const p = plan(desiredState([renamed(r.identity('', 'ci-bot'), 'old-bot'), r.binding('', 'ci-bot', 'viewer')]), live);
    expect(outline(p)).toEqual(['update identity:ci-bot']);
    expect(step(p, 'identity:ci-bot')).toMatchObject({ previousAddress: 'identity:old-bot', updateMask: ['name'], uid: uidOf(live, 'identity:old-bot') });
  });

  it('is a no-op once renamed, so the line may stay in the manifests', () => {
    const after = liveState([r.group('services', { description: 'Backend' }), r.identity('services', 'ci'), r.binding('services', 'ci', 'viewer'), r.binding('', '/services/ci', 'editor'), r.repo('services', 'app'), r.group('services/db'), r.identity('services/db', 'migrator')]);
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
    expect(outline(plan(desiredState([renamed(r.repo('', 'new-app'), 'old-app')]), liveState([])))).toEqual(['create repo:new-app']);
  });
});

describe('plan: references by uid', () => {
  it('refuses an identityUid or roleUid inside the org that the read did not find, naming where it is written; an outside uid is taken as given', () => {
    const live = liveState([r.identity('', 'bot')]);
    const missing = `${ORG_UID}/00000000000000aa`;
    const outside = `${'e'.repeat(40)}/0000000000000001`;
    const p = plan(desiredState([r.identity('', 'bot'), r.binding('', { uid: missing }, 'viewer'), r.binding('', 'bot', { uid: missing }), r.binding('', { uid: outside }, 'viewer')]), live);
    expect(p.refusals.map((x) => x.rule)).toEqual(['dangling-reference', 'dangling-reference']);
    expect(p.refusals[0]!.message).toBe(
      `roleBinding:uid:${missing}=viewer (manifest.yaml:3:1) names identityUid ${missing}, which lies inside org acme but is no identity there; fix the uid, or name the identity by its path`,
    );
    expect(p.refusals[1]!.message).toContain(`names roleUid ${missing}, which lies inside org acme but is no role there`);
    expect(outline(p)).toEqual([`create roleBinding:uid:${outside}=viewer`]);
  });
});

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
    const desired = desiredState([r.group('eng'), r.identity('eng', 'ci')], { settings: { ignore: ['identity:*/human-*', 'roleBinding:*uid:*'] } });
    const p = plan(desired, live);
    expect(outline(p)).toEqual(['delete roleBinding:eng/ci=viewer']);
    expect(p.refusals).toEqual([]);
    // Without the ignore, the same access would be revoked.
    expect(outline(plan(desiredState([r.group('eng'), r.identity('eng', 'ci')]), live, { allowMassDelete: true }))).toEqual(
      expect.arrayContaining(['delete roleBinding:eng/human-alice=viewer', 'delete roleBinding:/eng/human-alice=editor', `delete roleBinding:eng/uid:${OUTSIDE}=viewer`]),
    );
  });

  it('a group cannot be deleted while an ignored identity\'s binding still lives in it', () => {
    const live = liveState([r.group('eng'), r.group('old'), r.identity('eng', 'human-bob'), r.binding('old', '/eng/human-bob', 'viewer')]);
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
    expect(step(p, 'identity:eng/ci').dependsOn).toEqual(['roleBinding:/eng/ci=viewer', 'roleBinding:eng/platform//eng/ci=deployer']);
    expect(step(p, 'role:eng/platform/deployer').dependsOn).toEqual(['roleBinding:eng/platform//eng/ci=deployer']);
    expect(step(p, 'group:eng/platform').dependsOn).toEqual([
      'repo:eng/platform/app',
      'role:eng/platform/deployer',
      'roleBinding:eng/platform//eng/ci=deployer',
    ]);
    expect(step(p, 'group:eng').dependsOn).toEqual(['group:eng/platform', 'identity:eng/ci', 'subscription:eng/https://h.example/x']);
    expect(step(p, 'group:eng')).toMatchObject({ uid: uidOf(live, 'group:eng'), parent: 'org', before: { name: 'eng' } });
    expect(step(p, 'roleBinding:/eng/ci=viewer').before).toEqual({ identity: '/eng/ci', role: 'viewer' });
  });

  it('shows a rename as a delete and a create of one kind under one parent, and says what goes with it', () => {
    const live = liveState([r.group('backend'), r.identity('backend', 'ci'), r.binding('backend', 'ci', 'viewer'), r.repo('', 'web')]);
    const p = plan(desiredState([r.group('services'), r.identity('services', 'ci'), r.binding('services', 'ci', 'viewer'), r.repo('', 'web')]), live);
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
    const live = liveState([r.group('a'), r.group('b'), r.identity('a', 'ci'), r.identity('b', 'old'), r.binding('a', 'ci', 'viewer')]);
    const p = plan(desiredState([r.group('a'), r.group('b'), r.identity('b', 'ci'), r.identity('b', 'old')]), live);
    expect(outline(p)).toEqual(['create identity:b/ci', 'delete roleBinding:a/ci=viewer', 'delete identity:a/ci']);
    expect(step(p, 'identity:b/ci').reason).toBe('looks like a move of identity:a/ci');
    expect(step(p, 'identity:a/ci').reason).toBe('looks like a move to identity:b/ci');
    expect(p.warnings).toContain(
      'identity:a/ci → identity:b/ci looks like a move: resources are matched by group and name, so this is a delete and a create; ' +
        'the new one gets a new uid, and 1 other delete comes with it; a move to another group cannot be done in place: the uids of the moved resources will change',
    );
    // A move is the stronger guess: b/old under the same parent as b/ci is not also called a rename.
    const both = plan(desiredState([r.group('a'), r.group('b'), r.identity('b', 'ci'), r.binding('b', 'ci', 'viewer')]), live);
    expect(step(both, 'identity:b/ci').reason).toBe('looks like a move of identity:a/ci');
    expect(step(both, 'identity:b/old').reason).toBeUndefined();
    // Into an existing group from one that is deleted: still a move.
    const fromDeleted = plan(desiredState([r.group('b'), r.identity('b', 'ci'), r.identity('b', 'old')]), live);
    expect(step(fromDeleted, 'identity:b/ci').reason).toBe('looks like a move of identity:a/ci');
    // Two deletes of one name: not guessed at.
    const two = plan(desiredState([r.group('a'), r.group('b'), r.group('c'), r.identity('c', 'x')]), liveState([r.group('a'), r.group('b'), r.identity('a', 'x'), r.identity('b', 'x')]));
    expect(two.steps.every((x) => x.reason === undefined)).toBe(true);
  });

  it('refuses a move whose old identity keeps bindings because pruning of role bindings is off, and says how to fix it', () => {
    const live = liveState([r.group('a'), r.group('b'), r.identity('a', 'ci'), r.binding('', '/a/ci', 'viewer')]);
    const desired = desiredState([r.group('a'), r.group('b'), r.identity('b', 'ci'), r.binding('', '/b/ci', 'viewer')], {
      settings: { prune: { roleBinding: false } },
    });
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
    const p = plan(desiredState([r.group('a'), r.group('b'), r.identity('b', 'ci'), r.binding('', '/b/ci', 'viewer')]), live);
    expect(outline(p)).toEqual(['create identity:b/ci', 'create roleBinding:/b/ci=viewer', 'delete roleBinding:/a/ci=viewer', 'delete identity:a/ci']);
  });

  it('deletes a role only after the bindings are PATCHed away from it', () => {
    const live = liveState([r.identity('', 'bot'), r.role('', 'old'), r.binding('', 'bot', 'old')]);
    const p = plan(desiredState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer')]), live);
    expect(outline(p)).toEqual(['update roleBinding:bot=viewer', 'delete role:old']);
    expect(step(p, 'role:old').dependsOn).toEqual(['roleBinding:bot=viewer']);
  });

  it('moves a role between groups: create the new role, PATCH the binding to it, then delete the old role', () => {
    const live = liveState([r.group('a'), r.group('a/x'), r.identity('', 'bot'), r.role('a', 'deployer'), r.binding('a/x', '/bot', '/a/deployer')]);
    const p = plan(desiredState([r.group('a'), r.group('a/x'), r.identity('', 'bot'), r.role('', 'deployer'), r.binding('a/x', '/bot', '/deployer')]), live);
    expect(outline(p)).toEqual(['create role:deployer', 'update roleBinding:a/x//bot=/deployer', 'delete role:a/deployer']);
    expect(step(p, 'roleBinding:a/x//bot=/deployer')).toMatchObject({ uid: uidOf(live, 'roleBinding:a/x//bot=/a/deployer'), dependsOn: ['role:deployer'] });
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
    expect(outline(p)).toEqual(['create roleBinding:bot=owner', 'delete roleBinding:bot=editor', 'delete roleBinding:bot=viewer']);
    // One of the two kept: the other pairs with the new role as one PATCH.
    const kept = plan(desiredState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer'), r.binding('', 'bot', 'owner')]), live);
    expect(outline(kept)).toEqual(['update roleBinding:bot=owner']);
    expect(step(kept, 'roleBinding:bot=owner').uid).toBe(uidOf(live, 'roleBinding:bot=editor'));
  });

  it('leaves live tags alone unless their repo goes or the manifests declare that repo\'s tags', () => {
    const live = liveState([r.repo('', 'a'), r.tag('', 'a', '1'), r.repo('', 'b'), r.tag('', 'b', '1'), r.tag('', 'b', '2')]);
    const p = plan(desiredState([r.repo('', 'a'), r.repo('', 'b'), r.tag('', 'b', '2')]), live);
    expect(outline(p)).toEqual(['delete tag:b:1']);
    expect(step(p, 'tag:b:1').reason).toBeUndefined();
  });

  it('keeps what a kind with pruning off has, and says so', () => {
    const live = liveState([r.identity('', 'a'), r.identity('', 'b'), r.repo('', 'x')]);
    const p = plan(desiredState([], { settings: { prune: { identity: false } } }), live);
    expect(outline(p)).toEqual(['delete repo:x']);
    expect(p.warnings).toEqual(['2 identities not in the manifests are kept (identity:a, identity:b): settings.prune.identities is false']);
    const none = plan(desiredState([], { settings: { prune: false } }), live);
    expect(none.steps).toEqual([]);
    expect(none.warnings).toEqual([
      '2 identities not in the manifests are kept (identity:a, identity:b): settings.prune is false',
      '1 repo not in the manifests is kept (repo:x): settings.prune is false',
    ]);
  });

  it('names at most ten kept resources in the note, then how many more', () => {
    const subs = Array.from({ length: 12 }, (_, i) => r.subscription('', `https://h.example/${String(i).padStart(2, '0')}`));
    const p = plan(desiredState([], { settings: { prune: { subscription: false } } }), liveState(subs));
    const names = subs.slice(0, 10).map((s) => s.address).join(', ');
    expect(p.warnings).toEqual([`12 subscriptions not in the manifests are kept (${names} and 2 more): settings.prune.subscriptions is false`]);
  });

  it('never creates, updates or deletes an ignored address', () => {
    const live = liveState([r.identity('', 'human-ann', { description: 'x' }), r.identity('', 'bot', { description: 'x' })]);
    const desired = desiredState([r.identity('', 'bot', { description: 'y' }), r.identity('', 'human-bob')], {
      settings: { ignore: ['identity:human-*'] },
    });
    expect(outline(plan(desired, live))).toEqual(['update identity:bot']);
  });
});

describe('plan: refusals', () => {
  it('refuses one binding declared twice, by name and by uid, naming both locations', () => {
    const live = liveState([r.identity('', 'ci-nightly'), r.binding('', 'ci-nightly', 'viewer')]);
    const byUid = r.binding('', { uid: uidOf(live, 'identity:ci-nightly') }, { uid: BUILTIN_ROLES.viewer! });
    const desired = desiredState([r.identity('', 'ci-nightly'), r.binding('', 'ci-nightly', 'viewer'), byUid]);
    expect(refusalsOf(desired, live)).toEqual([
      {
        rule: 'declared-twice',
        message: 'roleBinding:ci-nightly=viewer is declared twice (manifest.yaml:3:1 and manifest.yaml:4:1), once by name and once by uid; declare it once',
        addresses: ['roleBinding:ci-nightly=viewer'],
      },
    ]);
    // Other refusals are still found in the same round.
    const both = refusalsOf(desiredState([r.identity('', 'ci-nightly'), r.binding('', 'ci-nightly', 'viewer'), byUid], { settings: { protect: ['repo:*'] } }), liveState([r.identity('', 'ci-nightly'), r.binding('', 'ci-nightly', 'viewer'), r.repo('', 'keep')]));
    expect(both.map((x) => x.rule)).toEqual(['declared-twice', 'protected']);
  });

  it('refuses to delete a protected resource', () => {
    const live = liveState([r.repo('', 'nginx'), r.repo('', 'tmp')]);
    const refusals = refusalsOf(desiredState([], { settings: { protect: ['repo:ng*'] } }), live);
    expect(refusals).toEqual([
      { rule: 'protected', message: 'repo:nginx is protected (settings.protect) and may not be deleted', addresses: ['repo:nginx'] },
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
    expect(refusal).toMatchObject({ rule: 'mass-delete', addresses: ['identity:id-7', 'identity:id-8', 'identity:id-9'] });
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
    expect(refusal).toMatchObject({ rule: 'mass-delete', addresses: ['repo:svc-0', 'repo:svc-1', 'repo:svc-2', 'repo:svc-3'] });
    expect(refusal!.message).toBe('the plan deletes 4 of 13 repos (31%), more than --max-delete-ratio 0.25; pass --allow-mass-delete if that is intended');
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
    expect(plan(desiredState([...repos], { settings }), liveState([...ids.slice(0, 9), ...humans, ...repos])).summary.delete).toBe(9);
  });

  it('refuses deletes and creates of a kind whose live read was incomplete, but not other changes', () => {
    const live = liveState([r.identity('', 'gone'), r.repo('', 'old')], { incomplete: [{ kind: 'identity', reason: 'page token restarted twice' }] });
    const refusals = refusalsOf(desiredState([r.repo('', 'old')]), live);
    expect(refusals).toEqual([
      {
        rule: 'incomplete-read',
        message: 'cannot delete 1 identity (identity:gone): the live read of identity was incomplete (page token restarted twice); run plan again',
        addresses: ['identity:gone'],
      },
    ]);
    const withCreate = plan(desiredState([r.repo('', 'old'), r.identity('', 'gone'), r.identity('', 'new'), r.repo('', 'fresh')]), live);
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
    const shapes = [r.group('old'), r.repo('old', 'app'), r.identity('', 'bot'), r.binding('', 'bot', 'viewer'), r.repo('', 'web')];
    const refusedFor = (kind: LiveState['incomplete'][number]['kind']) =>
      refusalsOf(desiredState([]), liveState(shapes, { incomplete: [{ kind, reason: 'restarted' }] })).flatMap((x) => x.addresses);
    // An unseen child of any kind would make the group delete fail with RESOURCE_NOT_EMPTY.
    expect(refusedFor('subscription')).toEqual(['group:old']);
    // An unseen tag blocks its repo (and so the group); unseen bindings block what they reference.
    expect(refusedFor('tag')).toEqual(['group:old', 'repo:old/app', 'repo:web']);
    expect(refusedFor('roleBinding')).toEqual(['group:old', 'identity:bot', 'roleBinding:bot=viewer']);
    // A binding's address is built from the identity listing: an incomplete one may misname it.
    expect(refusedFor('identity')).toEqual(['group:old', 'identity:bot', 'roleBinding:bot=viewer']);
    const [refusal] = refusalsOf(desiredState([r.group('old'), r.repo('old', 'app')]), liveState(shapes, { incomplete: [{ kind: 'tag', reason: 'restarted' }] }));
    expect(refusal!.message).toBe('cannot delete 1 repo (repo:web): the live read of tag was incomplete (restarted); run plan again');
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
    ]);
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

describe('plan: targets', () => {
  const desired = desiredState([r.group('eng'), r.identity('eng', 'ci'), r.binding('eng', 'ci', 'viewer'), r.repo('', 'app'), r.repo('', 'web')]);

  it('keeps the targeted steps and what they depend on', () => {
    const p = plan(desired, liveState([]), { targets: ['roleBinding:eng/ci=viewer'] });
    expect(outline(p)).toEqual(['create group:eng', 'create identity:eng/ci', 'create roleBinding:eng/ci=viewer']);
    expect(p.summary).toEqual({ create: 3, update: 0, delete: 0 });
  });

  it('accepts globs, and says when a target matches nothing', () => {
    const p = plan(desired, liveState([]), { targets: ['repo:*', 'group:nope'] });
    expect(outline(p)).toEqual(['create repo:app', 'create repo:web']);
    expect(p.refusals.map((r) => r.message)).toEqual(['--target group:nope matches nothing: no resource the manifests declare or the org holds has such an address (a typo?)']);
    expect(p.warnings).toEqual(['3 other changes are not in this plan because of --target']);
    expect(p.untargeted).toBe(3);
  });

  it('counts the changes the targets leave out, and leaves the count unset without targets', () => {
    const p = plan(desired, liveState([]), { targets: ['repo:app'] });
    expect(outline(p)).toEqual(['create repo:app']);
    expect(p.untargeted).toBe(4);
    expect(p.warnings).toEqual(['4 other changes are not in this plan because of --target']);
    const all = plan(desired, liveState([]), { targets: ['group:*', 'identity:*', 'roleBinding:*', 'repo:*'] });
    expect(all.untargeted).toBe(0);
    expect(all.warnings).toEqual([]);
    expect(plan(desired, liveState([])).untargeted).toBeUndefined();
  });

  it('rejects a target whose kind prefix is unknown, naming every bad one and the valid kinds', () => {
    const attempt = (targets: string[]) => () => plan(desired, liveState([]), { targets });
    expect(attempt(['nonexistent:foo'])).toThrow(UserError);
    let err: UserError | undefined;
    try {
      attempt(['nonexistent:foo', 'repos:app', 'repo:app', 'group', 'org', 'repo:', 'member:*', 'member:'])();
    } catch (e) {
      err = e as UserError;
    }
    expect(err).toBeInstanceOf(UserError);
    expect(err!.code).toBe('TARGET_INVALID');
    expect(err!.message).toBe(
      [
        '--target nonexistent:foo has an unknown kind "nonexistent"',
        '--target repos:app has an unknown kind "repos"; did you mean repo:app?',
        '--target group has no kind prefix; did you mean group:*?',
        '--target repo: has nothing after "repo:" (e.g. repo:* or repo:<path>)',
        '--target member: has nothing after "member:" (e.g. member:* or member:<path>)',
        'a target is "org" or starts with one of group:, identity:, role:, roleBinding:, repo:, tag:, subscription:, identityProvider:, groupMapping:, accountAssociation:, terms:, groupInvite:, member:',
      ].join('\n'),
    );
  });

  it('pulls the deletes of its children into a targeted group delete', () => {
    const live = liveState([r.group('old'), r.identity('old', 'x'), r.repo('', 'gone')]);
    const p = plan(desiredState([]), live, { targets: ['group:old'] });
    expect(outline(p)).toEqual(['delete identity:old/x', 'delete group:old']);
  });
});

describe('plan: purity', () => {
  it('gives the same plan for the same states in any input order', () => {
    const shapes = [r.group('eng'), r.group('eng/a'), r.identity('eng', 'ci'), r.binding('eng/a', '/eng/ci', 'viewer'), r.repo('eng', 'x')];
    const live = liveState([r.group('old'), r.identity('old', 'y'), r.repo('', 'z')]);
    const a = plan(desiredState(shapes), live);
    const b = plan(desiredState([...shapes].reverse().filter((s) => s.address !== 'org')), { ...live, resources: [...live.resources].reverse() });
    expect(b.steps.map(({ source: _s, ...rest }) => rest)).toEqual(a.steps.map(({ source: _s, ...rest }) => rest));
  });

  it('does not modify its inputs', () => {
    const desired = desiredState([r.role('', 'r', { capabilities: ['repo.list'] })]);
    const live = liveState([r.role('', 'r', { capabilities: ['tag.list'] })]);
    const before = JSON.stringify([desired, live]);
    const p = plan(desired, live);
    ((p.steps[0] as AnyStep).after!.capabilities as string[]).push('mutated');
    expect(JSON.stringify([desired, live])).toBe(before);
  });

  it('leaves fingerprints to saved plans: updateTime where there is one, else a content hash', () => {
    const live = liveState([{ shape: r.repo('', 'x'), updateTime: '2026-01-01T00:00:00.000Z' }]);
    expect(plan(desiredState([r.repo('', 'x')]), live).fingerprints).toEqual([]);
    const fps = fingerprintLive(live);
    expect(fps.map((f) => [f.address, f.version.slice(0, 7)])).toEqual([
      ['org', 'sha256:'],
      ['repo:x', '2026-01'],
    ]);
  });
});

describe('plan: no I/O in the planner', () => {
  it('imports nothing that does I/O and reads no clock or randomness, in any file of src/plan (from the syntax tree)', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { dirname, join, relative, resolve } = await import('node:path');
    const { parseSource, runtimeImportsOf, walkAst } = await import('../support/source-graph.js');
    type Node = { type: string; [key: string]: unknown };
    const name = (n: unknown): string | undefined => ((n as Node | undefined)?.type === 'Identifier' ? String((n as Node).name) : undefined);
    /** Date.now(), new Date(…), Math.random(), process.anything: a clock, randomness or the process. */
    const impure = (n: Node): boolean =>
      (n.type === 'MemberExpression' && ((name(n.object) === 'Date' && name(n.property) === 'now') || (name(n.object) === 'Math' && name(n.property) === 'random') || name(n.object) === 'process')) ||
      (n.type === 'NewExpression' && name(n.callee) === 'Date' && (n.arguments as unknown[]).length === 0);
    // (Date.parse is pure, and so is a Date made from a given time, `new Date(ms)`: they read no clock.)
    const root = join(import.meta.dirname, '..', '..');
    const seen = new Set<string>();
    const offenders: string[] = [];
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const tree = parseSource(readFileSync(file, 'utf8'), file);
      // Type-only imports are erased: they run nothing (the kinds' declared types come from TypeBox that way).
      for (const { source } of runtimeImportsOf(tree)) {
        // Data (src/service/capabilities.json, the service's facts) is a value, not a module that runs.
        if (source.startsWith('.') && source.endsWith('.json')) continue;
        if (source.startsWith('.')) visit(resolve(dirname(file), source.replace(/\.js$/, '.ts')));
        // node:module only to load a library on first use (util/lazy-require.ts: re2js, for patterns).
        else if (!['node:crypto', 'node:module'].includes(source)) offenders.push(`${relative(root, file)} imports ${source}`);
      }
      for (const n of walkAst(tree)) if (impure(n as Node)) offenders.push(`${relative(root, file)} reads ${n.type === 'NewExpression' ? 'new Date' : `${name(n.object)}.${name(n.property)}`}`);
    };
    const planDir = join(root, 'src', 'plan');
    for (const file of readdirSync(planDir).filter((n) => n.endsWith('.ts'))) visit(join(planDir, file));
    expect(offenders).toEqual([]);
    // Paths relative to the checkout, wherever it lies (a checkout under a folder named src too).
    expect([...seen].map((f) => relative(root, f).split('\\').join('/'))).toContain('src/plan/safety.ts');
  });

  it('would see a clock, randomness or the process in the syntax tree, and not in a comment', async () => {
    const { parseSource, walkAst } = await import('../support/source-graph.js');
    const kinds = [...walkAst(parseSource("// Date.now()\nconst t = Date\n  .now();\nconst d = new Date(0);\nconst e = process.env;"))].filter((n) => n.type === 'MemberExpression' || n.type === 'NewExpression').map((n) => n.type);
    expect(kinds).toEqual(['MemberExpression', 'NewExpression', 'MemberExpression']);
  });
});
