import { describe, expect, it } from 'vitest';
import { assertDriftReadable, describeDrift, describeValue } from '../../src/drift/drift-report.js';
import { UnsafePlanError } from '../../src/model/errors.js';
import {
  renderJsonDrift,
  renderMarkdownDrift,
  renderMarkdownDriftFailure,
  renderTextDrift,
} from '../../src/views/drift.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanRefusal, type PlanStep } from '../../src/model/plan.js';

const ORG = 'a'.repeat(40);

function planOf(steps: PlanStep[], warnings: string[] = [], refusals: PlanRefusal[] = []): Plan {
  const summary = { create: 0, update: 0, delete: 0 };
  for (const s of steps) summary[s.action]++;
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    org: { name: 'acme', uid: ORG },
    summary,
    steps,
    warnings,
    refusals,
    fingerprints: [],
  };
}

const source = { file: 'manifests/org.yaml', line: 12, column: 7 };

/** A plan with one of each: an edit made live, a repo (with tags) made by hand, a group deleted by hand. */
const mixedPlan = planOf([
  {
    action: 'create',
    kind: 'group',
    address: 'group:ops',
    parent: 'org',
    parentUid: ORG,
    after: { name: 'ops' },
    source,
  },
  {
    action: 'create',
    kind: 'repo',
    address: 'repo:ops/tools',
    parent: 'group:ops',
    after: { name: 'tools' },
    dependsOn: ['group:ops'],
    source,
  },
  {
    action: 'update',
    kind: 'repo',
    address: 'repo:nginx',
    uid: `${ORG}/0000000000000001`,
    parent: 'org',
    before: { description: 'Patched by hand' },
    after: { description: 'Hardened nginx' },
    updateMask: ['description'],
    source,
  },
  {
    action: 'delete',
    kind: 'tag',
    address: 'tag:scratch:1.0',
    uid: `${ORG}/0000000000000002/0000000000000003`,
    parent: 'repo:scratch',
    before: { name: '1.0' },
    reason: 'tag of deleted repo scratch',
  },
  {
    action: 'delete',
    kind: 'repo',
    address: 'repo:scratch',
    uid: `${ORG}/0000000000000002`,
    parent: 'org',
    before: { name: 'scratch' },
    dependsOn: ['tag:scratch:1.0'],
  },
  {
    action: 'delete',
    kind: 'identity',
    address: 'identity:intruder',
    uid: `${ORG}/0000000000000004`,
    parent: 'org',
    before: { name: 'intruder' },
  },
]);

describe('describeDrift', () => {
  it('reports an empty plan as in sync', () => {
    const report = describeDrift(
      planOf([], ['2 role bindings exist live but not in the manifests; pruning is off for roleBinding']),
    );
    expect(report.inSync).toBe(true);
    expect(report.items).toEqual([]);
    expect(report.summary).toEqual({ changed: 0, unmanaged: 0, missing: 0 });
    expect(report.notes).toHaveLength(1);
  });

  it('turns updates, deletes and creates into changed, unmanaged and missing, in reviewer words', () => {
    const report = describeDrift(mixedPlan);
    expect(report.inSync).toBe(false);
    expect(report.summary).toEqual({ changed: 1, unmanaged: 2, missing: 1 });
    expect(report.items.map((i) => [i.category, i.address])).toEqual([
      ['changed', 'repo:nginx'],
      ['unmanaged', 'repo:scratch'],
      ['unmanaged', 'identity:intruder'],
      ['missing', 'group:ops'],
    ]);
    const [changed, scratch, intruder, ops] = report.items;
    expect(changed!.message).toBe(
      'live differs from the manifests (changed by hand, or not applied yet): description is "Patched by hand" live, the manifests say "Hardened nginx"',
    );
    expect(changed!.fields).toEqual([{ field: 'description', live: 'Patched by hand', manifest: 'Hardened nginx' }]);
    expect(changed!.source).toEqual(source);
    expect(intruder!.message).toBe(
      'exists live but not in the manifests — created by hand, or its removal not applied yet',
    );
    expect(intruder!.uid).toBe(`${ORG}/0000000000000004`);
    expect(ops!.message).toBe('in the manifests but missing live — deleted by hand, or not applied yet');
    // What lies beneath a finding is part of it: the tags of the hand-made repo, the repo of the missing group.
    expect(scratch!.beneath).toEqual(['tag:scratch:1.0']);
    expect(ops!.beneath).toEqual(['repo:ops/tools']);
  });

  it('never folds an edit into its parent, and names a missing org as never applied', () => {
    const report = describeDrift(
      planOf([
        { action: 'create', kind: 'group', address: 'org', parent: null, after: { name: 'acme' } },
        { action: 'create', kind: 'repo', address: 'repo:nginx', parent: 'org', after: { name: 'nginx' } },
      ]),
    );
    expect(report.items).toHaveLength(1);
    expect(report.items[0]!.message).toBe('the org does not exist live — never applied?');
    expect(report.items[0]!.beneath).toEqual(['repo:nginx']);

    const edits = describeDrift(
      planOf([
        {
          action: 'update',
          kind: 'group',
          address: 'group:eng',
          uid: 'u1',
          parent: 'org',
          before: { description: 'a' },
          after: { description: 'b' },
          updateMask: ['description'],
        },
        {
          action: 'update',
          kind: 'repo',
          address: 'repo:eng/x',
          uid: 'u2',
          parent: 'group:eng',
          before: { description: 'c' },
          after: { description: 'd' },
          updateMask: ['description'],
        },
      ]),
    );
    expect(edits.items.map((i) => i.address)).toEqual(['group:eng', 'repo:eng/x']);
  });
});

/** A plan refused because of drift: a protected identity made by hand, beside an ordinary edit. */
const protectedKeeper: PlanRefusal = {
  rule: 'protected',
  message: 'identity:keeper is protected and would be deleted',
  addresses: ['identity:keeper'],
};
const refusedPlan = planOf(
  [
    {
      action: 'update',
      kind: 'repo',
      address: 'repo:nginx',
      uid: `${ORG}/0000000000000001`,
      parent: 'org',
      before: { description: 'Patched by hand' },
      after: { description: 'Hardened nginx' },
      updateMask: ['description'],
      source,
    },
    {
      action: 'delete',
      kind: 'identity',
      address: 'identity:keeper',
      uid: `${ORG}/0000000000000005`,
      parent: 'org',
      before: { name: 'keeper' },
    },
  ],
  [],
  [protectedKeeper],
);

describe('describeDrift of a refused plan', () => {
  it('reports every difference, the refused ones with their reason', () => {
    const report = describeDrift(refusedPlan);
    expect(report.inSync).toBe(false);
    expect(report.summary).toEqual({ changed: 1, unmanaged: 1, missing: 0 });
    expect(report.items[1]).toMatchObject({
      category: 'unmanaged',
      kind: 'identity',
      address: 'identity:keeper',
      message: 'exists live but not in the manifests, and apply refuses to delete it',
      detail: 'identity:keeper is protected and would be deleted',
    });
    expect(renderTextDrift(report)).toMatch(
      / {2}\? identity:keeper {2}\(uid a+\/0+5\)\n {6}identity:keeper is protected and would be deleted\n/,
    );
    expect(report.items[0]).toMatchObject({ category: 'changed', address: 'repo:nginx' });
  });

  it('makes a finding of a refused address that has no step of its own (a kept child blocking its group)', () => {
    const blocking: PlanRefusal = {
      rule: 'not-empty',
      message: 'group:old cannot be deleted: it still holds identity:old/human (ignored)',
      addresses: ['identity:old/human', 'group:old'],
    };
    const report = describeDrift(planOf([], [], [blocking]));
    expect(report.items).toEqual([
      {
        category: 'unmanaged',
        kind: 'identity',
        address: 'identity:old/human',
        message: 'exists live but not in the manifests, and apply refuses to delete it',
        detail: blocking.message,
      },
    ]);
    expect(report.refused).toBe(true);
  });

  it('stops at refusals that mean live state could not be read reliably', () => {
    const incomplete: PlanRefusal = {
      rule: 'incomplete-read',
      message: 'cannot delete 1 identity: the live read was incomplete',
      addresses: ['identity:x'],
    };
    expect(() => assertDriftReadable(planOf([], [], [protectedKeeper]))).not.toThrow();
    expect(() => assertDriftReadable(planOf([], [], [protectedKeeper, incomplete]))).toThrow(UnsafePlanError);
  });

  it('ends the text with what to do about the refusal, not with "run plan"', () => {
    const report = describeDrift(refusedPlan);
    expect(report.refused).toBe(true);
    const text = renderTextDrift(report);
    expect(text).not.toContain('Run `platform-sync plan`');
    expect(text.trimEnd().split('\n').at(-1)).toBe(
      'Plan and apply refuse until these are resolved: declare them in the manifests, list them in settings.ignore, or delete them by hand (a protected one may instead be dropped from settings.protect). Then run `platform-sync drift` again.',
    );
    // An ordinary drift report still points at plan and apply.
    expect(describeDrift(mixedPlan).refused).toBeUndefined();
    expect(renderTextDrift(describeDrift(mixedPlan))).toContain('Run `platform-sync plan` to see the steps');
  });
});

describe('describeValue', () => {
  it('shows a value in one readable line', () => {
    expect(describeValue('')).toBe('empty');
    expect(describeValue(undefined)).toBe('(not set)');
    expect(describeValue('x')).toBe('"x"');
    expect(describeValue('# nginx\n\nHardened.\n')).toBe('"# nginx"… (3 lines)');
    expect(describeValue(['repo.list', 'tag.create'])).toBe('[repo.list, tag.create]');
    expect(describeValue({ issuer: 'https://i', subject: 's' })).toBe('{issuer: https://i, subject: s}');
    expect(describeValue('y'.repeat(100))).toHaveLength(62);
  });
});

describe('drift renderers', () => {
  it('text: headings per category, fields, locations, and no color unless asked', () => {
    const text = renderTextDrift(describeDrift(mixedPlan));
    expect(text).toContain(
      'Drift in org acme: live differs from the manifests — changed by hand, or not applied yet: 4 findings (1 differs from the manifests, 2 only live, 1 missing live).',
    );
    expect(text).toContain(
      'Live differs from the manifests — changed by hand, or not applied yet (1):\n  ~ repo:nginx  (declared at manifests/org.yaml:12:7)\n      description: live "Patched by hand", manifests "Hardened nginx"',
    );
    expect(text).toContain(
      'Exists live but not in the manifests — created by hand, or its removal not applied yet (2):',
    );
    expect(text).toContain(`  ? identity:intruder  (uid ${ORG}/0000000000000004)`);
    expect(text).toContain('In the manifests but missing live — deleted by hand, or not applied yet (1):');
    expect(text).toContain('and 1 resource beneath it: repo:ops/tools');
    expect(text).not.toContain('\x1b[');
    expect(renderTextDrift(describeDrift(mixedPlan), { color: true })).toContain('\x1b[33m~ repo:nginx\x1b[39m');
    expect(renderTextDrift(describeDrift(planOf([])))).toBe('No drift: org acme matches the manifests.\n');
  });

  it('text: names a few resources beneath a finding, then counts the rest', () => {
    const children = Array.from(
      { length: 7 },
      (_, i): PlanStep => ({
        action: 'create',
        kind: 'repo',
        address: `repo:ops/r${i}`,
        parent: 'group:ops',
        after: { name: `r${i}` },
      }),
    );
    const text = renderTextDrift(
      describeDrift(
        planOf([
          { action: 'create', kind: 'group', address: 'group:ops', parent: 'org', after: { name: 'ops' } },
          ...children,
        ]),
      ),
    );
    expect(text).toContain(
      'and 7 resources beneath it: repo:ops/r0, repo:ops/r1, repo:ops/r2, repo:ops/r3, repo:ops/r4, and 2 more',
    );
  });

  it('json: the report itself, versioned', () => {
    const parsed = JSON.parse(renderJsonDrift(describeDrift(mixedPlan)));
    expect(parsed.formatVersion).toBe(1);
    expect(parsed.inSync).toBe(false);
    expect(parsed.summary).toEqual({ changed: 1, unmanaged: 2, missing: 1 });
    expect(parsed.items[0].address).toBe('repo:nginx');
  });

  it('markdown: a table of edits, lists of the rest, the restoring plan folded, cells escaped', () => {
    const plan = planOf([
      {
        action: 'update',
        kind: 'repo',
        address: 'repo:nginx',
        uid: 'u',
        parent: 'org',
        before: { description: 'a | b' },
        after: { description: 'c' },
        updateMask: ['description'],
      },
      {
        action: 'delete',
        kind: 'identity',
        address: 'identity:intruder',
        uid: 'u2',
        parent: 'org',
        before: { name: 'intruder' },
      },
    ]);
    const md = renderMarkdownDrift(describeDrift(plan), { planMarkdown: '#### Plan\n- delete identity:intruder\n' });
    expect(md).toContain('### platform-sync drift: org `acme`');
    expect(md).toContain('| `repo:nginx` | description | "a \\| b" | "c" |');
    expect(md).toContain('- `identity:intruder` (uid `u2`)');
    expect(md).toContain(
      '<details><summary>The plan that would restore the manifests</summary>\n\n#### Plan\n- delete identity:intruder\n\n</details>',
    );
    const hostile = planOf([
      {
        action: 'update',
        kind: 'repo',
        address: 'repo:nginx',
        uid: 'u',
        parent: 'org',
        before: { description: 'a | b `c` <b>bold</b> & </details>' },
        after: { description: 'x' },
        updateMask: ['description'],
      },
    ]);
    const escaped = renderMarkdownDrift(describeDrift(hostile));
    expect(escaped).toContain(
      '| `repo:nginx` | description | "a \\| b \\`c\\` &lt;b&gt;bold&lt;/b&gt; &amp; &lt;/details&gt;" | "x" |',
    );
    expect(escaped).not.toMatch(/<\/?(b|details)>/);
    const inSync = renderMarkdownDrift(describeDrift(planOf([])), { planMarkdown: 'x' });
    expect(inSync).toContain('No drift: org acme matches the manifests.');
    expect(inSync).not.toContain('<details>');
  });
});

describe('renderMarkdownDriftFailure', () => {
  it('says the check failed and why: the first line, then every further line in a block, HTML escaped', () => {
    expect(renderMarkdownDriftFailure('cannot reach http://127.0.0.1:9 <ECONNREFUSED>')).toBe(
      // The URL is not linked (a zero-width space after its scheme): the reason is untrusted text.
      '### platform-sync drift check failed\n\ndrift check failed: cannot reach http:&#8203;//127.0.0.1:9 &lt;ECONNREFUSED&gt;\n',
    );
    expect(renderMarkdownDriftFailure('2 problems in the manifests:\na.yaml:1:1: <bad>\nb.yaml:2:3: worse\n')).toBe(
      '### platform-sync drift check failed\n\ndrift check failed: 2 problems in the manifests:\n\n<pre>\na.yaml:1:1: &lt;bad&gt;\nb.yaml:2:3: worse\n</pre>\n',
    );
  });
});

describe("drift of a binding's role and of a readme", () => {
  const binding: PlanStep = {
    action: 'update',
    kind: 'roleBinding',
    address: 'roleBinding:ci=viewer',
    uid: `${ORG}/0000000000000009`,
    parent: 'org',
    before: { roleUid: 'e'.repeat(40) },
    after: { roleUid: 'v'.repeat(40) },
    updateMask: ['roleUid'],
    refs: { roleUid: { address: 'role:builtin:viewer', uid: 'v'.repeat(40) } },
    source,
  };
  const readme: PlanStep = {
    action: 'update',
    kind: 'repo',
    address: 'repo:nginx',
    uid: `${ORG}/0000000000000001`,
    parent: 'org',
    before: { readme: '# nginx\n\nOld text.\n' },
    after: { readme: '# nginx\n\nNew text.\n' },
    updateMask: ['readme'],
    source,
  };

  it('names the roles a binding points at, not their uids, when live state knows them', () => {
    const known = describeDrift(planOf([binding]), {
      addressOfUid: (uid) => (uid === 'e'.repeat(40) ? 'role:builtin:editor' : undefined),
    });
    expect(known.items[0]!.fields).toEqual([
      {
        field: 'roleUid',
        live: 'e'.repeat(40),
        manifest: 'v'.repeat(40),
        liveRef: 'built-in role editor',
        manifestRef: 'built-in role viewer',
      },
    ]);
    expect(known.items[0]!.message).toBe(
      'live differs from the manifests (changed by hand, or not applied yet): roleUid is built-in role editor live, the manifests say built-in role viewer',
    );
    expect(renderTextDrift(known)).toContain(
      '      roleUid: live built-in role editor, manifests built-in role viewer\n',
    );
    expect(renderMarkdownDrift(known)).toContain(
      '| `roleBinding:ci=viewer` | roleUid | built-in role editor | built-in role viewer |',
    );
    // Without a lookup the uid is all there is to show.
    expect(renderTextDrift(describeDrift(planOf([binding])))).toContain(
      `roleUid: live "${'e'.repeat(40)}", manifests built-in role viewer`,
    );
  });

  it('shows how a readme was edited as a diff from live to the manifests', () => {
    const text = renderTextDrift(describeDrift(planOf([readme])));
    expect(text).toContain(
      [
        '      readme: live "# nginx"… (3 lines), manifests "# nginx"… (3 lines)',
        '        --- live',
        '        +++ manifests',
        '        @@ -1,3 +1,3 @@',
        '         # nginx',
        '         ',
        '        -Old text.',
        '        +New text.',
      ].join('\n'),
    );
  });
});
