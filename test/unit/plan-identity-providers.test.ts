/**
 * Identity providers in the planner (built states, no API): the default role is a reference
 * (a uid, or the create of a role the same plan makes), the secret is a reference sent by the
 * create and by --rotate-secrets only, and a role an identity provider holds is deleted after it.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import type { CreateStep, UpdateStep } from '../../src/model/plan.js';
import { BUILTIN_ROLES, desiredState, liveState, r } from './plan-builders.js';

const OIDC = { issuer: 'https://acme.okta.com', clientId: 'c-1' };
const SECRET = { 'oidc.clientSecret': { fromEnv: 'PLATFORM_SYNC_SECRET_OKTA' } };

function withSecret(shape: ReturnType<typeof r.identityProvider>) {
  return Object.assign(shape, { secrets: SECRET }) as unknown as ReturnType<typeof r.identityProvider>;
}

describe('identity providers in a plan', () => {
  it('creates one after the role it defaults to, filled from that create, with the secret as a reference', () => {
    const desired = desiredState([
      r.role('', 'sso-user', { capabilities: ['repo.list'] }),
      withSecret(r.identityProvider('', 'okta', { defaultRole: { path: 'sso-user' }, oidc: OIDC })),
    ]);
    const p = plan(desired, liveState([]));
    const create = p.steps.find((s) => s.address === 'identityProvider:okta') as CreateStep;
    expect(create.refs).toEqual({ defaultRole: { address: 'role:sso-user' } });
    expect(create.after).toEqual({ name: 'okta', oidc: OIDC });
    expect(create.dependsOn).toEqual(['role:sso-user']);
    expect(create.secrets).toEqual(SECRET);
    expect(JSON.stringify(p)).not.toMatch(/clientSecret":"[^{]/);
  });

  it('sends a built-in default role as its uid, and plans nothing when all is as declared (the secret is not compared)', () => {
    const idp = r.identityProvider('', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OIDC });
    const create = plan(desiredState([withSecret(idp)]), liveState([])).steps[0] as CreateStep;
    expect(create.after.defaultRole).toBe(BUILTIN_ROLES.viewer);
    expect(
      plan(
        desiredState([withSecret(r.identityProvider('', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OIDC }))]),
        liveState([idp]),
      ).steps,
    ).toEqual([]);
  });

  it('re-sends the secret only with rotateSecrets: one update whose mask names it', () => {
    const idp = r.identityProvider('', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OIDC });
    const desired = desiredState([
      withSecret(r.identityProvider('', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OIDC })),
    ]);
    const rotated = plan(desired, liveState([idp]), { rotateSecrets: true }).steps as UpdateStep[];
    expect(rotated.map((s) => [s.address, s.updateMask, s.secrets])).toEqual([
      ['identityProvider:okta', ['oidc.clientSecret'], SECRET],
    ]);
  });

  it('deletes an identity provider before the role it defaults to, and refuses to delete a role one still holds', () => {
    const live = liveState([
      r.role('', 'sso-user', { capabilities: ['repo.list'] }),
      r.identityProvider('', 'okta', { defaultRole: { path: 'sso-user' }, oidc: OIDC }),
    ]);
    const both = plan(desiredState([]), live);
    expect(both.steps.map((s) => [s.address, s.dependsOn])).toEqual([
      ['identityProvider:okta', undefined],
      ['role:sso-user', ['identityProvider:okta']],
    ]);
    const keepIdp = plan(
      desiredState([r.identityProvider('', 'okta', { defaultRole: { path: 'sso-user' }, oidc: OIDC })]),
      live,
    );
    expect(keepIdp.refusals.map((x) => x.rule)).toEqual(['not-empty']);
  });

  it('a group mapping whose role changes is a delete and a create (no update), scoped to the org', () => {
    const idp = r.identityProvider('', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OIDC });
    const live = liveState([idp, r.groupMapping('', 'okta', 'admins', { builtin: 'owner' })]);
    const p = plan(
      desiredState([
        withSecret(r.identityProvider('', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OIDC })),
        r.groupMapping('', 'okta', 'admins', { builtin: 'editor' }),
      ]),
      live,
    );
    expect(p.steps.map((s) => `${s.action} ${s.address}`)).toEqual([
      'create groupMapping:identityProvider:okta/admins=editor',
      'delete groupMapping:identityProvider:okta/admins=owner',
    ]);
    const create = p.steps[0] as CreateStep;
    expect(create.after).toEqual({ externalGroupId: 'admins', roleUid: BUILTIN_ROLES.editor, scope: 'a'.repeat(40) });
  });
});
