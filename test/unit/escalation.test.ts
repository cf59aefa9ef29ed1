/**
 * The closure through escalating capabilities (src/access/escalation.ts, DESIGN.md §4 "Escalation
 * (rev 6)"): what each escalating capability obtains, where, to a fixpoint, with the path.
 */
import { describe, expect, it } from 'vitest';
import SERVICE from '../../src/service/capabilities.json' with { type: 'json' };
import { canObtainAt, describePath, holdsOf, obtainableOf } from '../../src/access/escalation.js';
import { relationOf, type AccessRelation } from '../../src/access/relation.js';
import { stateOfLive } from '../../src/access/state.js';
import { liveState, r, type Shape } from './plan-builders.js';

const OWNER: readonly string[] = SERVICE.builtinRoles.owner;
const CATALOG: readonly string[] = SERVICE.catalog;
const GH = 'https://token.actions.githubusercontent.com';
const who = (name: string) => ({ claimMatch: { issuer: GH, subject: `repo:acme/${name}:ref:refs/heads/main` } });

/** An org with engineering (and platform below it) and ops; `more` adds identities, roles and bindings. */
function relation(more: Shape[]): AccessRelation {
  const live = liveState([r.group('engineering'), r.group('engineering/platform'), r.group('ops'), ...more]);
  return relationOf(stateOfLive(live));
}
const groupKey = (rel: AccessRelation, address: string): string =>
  [...rel.groups].find(([, g]) => g.address === address)![0];
const principal = (rel: AccessRelation, address: string): string =>
  [...rel.principals.values()].find((p) => p.identity === address)!.id;
const can = (rel: AccessRelation, identity: string, group: string) =>
  canObtainAt(rel, principal(rel, identity), groupKey(rel, group));
const pathOf = (rel: AccessRelation, identity: string, group: string, capability: string) =>
  obtainableOf(rel, principal(rel, identity)).get(groupKey(rel, group))?.get(capability);

describe('escalation: what a principal can obtain beyond what it holds', () => {
  it('roles.update (a custom role of roles.update and roles.list bound to a bot) obtains every capability of the catalog, with the path', () => {
    const rel = relation([
      r.identity('', 'bot', who('bot')),
      r.role('', 'role-editor', { capabilities: ['roles.update', 'roles.list'] }),
      r.binding('', 'bot', 'role-editor'),
    ]);
    expect([...can(rel, 'identity:bot', 'org')].sort()).toEqual([...CATALOG].sort());
    expect([...holdsOf(rel, principal(rel, 'identity:bot')).get(groupKey(rel, 'org'))!].sort()).toEqual([
      'roles.list',
      'roles.update',
    ]);
    const path = pathOf(rel, 'identity:bot', 'org', 'role_bindings.create')!;
    expect(path).toHaveLength(1);
    expect(path[0]).toMatchObject({ capability: 'roles.update' });
    expect(describePath(rel, path, groupKey(rel, 'org'))).toBe(
      'holds roles.update there through role:role-editor (roleBinding:bot=role-editor)',
    );
  });

  it('role_bindings.create on a group obtains every role visible there (owner among them, and through its roles.update the rest) — and nothing above or beside it', () => {
    const rel = relation([
      r.identity('engineering', 'binder', who('binder')),
      r.role('engineering', 'bind', { capabilities: ['role_bindings.create'] }),
      r.role('engineering/platform', 'approver', { capabilities: ['advisories.approve'] }),
      r.binding('engineering', 'binder', 'bind'),
    ]);
    const id = 'identity:engineering/binder';
    expect(OWNER.every((c) => can(rel, id, 'group:engineering').has(c))).toBe(true);
    expect(pathOf(rel, id, 'group:engineering', 'groups.delete')!.map((s) => s.capability)).toEqual([
      'role_bindings.create',
    ]);
    // Beyond owner, through owner's own roles.update.
    expect(pathOf(rel, id, 'group:engineering', 'advisories.approve')!.map((s) => s.capability)).toEqual([
      'role_bindings.create',
      'roles.update',
    ]);
    expect(can(rel, id, 'group:engineering/platform').has('advisories.approve')).toBe(true);
    expect(can(rel, id, 'org').size).toBe(0);
    expect(can(rel, id, 'group:ops').size).toBe(0);
  });

  it('group_invites.create and identity_providers.update obtain the roles visible where they are held, like a binding', () => {
    for (const capability of [
      'group_invites.create',
      'identity_providers.update',
      'role_bindings.update',
      'identity_providers.create',
    ]) {
      const rel = relation([
        r.identity('', 'bot', who('bot')),
        r.role('', 'x', { capabilities: [capability] }),
        r.binding('ops', '/bot', '/x'),
      ]);
      expect(
        OWNER.every((c) => can(rel, 'identity:bot', 'group:ops').has(c)),
        capability,
      ).toBe(true);
      expect(can(rel, 'identity:bot', 'org').size, capability).toBe(0);
    }
  });

  it('roles.create obtains nothing alone, and every capability together with role_bindings.create', () => {
    const alone = relation([
      r.identity('', 'bot', who('bot')),
      r.role('', 'maker', { capabilities: ['roles.create', 'roles.list'] }),
      r.binding('', 'bot', 'maker'),
    ]);
    expect(obtainableOf(alone, principal(alone, 'identity:bot')).size).toBe(0);
    const both = relation([
      r.identity('', 'bot', who('bot')),
      r.role('', 'maker', { capabilities: ['roles.create', 'role_bindings.create'] }),
      r.binding('', 'bot', 'maker'),
    ]);
    expect([...can(both, 'identity:bot', 'org')].sort()).toEqual([...CATALOG].sort());
    expect(pathOf(both, 'identity:bot', 'org', 'advisories.approve')![0]).toMatchObject({
      capability: 'role_bindings.create',
    });
  });

  it('identity.create obtains nothing alone; a principal holding no escalating capability obtains nothing', () => {
    const rel = relation([
      r.identity('', 'maker', who('maker')),
      r.role('', 'idm', { capabilities: ['identity.create', 'identity.list'] }),
      r.binding('', 'maker', 'idm'),
      r.identity('', 'dev', who('dev')),
      r.binding('', 'dev', 'editor'),
    ]);
    expect(obtainableOf(rel, principal(rel, 'identity:maker')).size).toBe(0);
    expect(obtainableOf(rel, principal(rel, 'identity:dev')).size).toBe(0);
  });

  it('identity.update on a group obtains what the identities homed there or below hold, where they hold it — not what identities homed elsewhere hold', () => {
    const rel = relation([
      r.identity('', 'boss', who('boss')),
      r.identity('engineering', 'ci', who('ci')),
      r.identity('engineering', 'updater', who('updater')),
      r.role('engineering', 'idu', { capabilities: ['identity.update', 'identity.list'] }),
      r.binding('', 'boss', 'owner'),
      r.binding('', '/engineering/ci', 'registry.push'),
      r.binding('engineering', 'updater', 'idu'),
    ]);
    const id = 'identity:engineering/updater';
    // ci (homed in engineering) pushes on the org: the updater can obtain that on the org itself.
    expect(can(rel, id, 'org').has('tag.create')).toBe(true);
    expect(can(rel, id, 'group:ops').has('tag.create')).toBe(true);
    // boss (homed on the org, outside engineering) is not reachable: owner is not obtained.
    expect(can(rel, id, 'org').has('groups.delete')).toBe(false);
    const path = pathOf(rel, id, 'org', 'tag.create')!;
    expect(path[0]).toMatchObject({
      capability: 'identity.update',
      through: 'identity:engineering/ci',
    });
    expect(describePath(rel, path, groupKey(rel, 'org'))).toContain(
      'can make identity:engineering/ci accept its token',
    );
  });

  it('identity.update takes over the identity records homed in reach, not every identity of the same relationship (regression: invariants seed 777)', () => {
    // Two identities accept the same tokens (one principal): one homed in ops, one in engineering.
    const rel = relation([
      r.identity('ops', 'twin', who('twin')),
      r.identity('engineering', 'twin', who('twin')),
      r.identity('ops', 'updater', who('updater')),
      r.role('ops', 'idu', { capabilities: ['identity.update', 'identity.list'] }),
      r.binding('', '/engineering/twin', 'registry.push'),
      r.binding('ops', '/ops/twin', 'viewer'),
      r.binding('ops', 'updater', 'idu'),
    ]);
    const id = 'identity:ops/updater';
    // Changing ops/twin gives what is granted to ops/twin; engineering/twin keeps its own grant on the org.
    expect(can(rel, id, 'group:ops').has('repo.list')).toBe(true);
    expect(can(rel, id, 'org').has('tag.create')).toBe(false);
    expect(pathOf(rel, id, 'group:ops', 'repo.list')?.[0]).toMatchObject({ through: 'identity:ops/twin' });
  });

  it('repeats to a fixpoint: an identity taken over through identity.update holds role_bindings.create on ops, so all of owner on ops follows', () => {
    const rel = relation([
      r.identity('engineering', 'ci', who('ci')),
      r.identity('engineering', 'updater', who('updater')),
      r.role('', 'bind', { capabilities: ['role_bindings.create'] }),
      r.role('', 'idu', { capabilities: ['identity.update'] }),
      r.binding('ops', '/engineering/ci', '/bind'),
      r.binding('engineering', 'updater', '/idu'),
    ]);
    const id = 'identity:engineering/updater';
    expect(OWNER.every((c) => can(rel, id, 'group:ops').has(c))).toBe(true);
    expect(can(rel, id, 'org').has('groups.delete')).toBe(false);
    const path = pathOf(rel, id, 'group:ops', 'groups.delete')!;
    expect(path.map((s) => s.capability)).toEqual(['identity.update', 'role_bindings.create']);
  });
});

describe('escalation: identity providers reach where their grants are (found by the review)', () => {
  const OKTA = { issuer: 'https://acme.okta.com', clientId: 'c', groupsClaim: 'groups' };

  it('identity_providers.update on a group obtains what a provider homed there grants where it grants it: its mapping on the org', () => {
    // A provider lies in engineering; its mapping gives owner on the org (a mapping's scope is always the org).
    const rel = relation([
      r.identityProvider('engineering', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OKTA } as never),
      r.groupMapping('engineering', 'okta', 'admins', { builtin: 'owner' }),
      r.identity('engineering', 'sso-admin', who('sso-admin')),
      r.role('engineering', 'sso', { capabilities: ['identity_providers.update', 'identity_providers.list'] }),
      r.binding('engineering', 'sso-admin', 'sso'),
    ]);
    const id = 'identity:engineering/sso-admin';
    // Repointing the provider (issuer, groups claim) puts the admin in "admins": owner on the org.
    expect(OWNER.every((c) => can(rel, id, 'org').has(c))).toBe(true);
    expect(OWNER.every((c) => can(rel, id, 'group:ops').has(c))).toBe(true);
    const path = pathOf(rel, id, 'org', 'groups.delete')!;
    expect(path[0]).toMatchObject({
      capability: 'identity_providers.update',
      through: 'identityProvider:engineering/okta',
    });
    expect(describePath(rel, path, groupKey(rel, 'org'))).toContain(
      'can repoint identityProvider:engineering/okta to sign it in',
    );
  });

  it('identity_providers.update reaches no provider homed elsewhere; identity_providers.list alone obtains nothing', () => {
    const rel = relation([
      r.identityProvider('ops', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OKTA } as never),
      r.groupMapping('ops', 'okta', 'admins', { builtin: 'owner' }),
      r.identity('engineering', 'sso-admin', who('sso-admin')),
      r.identity('engineering', 'reader', who('reader')),
      r.role('engineering', 'sso', { capabilities: ['identity_providers.update'] }),
      r.role('engineering', 'look', { capabilities: ['identity_providers.list'] }),
      r.binding('engineering', 'sso-admin', 'sso'),
      r.binding('engineering', 'reader', 'look'),
    ]);
    expect(can(rel, 'identity:engineering/sso-admin', 'org').size).toBe(0);
    expect(can(rel, 'identity:engineering/sso-admin', 'group:ops').size).toBe(0);
    expect(obtainableOf(rel, principal(rel, 'identity:engineering/reader')).size).toBe(0);
  });
});
