/**
 * Resolution of manifests into a DesiredState: the acme example, references, merging across
 * files and documents, settings, and reporting every problem of a file set in one run.
 */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadManifests, validateManifestTexts, validateManifests } from '../../src/manifest/index.js';
import { ManifestError, formatDiagnostic } from '../../src/model/errors.js';
import type { DesiredResource, DesiredState } from '../../src/model/resources.js';

const HEAD = 'apiVersion: platform-sync/v1\n';

function byAddress(state: DesiredState): Map<string, DesiredResource> {
  return new Map(state.resources.map((r) => [r.address, r]));
}

function validateOne(text: string) {
  return validateManifestTexts([{ file: 'm.yaml', text: HEAD + text }]);
}

describe('examples/acme', () => {
  let state: DesiredState;
  beforeAll(async () => {
    state = await loadManifests(['examples/acme']);
  });

  it('reads the three files, sorted, as one org with a realistic number of resources', () => {
    expect(state.files).toEqual([
      'examples/acme/engineering.yaml',
      'examples/acme/org.yaml',
      'examples/acme/security.yaml',
    ]);
    expect(state.org).toEqual({ name: 'acme', source: { file: 'examples/acme/org.yaml', line: 7, column: 3 } });
    expect(state.resources.length).toBeGreaterThanOrEqual(25);
    expect(state.resources.length).toBeLessThanOrEqual(50);
    expect(new Set(state.resources.map((r) => r.address)).size).toBe(state.resources.length);
    expect(state.settings).toEqual({
      prune: true,
      ignore: ['identity:engineering/human-*'],
      protect: ['identity:release-bot'],
    });
  });

  it('has the org root and three levels of groups, each pointing at its parent', () => {
    const r = byAddress(state);
    expect(r.get('org')).toMatchObject({
      kind: 'group',
      groupPath: '',
      parentAddress: null,
      fields: { name: 'acme', description: 'Acme Corp' },
    });
    expect(r.get('group:engineering')).toMatchObject({
      groupPath: 'engineering',
      parentAddress: 'org',
      // description from org.yaml, lists from engineering.yaml: the group points at where it is described
      fields: { name: 'engineering', description: 'Product engineering' },
      source: { file: 'examples/acme/org.yaml' },
    });
    expect(r.get('group:engineering/platform')).toMatchObject({ parentAddress: 'group:engineering' });
    expect(r.get('group:engineering/platform/edge')).toMatchObject({
      parentAddress: 'group:engineering/platform',
      groupPath: 'engineering/platform/edge',
    });
  });

  it('resolves references: siblings, root paths, custom roles found by walking up, built-ins', () => {
    const r = byAddress(state);
    const binding = (address: string) => {
      const b = r.get(address);
      expect(b, address).toBeDefined();
      return b!.kind === 'roleBinding' ? b!.fields : undefined;
    };
    expect(binding('roleBinding:release-bot=release-manager')).toEqual({
      identity: { path: 'release-bot' },
      role: { path: 'release-manager' },
    });
    expect(binding('roleBinding:engineering//release-bot=viewer')).toEqual({
      identity: { path: 'release-bot' },
      role: { builtin: 'viewer' },
    });
    expect(binding('roleBinding:engineering/platform/deploy-bot=/release-manager')).toEqual({
      identity: { path: 'engineering/platform/deploy-bot' },
      role: { path: 'release-manager' },
    });
    expect(binding('roleBinding:engineering/platform/edge/edge-deployer=/engineering/platform/deployer')).toEqual({
      identity: { path: 'engineering/platform/edge/edge-deployer' },
      role: { path: 'engineering/platform/deployer' },
    });
    expect(binding('roleBinding:engineering/platform//engineering/ci-bot=registry.push')).toEqual({
      identity: { path: 'engineering/ci-bot' },
      role: { builtin: 'registry.push' },
    });
    // Every binding of the example, addressed as a reader would write it: a sibling by bare
    // name, anything else by /path from the root, a built-in role by name.
    expect(
      state.resources
        .filter((b) => b.kind === 'roleBinding')
        .map((b) => b.address)
        .sort(),
    ).toEqual([
      'roleBinding:engineering//release-bot=viewer',
      'roleBinding:engineering/backend/api-ci=editor',
      'roleBinding:engineering/ci-bot=registry.pull',
      'roleBinding:engineering/platform//engineering/ci-bot=registry.push',
      'roleBinding:engineering/platform/deploy-bot=/release-manager',
      'roleBinding:engineering/platform/deploy-bot=deployer',
      'roleBinding:engineering/platform/edge/edge-deployer=/engineering/platform/deployer',
      'roleBinding:release-bot=registry.push',
      'roleBinding:release-bot=release-manager',
      'roleBinding:security/scanner=auditor',
      'roleBinding:security/scanner=registry.pull',
    ]);
  });

  it('keeps fields as written and where they came from', () => {
    const r = byAddress(state);
    expect(r.get('identity:release-bot')).toMatchObject({
      parentAddress: 'org',
      fields: {
        claimMatch: {
          issuer: 'https://token.actions.githubusercontent.com',
          subject: 'repo:acme/app:ref:refs/heads/main',
        },
      },
      source: { file: 'examples/acme/org.yaml', line: 10, column: 7 },
    });
    const nginx = r.get('repo:engineering/platform/nginx');
    expect(nginx?.kind === 'repo' && nginx.fields.readme).toMatch(/^# nginx\n\nHardened nginx/);
    expect(r.get('subscription:security/https://hooks.acme.dev/security/events')).toMatchObject({
      kind: 'subscription',
      groupPath: 'security',
    });
    expect(r.get('role:release-manager')).toMatchObject({
      fields: { capabilities: ['repo.list', 'tag.list', 'tag.create', 'tag.delete'] },
    });
  });
});

describe('good fixtures', () => {
  it('merges documents of one file, keeps empty descriptions, maps prune keys to kinds', async () => {
    const state = await loadManifests(['test/fixtures/good-multi-doc.yaml']);
    const r = byAddress(state);
    expect(r.get('org')?.fields).toEqual({ name: 'acme', description: '' });
    expect(r.get('roleBinding:engineering/platform/ci bot=/engineering/deployer')).toBeDefined();
    expect(state.settings).toEqual({
      prune: { roleBinding: false, repo: true },
      ignore: [],
      protect: ['repo:*', 'org'],
    });
  });

  it('passes uids through and pins the org', async () => {
    const state = await loadManifests(['test/fixtures/good-uid-refs.yaml']);
    const root = '0123456789abcdef0123456789abcdef01234567';
    expect(state.org.uid).toBe(root);
    expect(byAddress(state).get('org')?.uid).toBe(root);
    expect(state.resources.filter((r) => r.kind === 'roleBinding').map((r) => r.fields)).toEqual([
      { identity: { uid: `${root}/00000000000000aa` }, role: { builtin: 'viewer' } },
      { identity: { uid: `${root}/00000000000000aa` }, role: { uid: `${root}/00000000000000bb` } },
    ]);
  });

  it('leaves fields that are not written unmanaged (absent, not empty)', () => {
    const { state } = validateOne('org:\n  name: acme\n  repos:\n    - name: app\n');
    expect(byAddress(state!).get('repo:app')?.fields).toEqual({ name: 'app' });
    expect(byAddress(state!).get('org')?.fields).toEqual({ name: 'acme' });
  });
});

describe('references', () => {
  const org = (body: string) => `org:\n  name: acme\n${body}`;

  it('prefers the nearest custom role and falls back to built-ins', () => {
    const { state, diagnostics } = validateOne(
      org(`  roles:
    - {name: deployer, capabilities: [repo.list]}
  groups:
    - name: a
      roles:
        - {name: deployer, capabilities: [tag.list]}
      identities: [{name: bot}]
      roleBindings:
        - {identity: bot, role: deployer}
        - {identity: bot, role: owner}
        - {identity: bot, role: /deployer}
`),
    );
    expect(diagnostics).toEqual([]);
    const bindings = state!.resources.filter((r) => r.kind === 'roleBinding').map((r) => r.fields);
    expect(bindings).toEqual([
      { identity: { path: 'a/bot' }, role: { path: 'a/deployer' } },
      { identity: { path: 'a/bot' }, role: { builtin: 'owner' } },
      { identity: { path: 'a/bot' }, role: { path: 'deployer' } },
    ]);
  });

  it('treats two spellings of one binding as a duplicate', () => {
    const { diagnostics } = validateOne(
      org(`  identities: [{name: bot}]
  roleBindings:
    - {identity: bot, role: viewer}
    - {identity: /bot, role: viewer}
`),
    );
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml:7:7: role binding in org "acme" is declared twice (address roleBinding:bot=viewer); also declared at m.yaml:6:7 (at /org/roleBindings/1)',
    ]);
  });

  it('reports a binding with no role', () => {
    const { diagnostics } = validateOne(
      org(`  roleBindings:\n    - identityUid: ${'a'.repeat(40)}/${'b'.repeat(16)}\n`),
    );
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml:5:7: role binding in org "acme" has no role; expected role (a custom or built-in role name) or roleUid (at /org/roleBindings/0)',
    ]);
  });

  it('does not judge references when a file could not be read', () => {
    const result = validateManifestTexts([
      {
        file: 'a.yaml',
        text: `${HEAD}org:\n  name: acme\n  roleBindings:\n    - {identity: /eng/bot, role: viewer}\n`,
      },
      { file: 'b.yaml', text: `${HEAD}org:\n  name: acme\n  groups: [{name: eng, identities: [{name: bot}]\n` },
    ]);
    // Only the syntax errors: /eng/bot may well be declared in the part of b.yaml that could not be read.
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      'b.yaml:5:1: YAML syntax error: Flow map in block collection must be sufficiently indented and end with a }',
      'b.yaml:5:1: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ]);
  });
});

describe('reporting every problem in one run', () => {
  it('returns the diagnostics of every file and document together, in file order', async () => {
    const result = await validateManifests([
      'test/fixtures/bad-unknown-field.yaml',
      'test/fixtures/bad-syntax.yaml',
      'test/fixtures/bad-wrong-type.yaml',
      'test/fixtures/bad-empty-document.yaml',
      'test/fixtures/bad-http-sink.yaml',
    ]);
    expect(result.files).toEqual([
      'test/fixtures/bad-empty-document.yaml',
      'test/fixtures/bad-http-sink.yaml',
      'test/fixtures/bad-syntax.yaml',
      'test/fixtures/bad-unknown-field.yaml',
      'test/fixtures/bad-wrong-type.yaml',
    ]);
    expect(result.diagnostics.map((d) => `${d.location.file}:${d.location.line}:${d.location.column}`)).toEqual([
      'test/fixtures/bad-empty-document.yaml:4:1',
      'test/fixtures/bad-http-sink.yaml:5:13',
      'test/fixtures/bad-syntax.yaml:5:3',
      'test/fixtures/bad-unknown-field.yaml:6:7',
      'test/fixtures/bad-wrong-type.yaml:4:16',
      'test/fixtures/bad-wrong-type.yaml:7:21',
    ]);
  });

  it('reports schema and semantic problems of one document together', () => {
    const { diagnostics } = validateOne(`org:
  name: acme
  descripton: typo
  roles:
    - {name: viewer, capabilities: [repo.list]}
  roleBindings:
    - {identity: ghost, role: viewer}
settings:
  protect: ["nope"]
`);
    expect(diagnostics.map((d) => `${d.location.line}:${d.location.column} ${d.message.slice(0, 40)}`)).toEqual([
      '4:3 unknown field "descripton" in org "acme"',
      '6:14 custom role "viewer" in org "acme" has t',
      '8:18 unknown identity "ghost" in role binding',
      '10:13 invalid address glob "nope" in settings.',
    ]);
  });

  it('a member: glob in ignore or protect is refused with what to name instead (a members line is no live resource)', () => {
    const { diagnostics } = validateOne(`org:
  name: acme
settings:
  ignore: ["member:eng/*"]
  protect: ["member:*"]
`);
    expect(diagnostics.map((d) => `${d.location.line}:${d.location.column} ${d.message}`)).toEqual([
      `5:12 address glob "member:eng/*" in settings.ignore names members lines, which are not live resources; to leave a person's access alone, name their role binding (roleBinding:<group path>/<identity>=<role>) or identity`,
      `6:13 address glob "member:*" in settings.protect names members lines, which are not live resources; to keep a person's access, name their role binding (roleBinding:<group path>/<identity>=<role>) or identity`,
    ]);
  });

  it('loadManifests throws one ManifestError carrying every diagnostic', async () => {
    const err = await loadManifests([
      'test/fixtures/bad-duplicate-a.yaml',
      'test/fixtures/bad-duplicate-b.yaml',
      'test/fixtures/bad-name.yaml',
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManifestError);
    const diagnostics = (err as ManifestError).diagnostics;
    // bad-name.yaml declares org acme too, so its repo-less document merges; the two problems remain.
    expect(diagnostics.map((d) => d.location.file)).toEqual([
      'test/fixtures/bad-duplicate-b.yaml',
      'test/fixtures/bad-name.yaml',
    ]);
    expect((err as ManifestError).message).toMatch(/^2 problems in the manifests:\n/);
  });
});

describe('settings across documents', () => {
  it('joins ignore/protect lists and accepts prune given twice alike', () => {
    const doc = (settings: string) => `${HEAD}org:\n  name: acme\nsettings:\n${settings}`;
    const { state, diagnostics } = validateManifestTexts([
      { file: 'a.yaml', text: doc('  prune: {repos: false}\n  protect: ["repo:*"]\n') },
      {
        file: 'b.yaml',
        text: doc('  prune: {repos: false}\n  protect: ["repo:*", "identity:ci-*"]\n  ignore: ["tag:*"]\n'),
      },
    ]);
    expect(diagnostics).toEqual([]);
    expect(state!.settings).toEqual({
      prune: { repo: false },
      ignore: ['tag:*'],
      protect: ['repo:*', 'identity:ci-*'],
    });
  });

  it('refuses prune set differently in two files, naming both', () => {
    const { diagnostics } = validateManifestTexts([
      { file: 'a.yaml', text: `${HEAD}org: {name: acme}\nsettings: {prune: true}\n` },
      { file: 'b.yaml', text: `${HEAD}org: {name: acme}\nsettings: {prune: false}\n` },
    ]);
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'b.yaml:3:19: conflicting settings.prune: false here, but true at a.yaml:3:19; set it in one place only, or to the same value (at /settings/prune)',
    ]);
  });

  it('quotes a conflicting prune mapping as the file writes it, keys and invalid keys included', () => {
    const { diagnostics } = validateManifestTexts([
      { file: 'a.yaml', text: `${HEAD}org: {name: acme}\nsettings: {prune: {widgets: true}}\n` },
      { file: 'b.yaml', text: `${HEAD}org: {name: acme}\nsettings: {prune: false}\n` },
      { file: 'c.yaml', text: `${HEAD}org: {name: acme}\nsettings: {prune: {roleBindings: false}}\n` },
    ]);
    const conflicts = diagnostics.map(formatDiagnostic).filter((d) => d.includes('conflicting'));
    expect(conflicts).toEqual([
      'b.yaml:3:19: conflicting settings.prune: false here, but {"widgets":true} at a.yaml:3:19; set it in one place only, or to the same value (at /settings/prune)',
      'c.yaml:3:19: conflicting settings.prune: {"roleBindings":false} here, but {"widgets":true} at a.yaml:3:19; set it in one place only, or to the same value (at /settings/prune)',
    ]);
  });
});

describe('file handling', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ps-manifest-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a file over the size limit without reading it, naming size and limit', async () => {
    const big = join(dir, 'big.yaml');
    const text = `${HEAD}org:\n  name: acme\n  description: "${'x'.repeat(1024 * 1024)}"\n`;
    await writeFile(big, text);
    const bytes = Buffer.byteLength(text);
    const result = await validateManifests([big]);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      `${big}: file is 1 MiB (${bytes} bytes), over the limit of 1 MiB (1048576 bytes); split it into several manifest files`,
    ]);
    const small = await validateManifests([big], { maxFileBytes: 2 * 1024 * 1024 });
    expect(small.diagnostics).toEqual([]);
  });

  it('applies the same limit to in-memory texts', () => {
    const { diagnostics } = validateManifestTexts([{ file: 'm.yaml', text: `${HEAD}org: {name: acme}\n` }], {
      maxFileBytes: 10,
    });
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml: file is 47 bytes, over the limit of 10 bytes; split it into several manifest files',
    ]);
  });

  it('reads directories recursively (.yaml and .yml, hidden entries skipped), sorted, each file once', async () => {
    const root = join(dir, 'tree');
    await mkdir(join(root, 'teams', 'deep'), { recursive: true });
    await mkdir(join(root, '.git'), { recursive: true });
    await writeFile(join(root, 'org.yaml'), `${HEAD}org: {name: acme}\n`);
    await writeFile(join(root, 'teams', 'b.yml'), `${HEAD}org: {name: acme, groups: [{name: b}]}\n`);
    await writeFile(join(root, 'teams', 'deep', 'a.yaml'), `${HEAD}org: {name: acme, groups: [{name: a}]}\n`);
    await writeFile(join(root, 'teams', 'notes.md'), 'not a manifest');
    await writeFile(join(root, '.git', 'x.yaml'), 'not: read');
    const result = await validateManifests([root, join(root, 'org.yaml')]);
    expect(result.diagnostics).toEqual([]);
    expect(result.files).toEqual([
      join(root, 'org.yaml'),
      join(root, 'teams', 'b.yml'),
      join(root, 'teams', 'deep', 'a.yaml'),
    ]);
    expect(result.state!.resources.map((r) => r.address)).toEqual(['org', 'group:b', 'group:a']);
  });

  it('reports missing paths and directories without manifests', async () => {
    await mkdir(join(dir, 'empty-dir'));
    const result = await validateManifests([join(dir, 'nope.yaml'), join(dir, 'empty-dir')]);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      `${join(dir, 'empty-dir')}: no .yaml or .yml files in this directory; expected manifest files`,
      `${join(dir, 'nope.yaml')}: cannot read: no such file or directory`,
    ]);
    expect(result.state).toBeUndefined();
  });
});

describe('YAML details', () => {
  it('accepts a few honest aliases', () => {
    const { state, diagnostics } = validateOne(
      'org:\n  name: acme\n  description: &d Shared text\n  repos:\n    - {name: a, description: *d}\n',
    );
    expect(diagnostics).toEqual([]);
    expect(byAddress(state!).get('repo:a')?.fields).toEqual({ name: 'a', description: 'Shared text' });
  });

  it('refuses constructor and prototype keys too', () => {
    const { diagnostics } = validateOne('org:\n  name: acme\n  constructor: x\n  repos: [{name: a, prototype: y}]\n');
    expect(diagnostics.map((d) => `${d.location.line}:${d.location.column} ${d.message.slice(0, 24)}`)).toEqual([
      '4:3 key "constructor" is not',
      '5:21 key "prototype" is not a',
    ]);
  });

  it('points a missing field at the mapping that lacks it and an empty value at its key', () => {
    const { diagnostics } = validateOne('org:\n  name: acme\n  subscriptions:\n    - {}\n  description:\n');
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml:5:7: missing required field "sink" in subscription 1 of org "acme"; expected sink: https URL that receives the events (at /org/subscriptions/0)',
      'm.yaml:6:3: description of org "acme" must be a string, got nothing (an empty value) (at /org/description)',
    ]);
  });
});

describe('field checks beyond the schema', () => {
  it('wants claimMatch.issuer to be a URL and capabilities listed once', () => {
    const { diagnostics } = validateOne(`org:
  name: acme
  identities:
    - name: bot
      claimMatch: {issuer: github, subject: "repo:acme/app:ref:refs/heads/main"}
  roles:
    - {name: r, capabilities: [repo.list, repo.list]}
`);
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml:6:28: claimMatch.issuer "github" is not an https URL; expected the token issuer, e.g. https://token.actions.githubusercontent.com (identity "bot") (at /org/identities/0/claimMatch/issuer)',
      'm.yaml:8:43: "repo.list" is listed twice in capabilities of role "r"; list each value once (at /org/roles/0/capabilities/1)',
    ]);
  });

  it('wants a sink that is a whole https URL', () => {
    const { diagnostics } = validateOne('org:\n  name: acme\n  subscriptions: [{sink: "https://"}]\n');
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml:4:26: sink "https://" of a subscription in org "acme" is not a valid URL; expected https://<host>/<path> (at /org/subscriptions/0/sink)',
    ]);
  });
});

describe('renamedFrom', () => {
  it('is kept on groups, identities, roles and repos, and names every repo address a managed readme may be at', async () => {
    const { state, diagnostics } = validateOne(
      [
        'org:',
        '  name: acme',
        '  groups:',
        '    - name: services',
        '      renamedFrom: backend',
        '      identities: [{name: ci-bot, renamedFrom: ci}]',
        '      roles: [{name: deployer, renamedFrom: pusher, capabilities: [repo.list]}]',
        '      repos: [{name: api, renamedFrom: app, readme: "# api"}]',
        '',
      ].join('\n'),
    );
    expect(diagnostics).toEqual([]);
    const r = byAddress(state!);
    expect(r.get('group:services')!.renamedFrom).toBe('backend');
    expect(r.get('identity:services/ci-bot')!.renamedFrom).toBe('ci');
    expect(r.get('role:services/deployer')!.renamedFrom).toBe('pusher');
    expect(r.get('repo:services/api')!.renamedFrom).toBe('app');
    const { managedSubResources } = await import('../../src/pipeline.js');
    expect([...managedSubResources(state!)].sort()).toEqual([
      'repo:backend/api',
      'repo:backend/app',
      'repo:services/api',
      'repo:services/app',
    ]);
  });

  it('refuses its own name, and two siblings taking over one old name', () => {
    const { diagnostics } = validateOne(
      [
        'org:',
        '  name: acme',
        '  identities:',
        '    - {name: bot, renamedFrom: bot}',
        '    - {name: a, renamedFrom: old}',
        '    - {name: b, renamedFrom: old}',
        '',
      ].join('\n'),
    );
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      'm.yaml:5:32: renamedFrom "bot" of identity "bot" in org "acme" is its own name; expected the previous name, or remove renamedFrom (at /org/identities/0/renamedFrom)',
      'm.yaml:7:30: identity "b" in org "acme" and identity "a" in org "acme" (at m.yaml:6:30) are both renamedFrom "old"; expected one identity to take over the old name (at /org/identities/2/renamedFrom)',
    ]);
  });
});
