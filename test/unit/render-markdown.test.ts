import { describe, expect, it } from 'vitest';
import { plan } from '../../src/plan/index.js';
import { MARKDOWN_MAX_CHARS, renderMarkdownPlan, renderPlan } from '../../src/views/plan.js';
import { desiredState, emptyLive, liveState, r } from './plan-builders.js';
import { scenarioPlan } from './render-scenario.js';

describe('renderMarkdownPlan', () => {
  it('puts the summary first, calls out every delete, and groups steps by kind in <details>', () => {
    const md = renderMarkdownPlan(scenarioPlan());
    const lines = md.split('\n');
    expect(lines.slice(0, 16)).toEqual([
      '### platform-sync plan for `acme`',
      '',
      '**Plan: 3 to create, 3 to update, 2 to delete.**',
      '',
      // What the plan changes in access comes first: the part a reviewer must not miss.
      '#### Access changes',
      '',
      '| Principal | Scope | Reach | Gained | Lost |',
      '|---|---|---|---|---|',
      // The group the plan creates below is a real change too: it inherits nothing of repo.list.
      // The service's viewer holds 51 capabilities; a long list is bounded, writes first, with its count.
      '| `identity:eng/ci` | `group:eng` | 2 groups |  | ➖ 50 capabilities: account_associations.list, actions.list, advisories.list, apk.blobs.get, apk.list, build_report.list, group_invites.list, groups.list, guardener.actions.migrate, guardener.association.list, guardener.dfc.convert, guardener.entitlement.list, … |',
      '| `identity:eng/platform/deploy-bot` | `group:eng/platform` | 1 group | ➕ repo.list |  |',
      '',
      '> [!WARNING]',
      '> **This plan deletes 2 resources:**',
      '>',
      '> - `tag:legacy:1.0` (tag of deleted repo:legacy)',
      '> - `repo:legacy`',
    ]);
    expect(md).toContain('<details><summary>1 group: 1 to create</summary>\n\n```diff\n+ create group:eng/platform\n');
    expect(md).toContain('<details><summary>2 role bindings: 1 to create, 1 to update</summary>');
    expect(md).toContain('<details><summary>2 repos: 1 to update, 1 to delete</summary>');
    // Every line starts with the marker GitHub colours by: + green, - red, ! orange.
    expect(md).toContain(
      '! update repo:nginx\n!   readme:\n      @@ -1,3 +1,4 @@\n       # nginx\n       \n-     -Old text.\n+     +New text.\n+     +More.\n',
    );
    expect(md).toContain(
      '+ create group:eng/platform\n+   name:        "platform"\n+   description: "Platform team"\n',
    );
    expect(md).toContain('- delete repo:legacy\n-   name: "legacy"\n');
    expect(md.match(/<details>/g)).toHaveLength(md.match(/<\/details>/g)!.length);
    expect(md).not.toContain('not shown');
    expect(renderPlan(scenarioPlan(), 'markdown')).toBe(md);
  });

  it('says there is nothing to do for an empty plan', () => {
    const shapes = [r.repo('', 'x')];
    expect(renderMarkdownPlan(plan(desiredState(shapes), liveState(shapes)))).toBe(
      '### platform-sync plan for `acme`\n\n**No changes. The org matches the manifests.**\n',
    );
  });

  it('says an empty targeted plan has no changes to the targets, and lists what --target left out', () => {
    const live = liveState([r.repo('', 'x', { description: 'old' })]);
    const md = renderMarkdownPlan(
      plan(desiredState([r.repo('', 'x', { description: 'new' })]), live, { targets: ['repo:y'] }),
    );
    expect(md).toBe(
      '### platform-sync plan for `acme`\n\n**Nothing planned: the plan is refused.**\n\n> [!CAUTION]\n> **This plan is refused: apply will not run it.**\n>\n> - \\--target repo:y matches nothing: no resource the manifests declare or the org holds has such an address (a typo?)\n\n**Warnings**\n\n' +
        '- 1 other change is not in this plan because of --target\n',
    );
  });

  it('escapes the untrusted text of delete reasons, warnings and refusals: no HTML, link or @mention (found by the review)', () => {
    const hostile = '<img src=https://evil.example/p.png> [click](https://evil.example) @octocat';
    const p = scenarioPlan();
    const md = renderMarkdownPlan({
      ...p,
      steps: p.steps.map((s) => (s.action === 'delete' ? { ...s, reason: hostile } : s)),
      warnings: [hostile],
      refusals: [{ rule: 'declared-twice', message: hostile, addresses: [] }],
    });
    const escaped =
      '&lt;img src=https:&#8203;//evil.example/p.png&gt; \\[click\\](https:&#8203;//evil.example) @&#8203;octocat';
    expect(md).toContain(`> - \`repo:legacy\` (${escaped})`);
    expect(md).toContain(`\n- ${escaped}\n`);
    expect(md).toContain(`> - ${escaped}\n`);
    // Raw only inside the fenced ```diff blocks, where it is code.
    const outsideFences = md
      .split(/^`{3,}.*$/m)
      .filter((_, i) => i % 2 === 0)
      .join('');
    expect(outsideFences).not.toContain('<img');
  });

  it('fences code so that a readme holding ``` cannot break out', () => {
    const md = renderMarkdownPlan(
      plan(desiredState([r.repo('', 'x', { readme: '# x\n```sh\nrun\n```\n' })]), emptyLive(), { bootstrap: true }),
    );
    expect(md).toContain('````diff\n');
    expect(md).toContain('\n````\n\n</details>');
  });

  it('cuts to fit 60,000 characters and says what was cut', () => {
    const shapes = Array.from({ length: 1500 }, (_, i) =>
      r.repo('', `repo-${String(i).padStart(4, '0')}`, { description: 'x'.repeat(40) }),
    );
    const identities = Array.from({ length: 50 }, (_, i) => r.identity('', `id-${i}`));
    const p = plan(desiredState([...shapes, ...identities]), emptyLive(), { bootstrap: true });
    const md = renderMarkdownPlan(p);
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_MAX_CHARS);
    expect(
      md.startsWith('### platform-sync plan for `acme`\n\n**Plan: 1551 to create, 0 to update, 0 to delete.**'),
    ).toBe(true);
    const shown = md.match(/^\+ create /gm)!.length;
    expect(shown).toBeGreaterThan(100);
    expect(md).toContain(
      `> ✂️ **${1551 - shown} of 1551 steps are not shown** (repo): this report is cut to fit 60,000 characters.`,
    );
    expect(md.match(/<details>/g)).toHaveLength(md.match(/<\/details>/g)!.length);
    // Identities come before repos in create order, so they all made it in.
    expect(md).toContain('<details><summary>50 identities: 50 to create</summary>');
  });

  it('names at most 50 deletes in the call-out', () => {
    const live = liveState(Array.from({ length: 60 }, (_, i) => r.repo('', `r${String(i).padStart(2, '0')}`)));
    const md = renderMarkdownPlan(plan(desiredState([]), live, { allowMassDelete: true }));
    expect(md).toContain('> - `repo:r49`\n> - … and 10 more (in the details below)\n');
    expect(md).not.toContain('> - `repo:r50`');
  });
});

describe('output formats are registries (issue 63)', () => {
  it("drift, audit and access pick a renderer by format name from one table each, and the CLI's --format choices are its keys", async () => {
    const { DRIFT_FORMATS, AUDIT_FORMATS, ACCESS_FORMATS } = await import('../../src/index.js');
    expect(DRIFT_FORMATS).toEqual(['text', 'json', 'markdown']);
    expect(AUDIT_FORMATS).toEqual(['text', 'json', 'markdown', 'sarif']);
    expect(ACCESS_FORMATS).toEqual(['text', 'json']);
    const { runCli } = await import('../e2e/cli-harness.js');
    for (const [command, formats] of [
      ['drift', DRIFT_FORMATS],
      ['audit', AUDIT_FORMATS],
      ['access', ACCESS_FORMATS],
    ] as const) {
      const help = await runCli([command, '--help']);
      expect(help.stdout.replace(/\s+/g, ' '), command).toContain(
        `(choices: ${formats.map((f) => `"${f}"`).join(', ')},`,
      );
    }
  });
});
