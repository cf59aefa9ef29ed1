/** The planner's rules: matching and updates, role bindings, creates, references by uid, targets, purity (renames, deletes and refusals have files of their own). */
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/model/errors.js';
import { plan } from '../../src/plan/index.js';
import { fingerprintLive } from '../../src/saved-plan/fingerprint.js';
import {
  BUILTIN_ROLES,
  desiredState,
  emptyLive,
  liveState,
  ORG_UID,
  r,
  uidOf,
  step,
  outline,
  ISSUER,
  type AnyStep,
} from './plan-builders.js';

describe('plan: matching and updates', () => {
  it('plans nothing when live matches desired', () => {
    const shapes = [
      r.group('eng'),
      r.identity('eng', 'bot', { description: 'x' }),
      r.repo('', 'nginx', { description: 'd' }),
    ];
    const p = plan(desiredState(shapes), liveState(shapes));
    expect(p.steps).toEqual([]);
    expect(p.summary).toEqual({ create: 0, update: 0, delete: 0 });
    expect(p.org).toEqual({ name: 'acme', uid: ORG_UID });
  });

  it('leaves fields absent from the manifest alone, and clears a description set to ""', () => {
    const live = liveState([
      r.identity('', 'bot', { description: 'kept', claimMatch: { issuer: ISSUER, subject: 's' } }),
      r.repo('', 'app', { description: 'old' }),
    ]);
    const p = plan(desiredState([r.identity('', 'bot'), r.repo('', 'app', { description: '' })]), live);
    expect(outline(p)).toEqual(['update repo:app']);
    expect(step(p, 'repo:app')).toMatchObject({
      updateMask: ['description'],
      before: { description: 'old' },
      after: { description: '' },
    });
  });

  it('puts exactly the changed fields in updateMask, before and after', () => {
    const live = liveState([
      r.identity('', 'bot', { description: 'same', claimMatch: { issuer: ISSUER, subject: 'old' } }),
    ]);
    const desired = desiredState([
      r.identity('', 'bot', { description: 'same', claimMatch: { issuer: ISSUER, subject: 'new' } }),
    ]);
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
    expect(step(p, 'role:reader')).toMatchObject({
      updateMask: ['capabilities'],
      after: { capabilities: ['tag.list', 'repo.list'] },
    });
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
    expect(step(p, 'org')).toMatchObject({
      uid: 'f'.repeat(40),
      updateMask: ['name'],
      before: { name: 'acme' },
      after: { name: 'acme-corp' },
    });
    expect(p.org).toEqual({ name: 'acme-corp', uid: 'f'.repeat(40) });
  });

  it('warns instead of replacing a tag whose digest changed (tags are immutable)', () => {
    const live = liveState([r.repo('', 'app'), r.tag('', 'app', '1.0', 'sha256:aa')]);
    const p = plan(desiredState([r.repo('', 'app'), r.tag('', 'app', '1.0', 'sha256:bb')]), live);
    expect(p.steps).toEqual([]);
    expect(p.warnings).toEqual([
      expect.stringContaining('tag:app:1.0 has digest sha256:aa but the manifests say sha256:bb'),
    ]);
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
    const p = plan(
      desiredState([
        r.identity('', 'bot'),
        r.role('', 'new-role', { capabilities: ['repo.list'] }),
        r.binding('', 'bot', 'new-role'),
      ]),
      live,
    );
    expect(outline(p)).toEqual(['create role:new-role', 'update roleBinding:bot=new-role']);
    const s = step(p, 'roleBinding:bot=new-role');
    expect(s.refs).toEqual({ roleUid: { address: 'role:new-role' } });
    expect(s.after).toEqual({});
    expect(s.dependsOn).toEqual(['role:new-role']);
  });

  it('matches by full address when an identity has more than one binding in a group', () => {
    const live = liveState([r.identity('', 'bot'), r.binding('', 'bot', 'viewer')]);
    const p = plan(
      desiredState([r.identity('', 'bot'), r.binding('', 'bot', 'editor'), r.binding('', 'bot', 'owner')]),
      live,
    );
    expect(outline(p)).toEqual([
      'create roleBinding:bot=editor',
      'create roleBinding:bot=owner',
      'delete roleBinding:bot=viewer',
    ]);
  });

  it('normalises identityUid/roleUid that point inside the org to paths before matching', () => {
    const live = liveState([
      r.identity('', 'bot'),
      r.role('', 'deployer'),
      r.binding('', 'bot', 'deployer'),
      r.binding('', 'bot', 'viewer'),
    ]);
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
      refs: {
        identityUid: { address: `identity:uid:${outsider}`, uid: outsider },
        roleUid: { address: 'role:builtin:viewer', uid: BUILTIN_ROLES.viewer },
      },
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
    expect(step(p, 'org')).toMatchObject({
      parent: null,
      after: { name: 'acme' },
      reason: 'bootstrap: no root group named acme is visible to this token',
    });
    expect(step(p, 'org').parentUid).toBeUndefined();
    expect(step(p, 'org').dependsOn).toBeUndefined();
    expect(step(p, 'group:eng/platform')).toMatchObject({ parent: 'group:eng', dependsOn: ['group:eng'] });
    expect(step(p, 'repo:nginx').after).toEqual({ name: 'nginx', readme: '# nginx\n' });
    const binding = step(p, 'roleBinding:eng/platform//eng/ci=deployer');
    expect(binding.dependsOn).toEqual(['group:eng/platform', 'identity:eng/ci', 'role:eng/platform/deployer']);
    expect(binding.refs).toEqual({
      identityUid: { address: 'identity:eng/ci' },
      roleUid: { address: 'role:eng/platform/deployer' },
    });
    expect(p.org).toEqual({ name: 'acme' });
  });

  it('fills parentUid and reference uids from live when they exist', () => {
    const live = liveState([r.group('eng'), r.identity('eng', 'ci')]);
    const p = plan(
      desiredState([r.group('eng'), r.identity('eng', 'ci'), r.binding('eng', 'ci', 'registry.push')]),
      live,
    );
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
    const p = plan(
      desiredState([
        r.repo('', 'app'),
        r.tag('', 'app', '1.0', 'sha256:ab'),
        r.subscription('', 'https://h.example/x'),
      ]),
      liveState([]),
    );
    expect(outline(p)).toEqual(['create repo:app', 'create subscription:https://h.example/x', 'create tag:app:1.0']);
    expect(step(p, 'tag:app:1.0')).toMatchObject({
      parent: 'repo:app',
      dependsOn: ['repo:app'],
      after: { name: '1.0', digest: 'sha256:ab' },
    });
  });
});

/** A desired shape that says `renamedFrom: <old>`. */
describe('plan: references by uid', () => {
  it('refuses an identityUid or roleUid inside the org that the read did not find, naming where it is written; an outside uid is taken as given', () => {
    const live = liveState([r.identity('', 'bot')]);
    const missing = `${ORG_UID}/00000000000000aa`;
    const outside = `${'e'.repeat(40)}/0000000000000001`;
    const p = plan(
      desiredState([
        r.identity('', 'bot'),
        r.binding('', { uid: missing }, 'viewer'),
        r.binding('', 'bot', { uid: missing }),
        r.binding('', { uid: outside }, 'viewer'),
      ]),
      live,
    );
    expect(p.refusals.map((x) => x.rule)).toEqual(['dangling-reference', 'dangling-reference']);
    expect(p.refusals[0]!.message).toBe(
      `roleBinding:uid:${missing}=viewer (manifest.yaml:3:1) names identityUid ${missing}, which lies inside org acme but is no identity there; fix the uid, or name the identity by its path`,
    );
    expect(p.refusals[1]!.message).toContain(
      `names roleUid ${missing}, which lies inside org acme but is no role there`,
    );
    expect(outline(p)).toEqual([`create roleBinding:uid:${outside}=viewer`]);
  });
});

describe('plan: targets', () => {
  const desired = desiredState([
    r.group('eng'),
    r.identity('eng', 'ci'),
    r.binding('eng', 'ci', 'viewer'),
    r.repo('', 'app'),
    r.repo('', 'web'),
  ]);

  it('keeps the targeted steps and what they depend on', () => {
    const p = plan(desired, liveState([]), { targets: ['roleBinding:eng/ci=viewer'] });
    expect(outline(p)).toEqual(['create group:eng', 'create identity:eng/ci', 'create roleBinding:eng/ci=viewer']);
    expect(p.summary).toEqual({ create: 3, update: 0, delete: 0 });
  });

  it('accepts globs, and says when a target matches nothing', () => {
    const p = plan(desired, liveState([]), { targets: ['repo:*', 'group:nope'] });
    expect(outline(p)).toEqual(['create repo:app', 'create repo:web']);
    expect(p.refusals.map((r) => r.message)).toEqual([
      '--target group:nope matches nothing: no resource the manifests declare or the org holds has such an address (a typo?)',
    ]);
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
    const shapes = [
      r.group('eng'),
      r.group('eng/a'),
      r.identity('eng', 'ci'),
      r.binding('eng/a', '/eng/ci', 'viewer'),
      r.repo('eng', 'x'),
    ];
    const live = liveState([r.group('old'), r.identity('old', 'y'), r.repo('', 'z')]);
    const a = plan(desiredState(shapes), live);
    const b = plan(desiredState([...shapes].reverse().filter((s) => s.address !== 'org')), {
      ...live,
      resources: [...live.resources].reverse(),
    });
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
    const name = (n: unknown): string | undefined =>
      (n as Node | undefined)?.type === 'Identifier' ? String((n as Node).name) : undefined;
    /** Date.now(), new Date(…), Math.random(), process.anything: a clock, randomness or the process. */
    const impure = (n: Node): boolean =>
      (n.type === 'MemberExpression' &&
        ((name(n.object) === 'Date' && name(n.property) === 'now') ||
          (name(n.object) === 'Math' && name(n.property) === 'random') ||
          name(n.object) === 'process')) ||
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
        else if (!['node:crypto', 'node:module'].includes(source))
          offenders.push(`${relative(root, file)} imports ${source}`);
      }
      for (const n of walkAst(tree))
        if (impure(n as Node))
          offenders.push(
            `${relative(root, file)} reads ${n.type === 'NewExpression' ? 'new Date' : `${name(n.object)}.${name(n.property)}`}`,
          );
    };
    const planDir = join(root, 'src', 'plan');
    for (const file of readdirSync(planDir).filter((n) => n.endsWith('.ts'))) visit(join(planDir, file));
    expect(offenders).toEqual([]);
    // Paths relative to the checkout, wherever it lies (a checkout under a folder named src too).
    expect([...seen].map((f) => relative(root, f).split('\\').join('/'))).toContain('src/plan/safety.ts');
  });

  it('would see a clock, randomness or the process in the syntax tree, and not in a comment', async () => {
    const { parseSource, walkAst } = await import('../support/source-graph.js');
    const kinds = [
      ...walkAst(
        parseSource('// Date.now()\nconst t = Date\n  .now();\nconst d = new Date(0);\nconst e = process.env;'),
      ),
    ]
      .filter((n) => n.type === 'MemberExpression' || n.type === 'NewExpression')
      .map((n) => n.type);
    expect(kinds).toEqual(['MemberExpression', 'NewExpression', 'MemberExpression']);
  });
});
