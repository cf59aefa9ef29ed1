/**
 * The members phase (DESIGN.md §4 "Members and invites"): each `members` line is present,
 * pending or invited, and what the plan does for it; e-mails compare case-insensitively.
 */
import { describe, expect, it } from 'vitest';
import { describeDrift } from '../../src/drift/drift-report.js';
import { renderMarkdownDrift, renderTextDrift } from '../../src/views/drift.js';
import { markdownText } from '../../src/io/escape.js';
import { renderMarkdownPlan } from '../../src/views/plan-markdown.js';
import { plan } from '../../src/plan/index.js';
import type { DesiredMember, DesiredState, LiveResource } from '../../src/model/resources.js';
import { desiredState, liveState, r } from './plan-builders.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-27T10:00:00.000Z');
const member = (groupPath: string, email: string, role: string, line = 9): DesiredMember => ({
  address: `member:${groupPath === '' ? '' : `${groupPath}/`}${email.toLowerCase()}=${role}`,
  groupPath,
  email,
  role: { builtin: role },
  source: { file: 'members.yaml', line, column: 7 },
});
const withMembers = (
  d: DesiredState,
  members: DesiredMember[],
  settings: Partial<DesiredState['settings']> = {},
): DesiredState => ({ ...d, members, settings: { ...d.settings, ...settings } });
/** An identity as a person who accepted an invite has one: with the e-mail the service reports. */
const person = (groupPath: string, name: string, email: string) =>
  ({ ...r.identity(groupPath, name), email }) as LiveResource;

describe('plan: members', () => {
  it('invites a missing member: one create, expiring settings.inviteTtl after now, single use', () => {
    const p = plan(
      withMembers(desiredState([r.group('eng')]), [member('eng', 'Alice@Acme.dev', 'viewer')]),
      liveState([r.group('eng')]),
      { now: NOW },
    );
    expect(p.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['create groupInvite:eng/alice@acme.dev=viewer']);
    expect(p.steps[0]).toMatchObject({
      after: { email: 'Alice@Acme.dev', expirationTime: '2026-12-04T10:00:00.000Z', singleUse: true },
      source: { file: 'members.yaml', line: 9 },
    });
    expect(p.members).toEqual([
      expect.objectContaining({
        state: 'invited',
        group: 'group:eng',
        role: 'viewer',
        expirationTime: '2026-12-04T10:00:00.000Z',
      }),
    ]);
    const ttl = plan(
      withMembers(desiredState([r.group('eng')]), [member('eng', 'a@acme.dev', 'viewer')], { inviteTtlMs: 2 * DAY }),
      liveState([r.group('eng')]),
      { now: NOW },
    );
    expect(ttl.steps[0]).toMatchObject({ after: { expirationTime: '2026-11-29T10:00:00.000Z' } });
  });

  it('keeps an open invite (pending, with its expiry), matching its e-mail case-insensitively', () => {
    const invite = r.invite('eng', 'viewer', { email: 'alice@acme.dev', expirationTime: '2026-12-01T00:00:00Z' });
    const p = plan(
      withMembers(desiredState([r.group('eng')]), [member('eng', 'ALICE@acme.dev', 'viewer')]),
      liveState([r.group('eng'), invite]),
      { now: NOW },
    );
    expect(p.steps).toEqual([]);
    expect(p.members).toEqual([expect.objectContaining({ state: 'pending', expirationTime: '2026-12-01T00:00:00Z' })]);
  });

  it('replaces an expired invite of a member: the old one deleted, a new one created, in one plan', () => {
    const invite = r.invite('eng', 'viewer', { email: 'alice@acme.dev', expirationTime: '2026-11-01T00:00:00Z' });
    const p = plan(
      withMembers(desiredState([r.group('eng')]), [member('eng', 'alice@acme.dev', 'viewer')]),
      liveState([r.group('eng'), invite]),
      { now: NOW },
    );
    expect(p.steps.map((s) => `${s.action} ${s.address}`).sort()).toEqual([
      'create groupInvite:eng/alice@acme.dev=viewer',
      'delete groupInvite:eng/0000000000000002=viewer',
    ]);
    expect(p.members![0]).toMatchObject({ state: 'invited', replaces: 'groupInvite:eng/0000000000000002=viewer' });
  });

  it('replaces an expired invite of a member even where invites are not pruned (DESIGN.md §4: deleted and replaced), unless it is ignored', () => {
    const invite = r.invite('eng', 'viewer', { email: 'alice@acme.dev', expirationTime: '2026-11-01T00:00:00Z' });
    const other = r.invite('eng', 'owner', { expirationTime: '2026-11-01T00:00:00Z' });
    const live = liveState([r.group('eng'), invite, other]);
    // Live resources get their uids from liveState; an invite's address before its move is by uid.
    const uidOf = (i: typeof invite) => live.resources.find((l) => l.address === i.address)!.uid;
    const aside = (i: typeof invite, role: string) =>
      `groupInvite:eng/${uidOf(i).slice(uidOf(i).lastIndexOf('/') + 1)}=${role}`;
    expect(other.address).toMatch(/^groupInvite:eng\/\d+=owner$/); // no e-mail: addressed by its uid already
    const declared = (settings: object) =>
      withMembers(desiredState([r.group('eng')], { settings }), [member('eng', 'alice@acme.dev', 'viewer')]);
    const kept = plan(declared({ prune: { groupInvite: false } }), live, { now: NOW });
    // The member's expired invite goes; the undeclared one stays, as prune says.
    expect(kept.steps.map((s) => `${s.action} ${s.address}`).sort()).toEqual([
      'create groupInvite:eng/alice@acme.dev=viewer',
      `delete ${aside(invite, 'viewer')}`,
    ]);
    expect(kept.warnings.join('\n')).toContain(`kept (${other.address})`);
    const ignored = plan(declared({ ignore: [aside(invite, 'viewer')] }), live, { now: NOW });
    expect(ignored.steps.map((s) => `${s.action} ${s.address}`).sort()).toEqual([
      'create groupInvite:eng/alice@acme.dev=viewer',
      `delete ${other.address}`,
    ]);
  });

  it('is present once a binding of the role holds an identity with the e-mail: binding and identity kept, nothing planned', () => {
    const live = liveState([
      r.group('eng'),
      person('eng', 'alice', 'Alice@acme.dev'),
      r.binding('eng', 'alice', 'viewer'),
    ]);
    const p = plan(withMembers(desiredState([r.group('eng')]), [member('eng', 'alice@ACME.dev', 'viewer')]), live, {
      now: NOW,
    });
    expect(p.steps).toEqual([]);
    expect(p.members).toEqual([expect.objectContaining({ state: 'present', identity: 'identity:eng/alice' })]);
    // The line removed: the binding and the identity are pruned like any undeclared ones.
    const gone = plan(desiredState([r.group('eng')]), live, { now: NOW });
    expect(gone.steps.map((s) => `${s.action} ${s.address}`)).toEqual([
      'delete roleBinding:eng/alice=viewer',
      'delete identity:eng/alice',
    ]);
    // Named as people, by their e-mail (issue 50): the reviewer sees who loses access.
    expect(gone.steps.map((s) => s.reason)).toEqual([
      'member Alice@acme.dev: their members line is gone',
      'the person Alice@acme.dev: no members line or declaration names them any more',
    ]);
  });

  it('compares e-mails by ASCII lower case only: a live \u212Aate@acme.dev (KELVIN SIGN) does not make kate@acme.dev present (issue 46)', () => {
    const live = liveState([
      r.group('eng'),
      person('eng', 'kelvin', '\u212Aate@acme.dev'),
      r.binding('eng', 'kelvin', 'viewer'),
    ]);
    const p = plan(
      withMembers(desiredState([r.group('eng')]), [member('eng', 'Kate@acme.dev', 'viewer')], {
        ignore: ['identity:eng/kelvin', 'roleBinding:eng/kelvin=*'],
      }),
      live,
      { now: NOW },
    );
    expect(p.members).toEqual([expect.objectContaining({ state: 'invited' })]);
    expect(p.steps.map((s) => `${s.action} ${s.kind}`)).toEqual(['create groupInvite']);
  });

  it('removing the line of a person the manifests still name by uid is refused with a remedy (issue 50)', () => {
    const live = liveState([
      r.group('eng'),
      person('eng', 'alice', 'alice@acme.dev'),
      r.binding('eng', 'alice', 'viewer'),
    ]);
    const alice = live.resources.find((x) => x.address === 'identity:eng/alice')!;
    const p = plan(desiredState([r.group('eng'), r.binding('', { uid: alice.uid }, 'editor')]), live, { now: NOW });
    const refusal = p.refusals.find((x) => x.rule === 'not-empty' && x.addresses[0] === 'identity:eng/alice');
    expect(refusal?.message).toMatch(
      /To fix: keep identity:eng\/alice — declare it in its group's identities, or keep the members line that brought it — or remove roleBinding:\S+=editor, which names it by uid$/,
    );
  });

  it('a binding of another role does not make the member present: an invite for the declared role', () => {
    const live = liveState([
      r.group('eng'),
      person('eng', 'alice', 'alice@acme.dev'),
      r.binding('eng', 'alice', 'viewer'),
    ]);
    const p = plan(
      withMembers(desiredState([r.group('eng'), r.identity('eng', 'alice'), r.binding('eng', 'alice', 'viewer')]), [
        member('eng', 'alice@acme.dev', 'editor'),
      ]),
      live,
      { now: NOW },
    );
    expect(p.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['create groupInvite:eng/alice@acme.dev=editor']);
  });

  it('prunes invites no member declares, unless ignored or invites are not pruned', () => {
    const live = liveState([r.group('eng'), r.invite('eng', 'owner', { expirationTime: '2026-12-01T00:00:00Z' })]);
    expect(
      plan(desiredState([r.group('eng')]), live, { now: NOW }).steps.map((s) => `${s.action} ${s.address}`),
    ).toEqual(['delete groupInvite:eng/0000000000000001=owner']);
    expect(
      plan(desiredState([r.group('eng')], { settings: { ignore: ['groupInvite:*'] } }), live, { now: NOW }).steps,
    ).toEqual([]);
    const kept = plan(desiredState([r.group('eng')], { settings: { prune: { groupInvite: false } } }), live, {
      now: NOW,
    });
    expect(kept.steps).toEqual([]);
    expect(kept.warnings.join('\n')).toContain('settings.prune.groupInvites is false');
  });

  it('--target member:… keeps the steps its line causes (and what they wait for); a line with nothing to do is a note, a typo a refusal', () => {
    const expiredInvite = r.invite('old', 'viewer', {
      email: 'carol@acme.dev',
      expirationTime: '2026-11-01T00:00:00Z',
    });
    const live = liveState([
      r.group('eng'),
      r.group('old'),
      expiredInvite,
      person('eng', 'alice', 'alice@acme.dev'),
      r.binding('eng', 'alice', 'viewer'),
    ]);
    const desired = withMembers(desiredState([r.group('eng'), r.group('old'), r.group('new'), r.repo('eng', 'app')]), [
      member('eng', 'alice@acme.dev', 'viewer'),
      member('new', 'bob@acme.dev', 'viewer'),
      member('old', 'Carol@acme.dev', 'viewer'),
    ]);
    const steps = (targets: string[]) =>
      plan(desired, live, { now: NOW, targets })
        .steps.map((s) => `${s.action} ${s.address}`)
        .sort();
    expect(steps(['member:new/bob@acme.dev=viewer'])).toEqual([
      'create group:new',
      'create groupInvite:new/bob@acme.dev=viewer',
    ]);
    const replaced = steps(['member:old/*']);
    expect(replaced).toHaveLength(2);
    expect(replaced).toContain('create groupInvite:old/carol@acme.dev=viewer');
    expect(replaced.find((s) => s.startsWith('delete groupInvite:old/'))).toBeDefined();
    const present = plan(desired, live, { now: NOW, targets: ['member:eng/alice@acme.dev=viewer'] });
    expect(present.steps).toEqual([]);
    expect(present.warnings.join('\n')).toContain('--target member:eng/alice@acme.dev=viewer matches no change');
    const typo = plan(desired, live, { now: NOW, targets: ['member:eng/alice@acme.dev=owner'] });
    expect(typo.refusals.map((x) => x.rule)).toEqual(['unknown-target']);
  });

  it('drift tells a member who never accepted from a hand edit: the expired invite and the new one say whose they are', () => {
    const expiredInvite = r.invite('eng', 'viewer', {
      email: 'carol@acme.dev',
      expirationTime: '2026-11-01T00:00:00Z',
    });
    const desired = withMembers(desiredState([r.group('eng')]), [
      member('eng', 'Carol@acme.dev', 'viewer'),
      member('eng', 'dan@acme.dev', 'editor'),
    ]);
    const p = plan(desired, liveState([r.group('eng'), expiredInvite]), { now: NOW });
    expect(p.members!.map((m) => [m.email, m.invite])).toEqual([
      ['Carol@acme.dev', 'groupInvite:eng/carol@acme.dev=viewer'],
      ['dan@acme.dev', 'groupInvite:eng/dan@acme.dev=editor'],
    ]);
    const drift = describeDrift(p);
    const byAddress = new Map(drift.items.map((i) => [i.address, i]));
    const replaced = p.members![0]!.replaces!;
    // One finding per expired invite, under the member (issue 50): not the invite's own address as well.
    expect(byAddress.has(replaced)).toBe(false);
    expect(drift.items).toHaveLength(2);
    expect(byAddress.get('member:eng/carol@acme.dev=viewer')).toMatchObject({
      category: 'missing',
      message:
        'Carol@acme.dev (viewer on group:eng) did not accept their invite before it expired: apply deletes it and invites them again',
    });
    expect(byAddress.get('groupInvite:eng/dan@acme.dev=editor')?.message).toBe(
      'dan@acme.dev (editor on group:eng) holds no binding of that role and has no open invite: apply invites them',
    );
    // Text and markdown show it under the item (they show a finding's detail, not its message).
    expect(renderTextDrift(drift, { color: false })).toContain('  ! member:eng/carol@acme.dev=viewer');
    expect(renderTextDrift(drift, { color: false })).toContain(
      '      Carol@acme.dev (viewer on group:eng) did not accept their invite before it expired',
    );
    // In markdown an @ is followed by a zero-width space (no mailto link, no mention: src/io/escape.ts).
    expect(renderMarkdownDrift(drift)).toContain(
      '— Carol@&#8203;acme.dev (viewer on group:eng) did not accept their invite before it expired: apply deletes it and invites them again',
    );
  });

  it('a live expiry that is no time is expired: the invite is replaced and its text shown nowhere (the server is untrusted)', () => {
    const hostile = '2099-01-01T00:00:00Z [Approve now](https://evil.example/login)';
    const invite = r.invite('eng', 'viewer', { email: 'alice@acme.dev', expirationTime: hostile });
    const p = plan(
      withMembers(desiredState([r.group('eng')]), [member('eng', 'alice@acme.dev', 'viewer')]),
      liveState([r.group('eng'), invite]),
      { now: NOW },
    );
    expect(p.members![0]).toMatchObject({ state: 'invited', replaces: expect.stringMatching(/^groupInvite:eng\//) });
    // The delete shows the invite as it is live, inside a fenced block only (code, never a link).
    const outsideFences = renderMarkdownPlan(p)
      .split(/^```.*$/m)
      .filter((_, i) => i % 2 === 0)
      .join('');
    expect(outsideFences).not.toContain('Approve now');
    // And a table cell never holds a link, whatever text reaches it.
    expect(markdownText('[Approve now](https://evil.example/login)')).toBe(
      '\\[Approve now\\](https:&#8203;//evil.example/login)',
    );
  });

  it('an invite for a group the plan creates waits for it', () => {
    const p = plan(
      withMembers(desiredState([r.group('new')]), [member('new', 'bob@acme.dev', 'viewer')]),
      liveState([]),
      { now: NOW },
    );
    expect(p.steps.find((s) => s.kind === 'groupInvite')).toMatchObject({ dependsOn: ['group:new'] });
  });

  it('without a time to set an expiration from, a plan that must invite is refused (plan() option now)', () => {
    const p = plan(
      withMembers(desiredState([r.group('eng')]), [member('eng', 'bob@acme.dev', 'viewer')]),
      liveState([r.group('eng')]),
    );
    expect(p.refusals).toEqual([
      expect.objectContaining({ rule: 'invite-time', addresses: ['member:eng/bob@acme.dev=viewer'] }),
    ]);
  });
});
