/**
 * Where two features meet (issue "Right where features meet"): each case here gave a wrong
 * result before its fix — a declared binding dropped because its identity is ignored, a refusal
 * that reasoned on live state instead of the plan's result, a bootstrap planned by the library
 * without being asked for, an identity provider without its required default role, terms ids of
 * any text, an export the validator rejects, a --target that names nothing said as "no change".
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { applyRenames } from '../../src/plan/renames.js';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { exportManifests } from '../../src/export/index.js';
import { UserError } from '../../src/model/errors.js';
import type { DeleteStep, UpdateStep } from '../../src/model/plan.js';
import { desiredState, emptyLive, liveState, r, uidOf } from './plan-builders.js';

const OIDC = { issuer: 'https://acme.okta.com', clientId: 'c-1' };

function validate(body: string): string[] {
  const text = `apiVersion: platform-sync/v1\norg:\n  name: acme\n${body}`;
  return validateManifestTexts([{ file: 'm.yaml', text }]).diagnostics.map(
    (d) => `${d.location.line}:${d.location.column} ${d.message}`,
  );
}

describe('a declared binding of an ignored identity (defect 1)', () => {
  const settings = { ignore: ['identity:human-*'] };
  const carol = r.identity('', 'human-carol');

  it('is created, not silently dropped', () => {
    const p = plan(desiredState([r.binding('', 'human-carol', 'viewer')], { settings }), liveState([carol]));
    expect(p.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['create roleBinding:human-carol=viewer']);
    expect(p.refusals).toEqual([]);
  });

  it('is kept when live, and its hand-granted siblings are still left alone', () => {
    const live = liveState([carol, r.binding('', 'human-carol', 'viewer'), r.binding('', 'human-carol', 'owner')]);
    const p = plan(desiredState([r.binding('', 'human-carol', 'viewer')], { settings }), live);
    expect(p.steps).toEqual([]);
  });

  it('with another role than a hand-granted one: the declared one is created, the hand-granted one kept', () => {
    const live = liveState([carol, r.binding('', 'human-carol', 'owner')]);
    const p = plan(desiredState([r.binding('', 'human-carol', 'editor')], { settings }), live);
    expect(p.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['create roleBinding:human-carol=editor']);
  });
});

describe("refusals judge the plan's result, not live state alone (defect 4)", () => {
  it("deletes a custom role once the same plan moves an identity provider's default role off it", () => {
    const live = liveState([
      r.role('', 'sso-old', { capabilities: ['repo.list'] }),
      r.identityProvider('', 'okta', { defaultRole: { path: 'sso-old' }, oidc: OIDC }),
    ]);
    const desired = desiredState([r.identityProvider('', 'okta', { defaultRole: { builtin: 'viewer' }, oidc: OIDC })]);
    const p = plan(desired, live);
    expect(p.refusals).toEqual([]);
    const update = p.steps.find((s) => s.address === 'identityProvider:okta') as UpdateStep;
    expect(update.updateMask).toEqual(['defaultRole']);
    const del = p.steps.find((s) => s.address === 'role:sso-old') as DeleteStep;
    // The delete waits for the update that stops referencing the role.
    expect(del.dependsOn).toEqual(['identityProvider:okta']);
  });

  it('names a blocking binding at the address the plan leaves it at, not the one it has live', () => {
    // The binding is declared by uid (moved from owner to editor) while its identity is left out: the
    // identity's delete is refused, naming the binding as it will be after the plan.
    const live = liveState([r.identity('', 'bot'), r.binding('', 'bot', 'owner')]);
    const botUid = uidOf(live, 'identity:bot');
    const desired = desiredState([r.binding('', { uid: botUid }, 'editor')]);
    const p = plan(desired, live);
    const message = p.refusals.map((x) => x.message).join('\n');
    expect(message).toContain('cannot delete identity:bot');
    expect(message).toContain('roleBinding:bot=editor (updated by this plan from roleBinding:bot=owner)');
    expect(message).not.toContain('roleBinding:bot=owner (');
  });
});

describe('the library plans no bootstrap it was not asked for (defect 7)', () => {
  it('refuses, with no step, when the org is not visible', () => {
    const p = plan(desiredState([r.repo('', 'app')]), emptyLive());
    expect(p.steps).toEqual([]);
    expect(p.refusals.map((x) => x.rule)).toEqual(['org-not-visible']);
    expect(p.refusals[0]!.message).toContain('bootstrap');
  });

  it('plans the create of the org with bootstrap: true', () => {
    const p = plan(desiredState([r.repo('', 'app')]), emptyLive(), { bootstrap: true });
    expect(p.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['create org', 'create repo:app']);
  });
});

describe('validate', () => {
  it('requires the default role (and the oidc block) of an identity provider (defect 5)', () => {
    const problems = validate(
      '  identityProviders:\n    - name: okta\n      oidc: {issuer: "https://acme.okta.com", clientId: c}\n',
    );
    expect(problems.join('\n')).toMatch(/^5:7 .*defaultRole/m);
  });

  it('gives terms document ids a pattern (defect 10)', () => {
    expect(validate('  acceptedTerms: [platform-tos-2026, v1.2_final]\n')).toEqual([]);
    expect(validate('  acceptedTerms: ["tos\\u001b[2J"]\n').join('\n')).toMatch(/\^\[A-Za-z0-9\]/);
    expect(validate(`  acceptedTerms: [${'a'.repeat(5000)}]\n`)).toHaveLength(1);
    expect(validate('  acceptedTerms: ["-flag"]\n')).toHaveLength(1);
  });
});

describe('export of values manifests cannot hold (defect 6)', () => {
  for (const claim of ['constructor', '__proto__']) {
    it(`fails naming a claim called ${claim}`, () => {
      const claims: Record<string, string> = {};
      Object.defineProperty(claims, claim, { value: 'x', enumerable: true, writable: true, configurable: true });
      const live = liveState([
        r.identity('', 'bot', { claimMatch: { issuer: 'https://i.example', subject: 's', claims } }),
      ]);
      let error: unknown;
      try {
        exportManifests(live);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UserError);
      expect((error as UserError).message).toContain(`identity:bot: key "${claim}" at claimMatch.claims.${claim}`);
    });
  }
});

describe('--target that names nothing (defect 9)', () => {
  it('says whether the target is a typo or already as declared', () => {
    const shapes = [r.repo('', 'app')];
    const p = plan(desiredState(shapes), liveState(shapes), { targets: ['repo:ap', 'repo:app'] });
    // The typo is an error (a refusal: plan exits 1, apply will not run it); the other a note.
    expect(p.refusals).toEqual([
      {
        rule: 'unknown-target',
        message:
          '--target repo:ap matches nothing: no resource the manifests declare or the org holds has such an address (a typo?)',
        addresses: ['repo:ap'],
      },
    ]);
    expect(p.warnings).toEqual(['--target repo:app matches no change: what it names is live as declared']);
  });
});

describe('renames where an account association shares its group uid (found by the emulator contract test)', () => {
  it('a rename elsewhere keeps the org account association at its own address, not at the org (no "org matches 2 live resources")', () => {
    const live = liveState([r.accountAssociation('', { name: 'cloud' }), r.repo('', 'app'), r.group('engineering')]);
    const renamedRepo = { ...r.repo('', 'application'), renamedFrom: 'app' };
    const renamedGroup = { ...r.group('eng'), renamedFrom: 'engineering' };
    for (const [renamed, kept] of [
      [renamedRepo, r.group('engineering')],
      [renamedGroup, r.repo('', 'app')],
    ] as const) {
      const desired = desiredState([r.org(), r.accountAssociation('', { name: 'cloud' }), renamed, kept]);
      const moved = applyRenames(desired, live).live.resources;
      expect(moved.filter((x) => x.address === 'org').map((x) => x.kind)).toEqual(['group']);
      expect(moved.filter((x) => x.kind === 'accountAssociation').map((x) => x.address)).toEqual([
        'accountAssociation:/',
      ]);
      expect(plan(desired, live).steps.map((s) => `${s.action} ${s.address}`)).toEqual([`update ${renamed.address}`]);
    }
  });
});
