/** Manifest loading: file handling, YAML details, field checks beyond the schema, renamedFrom (the rest: manifest-resolve.test.ts). */
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateManifestTexts, validateManifests } from '../../src/manifest/index.js';
import { formatDiagnostic } from '../../src/model/errors.js';
import type { DesiredResource, DesiredState } from '../../src/model/resources.js';

const HEAD = 'apiVersion: platform-sync/v1\n';

function byAddress(state: DesiredState): Map<string, DesiredResource> {
  return new Map(state.resources.map((r) => [r.address, r]));
}

function validateOne(text: string) {
  return validateManifestTexts([{ file: 'm.yaml', text: HEAD + text }]);
}

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

  it('a file over the limit is unknown, not empty: a reference into it is not called unknown', () => {
    const padding = `# ${'x'.repeat(300)}\n`;
    const { diagnostics } = validateManifestTexts(
      [
        { file: 'a.yaml', text: `${HEAD}org:\n  name: acme\n  identities:\n    - name: bot\n${padding}` },
        { file: 'b.yaml', text: `${HEAD}org:\n  name: acme\n  roleBindings:\n    - {identity: bot, role: viewer}\n` },
      ],
      { maxFileBytes: 200 },
    );
    expect(diagnostics.map(formatDiagnostic)).toEqual([
      expect.stringMatching(/^a\.yaml: file is .*, over the limit of 200 bytes/),
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
