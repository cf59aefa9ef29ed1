import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shouldColor } from '../../src/cli/shared.js';
import { renderPlan, renderTextPlan } from '../../src/views/plan.js';
import { plan } from '../../src/plan/index.js';
import { desiredState, emptyLive, liveState, r } from './plan-builders.js';
import { scenarioPlan } from './render-scenario.js';
import { addedLines, diffLines } from '../../src/views/step-lines.js';

describe('renderTextPlan', () => {
  it('shows + ~ - lines, old → new, a unified diff for the readme, and the summary', () => {
    const text = renderTextPlan(scenarioPlan(), { color: false });
    expect(text).toMatchInlineSnapshot(`
      "platform-sync will make these changes to org acme (aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa):

      Access changes:
        - identity:eng/ci loses 50 capabilities: account_associations.list, actions.list, advisories.list, apk.blobs.get, apk.list, build_report.list, group_invites.list, groups.list, guardener.actions.migrate, guardener.association.list, guardener.dfc.convert, guardener.entitlement.list, … on group:eng and 1 group below
        + identity:eng/platform/deploy-bot gains repo.list on group:eng/platform

        + create group:eng/platform
            name:        "platform"
            description: "Platform team"

        + create identity:eng/platform/deploy-bot
            name: "deploy-bot"

        + create roleBinding:eng/platform/deploy-bot=/deployer
            identity: (known after apply: identity:eng/platform/deploy-bot)
            role:     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/0000000000000003" (role:deployer)

        ~ update identity:eng/ci
            description: "old bot" → "CI bot"

        ~ update repo:nginx
            readme:
              @@ -1,3 +1,4 @@
               # nginx
               
              -Old text.
              +New text.
              +More.

        ~ update roleBinding:eng/ci=/deployer  (role viewer → deployer (was roleBinding:eng/ci=viewer))
            role: "1111111111111111111111111111111111111111" → "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/0000000000000003" (role:deployer)

        - delete tag:legacy:1.0  (tag of deleted repo:legacy)
            name:       "1.0"
            digest:     "sha256:0000000000000000000000000000000000000000000000000000000000000000"
            deprecated: false

        - delete repo:legacy
            name: "legacy"

      Warnings:
        ! 1 tag goes with its deleted repo (repo:legacy): deleting a repo deletes its tags

      Plan: 3 to create, 3 to update, 2 to delete.
      "
    `);
  });

  it('names a built-in role and an outside identity in words beside their uids', () => {
    const outsider = `${'c'.repeat(40)}/00000000000000ff`;
    const desired = desiredState([
      r.identity('', 'bot'),
      r.binding('', 'bot', 'viewer'),
      r.binding('', { uid: outsider }, 'editor'),
    ]);
    const text = renderTextPlan(plan(desired, liveState([r.identity('', 'bot')])), { color: false });
    expect(text).toContain('(built-in role viewer)');
    expect(text).toContain(`"${outsider}" (identity outside the org)`);
    expect(text).not.toContain('role:builtin:');
  });

  it('says so when there is nothing to do', () => {
    const shapes = [r.repo('', 'x')];
    expect(renderTextPlan(plan(desiredState(shapes), liveState(shapes)), { color: false })).toBe(
      'No changes. The org matches the manifests.\n',
    );
  });

  it('aligns one-line fields of a step on their labels and shows what a delete removes', () => {
    const live = liveState([
      r.identity('', 'old-bot', { description: 'Gone soon', claimMatch: { issuer: 'https://iss', subject: 's' } }),
      r.repo('', 'docs', { readme: '# docs\n\nOne.\nTwo.\n' }),
    ]);
    const text = renderTextPlan(
      plan(desiredState([], { settings: { prune: true } }), live, { allowMassDelete: true }),
      { color: false },
    );
    expect(text).toContain(
      [
        '  - delete identity:old-bot',
        '      name:        "old-bot"',
        '      description: "Gone soon"',
        '      claimMatch:  {issuer: "https://iss", subject: "s"}',
      ].join('\n'),
    );
    // A long text is shown by its size: the reviewer needs to know what goes, not to read it.
    expect(text).toMatch(/- delete repo:docs\n {6}name: +"docs"\n {6}readme: \(4 lines\)\n/);
  });

  it('colours only when asked', () => {
    const p = scenarioPlan();
    const plain = renderTextPlan(p, { color: false });
    const coloured = renderTextPlan(p, { color: true });
    expect(plain).not.toContain('\u001b[');
    expect(coloured).toContain('\u001b[32m+ create group:eng/platform\u001b[39m');
    expect(coloured).toContain('\u001b[31m- delete repo:legacy\u001b[39m');
    expect(coloured).toContain('\u001b[33m~ update identity:eng/ci\u001b[39m');
    // Removing the escapes gives the plain text back: colour adds nothing else.
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(plain);
    expect(renderPlan(p, 'text')).toBe(plain);
  });

  it('lists warnings and shows a bootstrap org as to be created', () => {
    const p = plan(desiredState([r.repo('', 'x')], { settings: { prune: { identity: false } } }), {
      ...liveState([r.identity('', 'kept')]),
    });
    expect(renderTextPlan(p, { color: false })).toContain(
      'Warnings:\n  ! 1 identity not in the manifests is kept (identity:kept): settings.prune.identities is false\n',
    );
    const bootstrap = renderTextPlan(
      plan(desiredState([r.repo('', 'x'), r.repo('', 'y', { readme: '# y\n\nText.\n' })]), emptyLive(), {
        bootstrap: true,
      }),
      {
        color: false,
      },
    );
    expect(bootstrap).toContain(
      '+ create repo:y\n      name: "y"\n      readme:\n        +# y\n        +\n        +Text.\n\n',
    );
    expect(bootstrap).toContain(
      'changes to org acme (to be created):\n\n  + create org  (bootstrap: no root group named acme is visible to this token)\n      name: "acme"\n',
    );
    expect(bootstrap).toContain('+ create repo:x\n      name: "x"\n');
  });
});

describe('renderTextPlan with --target', () => {
  const shapes = [r.repo('', 'app'), r.repo('', 'web')];
  const live = liveState([r.repo('', 'app', { description: 'old' }), r.repo('', 'web', { description: 'old' })]);
  const desired = desiredState([r.repo('', 'app', { description: 'new' }), r.repo('', 'web', { description: 'new' })]);

  it('says how many changes the targets leave out', () => {
    const text = renderTextPlan(plan(desired, live, { targets: ['repo:app'] }), { color: false });
    expect(text).toContain(
      'Warnings:\n  ! 1 other change is not in this plan because of --target\n\nPlan: 0 to create, 1 to update, 0 to delete.\n',
    );
  });

  it('does not claim the org matches the manifests when the targets match no change', () => {
    const text = renderTextPlan(plan(desired, live, { targets: ['repo:nothing'] }), { color: false });
    expect(text).toBe(
      'Warnings:\n  ! 2 other changes are not in this plan because of --target\n\n' +
        'Refused: apply will not run this plan:\n  x --target repo:nothing matches nothing: no resource the manifests declare or the org holds has such an address (a typo?)\n\n' +
        'Nothing planned: the plan is refused.\n',
    );
    // In sync with a target: still no claim about what the targets do not cover.
    expect(
      renderTextPlan(plan(desiredState(shapes), liveState(shapes), { targets: ['repo:*'] }), { color: false }),
    ).toBe(
      'Warnings:\n  ! --target repo:* matches no change: what it names is live as declared\n\nNo changes to the targeted resources.\n',
    );
  });
});

describe('shouldColor', () => {
  const tty = { isTTY: true } as NodeJS.WriteStream;
  const pipe = { isTTY: false } as NodeJS.WriteStream;
  it('colours a TTY unless NO_COLOR or --no-color says otherwise', () => {
    expect(shouldColor({}, tty, {})).toBe(true);
    expect(shouldColor({}, pipe, {})).toBe(false);
    expect(shouldColor({}, tty, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColor({}, tty, { NO_COLOR: '' })).toBe(true);
    expect(shouldColor({ color: false }, tty, {})).toBe(false);
  });
});

describe('a new multi-line value', () => {
  it('shows the lines the diff package shows from nothing, without loading it', () => {
    const text = fc
      .tuple(fc.stringMatching(/^[ab\r\n\\+ -]{0,12}$/), fc.boolean())
      .map(([t, newline]) => (newline ? `${t}\n` : t));
    fc.assert(
      fc.property(text, (value) => {
        if (!value.includes('\n')) return;
        expect(addedLines(value)).toEqual(diffLines('', value).filter((l) => l.tone === 'add'));
      }),
      { numRuns: 300 },
    );
  });
});
