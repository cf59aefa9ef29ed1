/** Audit rules on invites, members, SSO and sync (the rest of the rules: audit-rules.test.ts). */
import { describe, expect, it } from 'vitest';
import { audit, RULES, type AuditOptions, type Finding } from '../../src/audit/index.js';
import type { LiveResource, LiveState } from '../../src/model/resources.js';
import { desiredState, liveState, r } from './plan-builders.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-26T12:00:00.000Z');
const OPTIONS: AuditOptions = { now: NOW, staleDays: 90, expiryDays: 30 };

const findings = (report: { findings: Finding[] }, rule: string) => report.findings.filter((f) => f.rule === rule);
const iso = (ms: number) => new Date(ms).toISOString();

describe('open-invite', () => {
  const run = (role: string, email?: string) =>
    findings(
      audit(
        desiredState([]),
        liveState([r.invite('', role, { expirationTime: iso(NOW + DAY), ...(email ? { email } : {}) })]),
        OPTIONS,
      ),
      'open-invite',
    );

  it('an invite without an e-mail is medium, high when its role can write; one with an e-mail is fine', () => {
    expect(run('viewer')[0]).toMatchObject({ severity: 'medium', address: 'groupInvite:0000000000000001=viewer' });
    expect(run('editor')[0]).toMatchObject({ severity: 'high' });
    expect(run('owner', 'alice@acme.dev')).toEqual([]);
  });
});

describe('invite-expired', () => {
  const run = (expirationTime: string) =>
    findings(
      audit(desiredState([]), liveState([r.invite('', 'viewer', { email: 'bob@acme.dev', expirationTime })]), OPTIONS),
      'invite-expired',
    );

  it('an invite at or past its expiration is low; one a millisecond before is fine', () => {
    expect(run(iso(NOW - 3 * DAY))[0]).toMatchObject({ severity: 'low', address: 'groupInvite:bob@acme.dev=viewer' });
    expect(run(iso(NOW))[0]).toMatchObject({ severity: 'low' });
    expect(run(iso(NOW + 1))).toEqual([]);
  });
});

describe('sync-expiring', () => {
  const SOURCE = `${'a'.repeat(40)}/${'b'.repeat(16)}`;
  const run = (expiration: string, declared = true) => {
    const repo = r.repo('', 'nginx', { syncConfig: { source: SOURCE, expiration } });
    return findings(
      audit(desiredState(declared ? [repo] : []), liveState(declared ? [] : [repo]), OPTIONS),
      'sync-expiring',
    );
  };

  it('past is high (at the manifest line), within --expiry-days medium, later fine; a live entitlement is judged too', () => {
    expect(run(iso(NOW - DAY))[0]).toMatchObject({
      severity: 'high',
      address: 'repo:nginx',
      location: { file: 'manifest.yaml' },
    });
    expect(run(iso(NOW + 30 * DAY))[0]).toMatchObject({ severity: 'medium' });
    expect(run(iso(NOW + 30 * DAY + 1))).toEqual([]);
    expect(run(iso(NOW), false)[0]).toMatchObject({ severity: 'high', address: 'repo:nginx' });
    expect(run(iso(NOW), false)[0]!.location).toBeUndefined();
  });

  it('the declared entitlement is judged, not the live one it will replace', () => {
    const live = liveState([r.repo('', 'nginx', { syncConfig: { source: SOURCE, expiration: iso(NOW - DAY) } })]);
    const desired = desiredState([
      r.repo('', 'nginx', { syncConfig: { source: SOURCE, expiration: iso(NOW + 365 * DAY) } }),
    ]);
    expect(findings(audit(desired, live, OPTIONS), 'sync-expiring')).toEqual([]);
  });
});

describe('unmanaged-write-access says what keeps the binding (issue 40)', () => {
  const live = liveState([r.identity('', 'human-ann'), r.binding('', 'human-ann', 'owner')]);
  const message = (settings: Parameters<typeof desiredState>[1]) =>
    findings(audit(desiredState([r.identity('', 'human-ann')], settings), live, OPTIONS), 'unmanaged-write-access')[0]!
      .message;

  it('an ignore glob, pruning off, or the next apply deleting it — never "turn prune on" when it is on', () => {
    expect(message({ settings: { ignore: ['identity:human-*'] } })).toContain(
      'settings.ignore leaves it alone (glob identity:human-*)',
    );
    expect(message({ settings: { prune: { roleBinding: false } } })).toContain(
      'settings.prune is off for role bindings',
    );
    expect(message({})).toContain('the next apply deletes it');
    for (const rule of RULES) expect(rule.help, rule.id).not.toContain('acme');
  });
});

describe('members in the audit', () => {
  it("a present member's write binding is declared by its line: no unmanaged-write-access", () => {
    const person = { ...r.identity('', 'alice'), email: 'alice@acme.dev' } as LiveResource;
    const live = liveState([person, r.binding('', 'alice', 'editor')]);
    const desired = {
      ...desiredState([]),
      members: [
        {
          address: 'member:alice@acme.dev=editor',
          groupPath: '',
          email: 'Alice@acme.dev',
          role: { builtin: 'editor' },
          source: { file: 'm.yaml', line: 3, column: 7 },
        },
      ],
    };
    expect(findings(audit(desired, live, OPTIONS), 'unmanaged-write-access')).toEqual([]);
    expect(findings(audit(desiredState([]), live, OPTIONS), 'unmanaged-write-access')).toHaveLength(1);
  });
});

/** Live with the built-in roles' capabilities, as the roles list gives them (what effective access reads). */
function withCapabilities(live: LiveState): LiveState {
  return {
    ...live,
    builtinRoleCapabilities: {
      owner: ['groups.delete', 'repo.list'],
      editor: ['repo.update', 'repo.list'],
      viewer: ['repo.list'],
      'registry.push': ['tag.create', 'repo.list'],
      'registry.pull': ['repo.list'],
    },
  };
}

describe('sso-write-access', () => {
  const idp = (defaultRole: string, mappings: [string, string][] = []) => [
    r.identityProvider('', 'okta', {
      defaultRole: { builtin: defaultRole },
      oidc: { issuer: 'https://acme.okta.com', clientId: 'c' },
    } as never),
    ...mappings.map(([group, role]) => r.groupMapping('', 'okta', group, { builtin: role })),
  ];
  const run = (desired: Parameters<typeof desiredState>[0]) =>
    findings(audit(desiredState(desired), withCapabilities(liveState([])), OPTIONS), 'sso-write-access');

  it('fires for a default role (high) or a group mapping (medium) that can write, naming who', () => {
    expect(run(idp('owner'))).toEqual([
      expect.objectContaining({
        severity: 'high',
        address: 'identityProvider:okta',
        message: 'idp:okta/*: anyone who signs in to okta holds role owner on org, which can write',
      }),
    ]);
    expect(run(idp('viewer', [['everyone', 'owner']]))).toEqual([
      expect.objectContaining({
        severity: 'medium',
        message: 'idp:okta/group:everyone: anyone okta puts in group everyone holds role owner on org, which can write',
      }),
    ]);
  });

  it('does not fire for read roles', () => {
    expect(run(idp('viewer', [['devs', 'registry.pull']]))).toEqual([]);
  });
});

describe('invite-outside-domain', () => {
  const member = (email: string, role: string) => ({
    address: `member:${email}=${role}`,
    groupPath: '',
    email,
    role: { builtin: role },
    source: { file: 'members.yaml', line: 3, column: 7 },
  });
  const run = (members: ReturnType<typeof member>[], live: Parameters<typeof liveState>[0] = []) =>
    findings(
      audit({ ...desiredState([]), members }, withCapabilities(liveState(live)), OPTIONS),
      'invite-outside-domain',
    );

  it('fires (high) for a write role invited to a domain no other person of the org uses', () => {
    expect(run([member('mallory@evil.example', 'owner'), member('alice@acme.dev', 'viewer')])).toEqual([
      expect.objectContaining({
        severity: 'high',
        message:
          'mallory@evil.example is invited to role owner on org, which can write, and no other person of the org uses evil.example',
      }),
    ]);
  });

  it("does not fire for a read role, nor for a domain the org's people use", () => {
    expect(run([member('mallory@evil.example', 'viewer')])).toEqual([]);
    expect(run([member('bob@acme.dev', 'owner'), member('alice@ACME.dev', 'viewer')])).toEqual([]);
  });
});
