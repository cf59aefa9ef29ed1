import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { exportManifests, fileNameForGroup, ORG_FILE } from '../../src/export/export-manifests.js';
import {
  groupAddress,
  joinPath,
  namedAddress,
  parentPath,
  roleBindingAddress,
  tagAddress,
  type IdentityKey,
  type RoleKey,
} from '../../src/model/address.js';
import { UserError } from '../../src/model/errors.js';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { plan } from '../../src/plan/index.js';
import type { LiveResource, LiveState } from '../../src/model/resources.js';

const ORG_UID = 'a'.repeat(40);
const VIEWER_UID = 'b'.repeat(40);
const PUSH_UID = 'c'.repeat(40);

/** Builds a LiveState by hand, uids derived from addresses so tests read by name. */
function liveOrg(name = 'acme'): {
  state: LiveState;
  uidOf: (groupPath: string) => string;
  add: (r: Omit<LiveResource, 'uid' | 'parentUid'>) => void;
} {
  const uids = new Map<string, string>([['', ORG_UID]]);
  let n = 0;
  const state: LiveState = {
    org: { uid: ORG_UID, name },
    resources: [
      {
        kind: 'group',
        address: 'org',
        groupPath: '',
        parentAddress: null,
        uid: ORG_UID,
        parentUid: null,
        fields: { name, description: 'Acme Corp' },
      },
    ],
    incomplete: [],
    ambiguities: [],
    builtinRoles: { viewer: VIEWER_UID, 'registry.push': PUSH_UID },
  };
  const uidOf = (groupPath: string): string => {
    const uid = uids.get(groupPath);
    if (!uid) throw new Error(`no group ${groupPath}`);
    return uid;
  };
  const add = (r: Omit<LiveResource, 'uid' | 'parentUid'>): void => {
    const owner = r.kind === 'group' ? parentPath(r.groupPath) : r.groupPath;
    const parentUid = uidOf(owner);
    const uid = `${parentUid}/${(++n).toString(16).padStart(16, '0')}`;
    if (r.kind === 'group') uids.set(r.groupPath, uid);
    state.resources.push({ ...r, uid, parentUid } as LiveResource);
  };
  return { state, uidOf, add };
}

function group(path: string, description?: string): Omit<LiveResource, 'uid' | 'parentUid'> {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return {
    kind: 'group',
    address: groupAddress(path),
    groupPath: path,
    parentAddress: groupAddress(parentPath(path)),
    fields: description === undefined ? { name } : { name, description },
  };
}
function named<K extends 'identity' | 'role' | 'repo'>(
  kind: K,
  groupPath: string,
  fields: Record<string, unknown> & { name: string },
): Omit<LiveResource, 'uid' | 'parentUid'> {
  return {
    kind,
    address: namedAddress(kind, groupPath, fields.name),
    groupPath,
    parentAddress: groupAddress(groupPath),
    fields,
  } as Omit<LiveResource, 'uid' | 'parentUid'>;
}
function binding(groupPath: string, identity: IdentityKey, role: RoleKey): Omit<LiveResource, 'uid' | 'parentUid'> {
  return {
    kind: 'roleBinding',
    address: roleBindingAddress(groupPath, identity, role),
    groupPath,
    parentAddress: groupAddress(groupPath),
    fields: { identity, role },
  };
}

function fileText(files: { file: string; text: string }[], name: string): string {
  const f = files.find((x) => x.file === name);
  if (!f) throw new Error(`no file ${name} among ${files.map((x) => x.file).join(', ')}`);
  return f.text;
}

describe('exportManifests', () => {
  it('writes org.yaml with the org uid pinned (and says why), its own lists and the settings', () => {
    const { state, add } = liveOrg();
    add(
      named('identity', '', {
        name: 'release-bot',
        description: 'GitHub release workflow',
        claimMatch: {
          issuer: 'https://token.actions.githubusercontent.com',
          subject: 'repo:acme/app:ref:refs/heads/main',
        },
      }),
    );
    add(named('role', '', { name: 'release-manager', description: '', capabilities: ['repo.list', 'tag.create'] }));
    add(binding('', { path: 'release-bot' }, { builtin: 'registry.push' }));
    add(named('repo', '', { name: 'nginx', description: 'Hardened nginx', readme: '# nginx\n\nHardened.\n' }));
    add({
      kind: 'subscription',
      address: namedAddress('subscription', '', 'https://hooks.acme.dev/platform'),
      groupPath: '',
      parentAddress: 'org',
      fields: { sink: 'https://hooks.acme.dev/platform' },
    });

    const files = exportManifests(state, { schemaRef: '../schemas/manifest.schema.json' });
    expect(files.map((f) => f.file)).toEqual([ORG_FILE]);
    const text = fileText(files, ORG_FILE);
    expect(text.startsWith('# yaml-language-server: $schema=../schemas/manifest.schema.json\n')).toBe(true);
    expect(text).toMatch(new RegExp(`uid: ${ORG_UID} # pinned: .*another root group is named "acme"`));
    expect(text).toContain(
      'claimMatch: { issuer: https://token.actions.githubusercontent.com, subject: repo:acme/app:ref:refs/heads/main }',
    );
    expect(text).toContain('capabilities: [ repo.list, tag.create ]');
    expect(text).toContain('readme: |\n        # nginx\n\n        Hardened.\n');

    expect(parse(text)).toEqual({
      apiVersion: 'platform-sync/v1',
      org: {
        name: 'acme',
        uid: ORG_UID,
        description: 'Acme Corp',
        identities: [
          {
            name: 'release-bot',
            description: 'GitHub release workflow',
            claimMatch: {
              issuer: 'https://token.actions.githubusercontent.com',
              subject: 'repo:acme/app:ref:refs/heads/main',
            },
          },
        ],
        roles: [{ name: 'release-manager', description: '', capabilities: ['repo.list', 'tag.create'] }],
        roleBindings: [{ identity: 'release-bot', role: 'registry.push' }],
        repos: [{ name: 'nginx', description: 'Hardened nginx', readme: '# nginx\n\nHardened.\n' }],
        subscriptions: [{ sink: 'https://hooks.acme.dev/platform' }],
      },
      settings: { prune: true, ignore: [], protect: [] },
    });
  });

  it('writes one file per top-level group, nested groups inside, sorted by name', () => {
    const { state, add } = liveOrg();
    add(group('ops', 'Operations'));
    add(group('engineering', 'Engineering'));
    add(group('engineering/platform', ''));
    add(group('engineering/apps'));
    add(named('repo', 'engineering/platform', { name: 'zeta', description: '' }));
    add(named('repo', 'engineering/platform', { name: 'alpha', description: '' }));

    const files = exportManifests(state);
    expect(files.map((f) => f.file)).toEqual([ORG_FILE, 'engineering.yaml', 'ops.yaml']);
    const eng = parse(fileText(files, 'engineering.yaml'));
    expect(eng).toEqual({
      apiVersion: 'platform-sync/v1',
      org: {
        name: 'acme',
        groups: [
          {
            name: 'engineering',
            description: 'Engineering',
            groups: [
              { name: 'apps' },
              {
                name: 'platform',
                description: '',
                repos: [
                  { name: 'alpha', description: '' },
                  { name: 'zeta', description: '' },
                ],
              },
            ],
          },
        ],
      },
    });
    // Only org.yaml pins the uid and carries settings: one place to change them.
    expect(eng.org.uid).toBeUndefined();
    expect(eng.settings).toBeUndefined();
    expect(parse(fileText(files, ORG_FILE)).org.groups).toBeUndefined();
  });

  it('writes binding references as siblings, /paths from the root, or uids with a comment', () => {
    const { state, add } = liveOrg();
    add(named('identity', '', { name: 'release-bot', description: '' }));
    add(named('role', '', { name: 'deployer', description: '', capabilities: ['repo.list'] }));
    add(group('engineering'));
    add(named('identity', 'engineering', { name: 'ci-bot', description: '' }));
    add(named('role', 'engineering', { name: 'builder', description: '', capabilities: ['tag.create'] }));
    add(binding('engineering', { path: 'engineering/ci-bot' }, { path: 'engineering/builder' }));
    add(binding('engineering', { path: 'release-bot' }, { path: 'deployer' }));
    add(binding('engineering', { uid: 'f'.repeat(40) + '/0000000000000001' }, { builtin: 'viewer' }));
    add(binding('engineering', { path: 'engineering/ci-bot' }, { uid: 'e'.repeat(40) }));

    const files = exportManifests(state);
    const text = fileText(files, 'engineering.yaml');
    expect(parse(text).org.groups[0].roleBindings).toEqual([
      { identity: '/release-bot', role: '/deployer' },
      { identity: 'ci-bot', role: 'builder' },
      { identity: 'ci-bot', roleUid: 'e'.repeat(40) },
      { identityUid: 'f'.repeat(40) + '/0000000000000001', role: 'viewer' },
    ]);
    expect(text).toMatch(/identityUid: f{40}\/0000000000000001 # an identity outside this org/);
    expect(text).toMatch(/roleUid: e{40} # a custom role outside this org/);
  });

  it('refuses custom roles named like built-ins, which manifests cannot describe', () => {
    const { state, add } = liveOrg();
    add(group('x'));
    add(named('role', 'x', { name: 'viewer', description: '', capabilities: ['repo.list'] }));
    expect(() => exportManifests(state)).toThrow(/custom roles named like built-in roles[\s\S]*role:x\/viewer/);
  });

  it('leaves tags out and keeps fields the API did not return out too', () => {
    const { state, add, uidOf } = liveOrg();
    add(named('repo', '', { name: 'nginx', description: 'x' }));
    const repo = state.resources.at(-1)!;
    state.resources.push({
      kind: 'tag',
      address: tagAddress('nginx', '1.0'),
      groupPath: '',
      parentAddress: 'repo:nginx',
      uid: `${repo.uid}/0000000000000099`,
      parentUid: repo.uid,
      fields: { name: '1.0', digest: 'sha256:' + '0'.repeat(64), deprecated: false },
    });
    expect(uidOf('')).toBe(ORG_UID);
    const text = fileText(exportManifests(state), ORG_FILE);
    expect(parse(text).org.repos).toEqual([{ name: 'nginx', description: 'x' }]);
    expect(text).not.toContain('1.0');
  });

  it('quotes names YAML would read as other types, and keeps odd readmes exact', () => {
    const { state, add } = liveOrg();
    add(named('repo', '', { name: '1.10', description: 'yes', readme: '  indented first line\nno trailing newline' }));
    add(named('repo', '', { name: 'null', description: '#not a comment', readme: '' }));
    const org = parse(fileText(exportManifests(state), ORG_FILE)).org;
    expect(org.repos).toEqual([
      { name: '1.10', description: 'yes', readme: '  indented first line\nno trailing newline' },
      { name: 'null', description: '#not a comment', readme: '' },
    ]);
  });

  it('is deterministic whatever order the API listed resources in', () => {
    const { state, add } = liveOrg();
    add(group('b'));
    add(group('a'));
    add(named('identity', 'a', { name: 'y', description: '' }));
    add(named('identity', 'a', { name: 'x', description: '' }));
    const reversed: LiveState = { ...state, resources: [...state.resources].reverse() };
    expect(exportManifests(reversed)).toEqual(exportManifests(state));
  });

  it('refuses ambiguous, incomplete or missing live state with the reason', () => {
    const { state } = liveOrg();
    expect(() => exportManifests({ ...state, org: null, resources: [] })).toThrow(/no org to export/);
    const ambiguous = { ...state, ambiguities: [{ address: 'repo:nginx', uids: ['u1', 'u2'] }] };
    expect(() => exportManifests(ambiguous)).toThrow(UserError);
    expect(() => exportManifests(ambiguous)).toThrow(/repo:nginx: uids u1, u2/);
    expect(() => exportManifests({ ...state, incomplete: [{ kind: 'repo', reason: 'cursor restarted' }] })).toThrow(
      /repo: cursor restarted/,
    );
  });
});

describe('fileNameForGroup', () => {
  it('makes group names safe as file names and unique', () => {
    expect(fileNameForGroup('engineering', new Set())).toBe('engineering.yaml');
    expect(fileNameForGroup('data science', new Set())).toBe('data_science.yaml');
    expect(fileNameForGroup('.hidden', new Set())).toBe('_hidden.yaml');
    expect(fileNameForGroup('org', new Set([ORG_FILE]))).toBe('org-2.yaml');
    expect(fileNameForGroup('a b', new Set(['a_b.yaml', 'a_b-2.yaml']))).toBe('a_b-3.yaml');
    // What a hostile server might call a group never leaves the directory or hides a file.
    expect(fileNameForGroup('../../etc/cron.d/x', new Set())).toBe('_._.._etc_cron.d_x.yaml');
    expect(fileNameForGroup('A\u001b[2J', new Set())).toBe('___2_.yaml');
    expect(joinPath('', 'x')).toBe('x');
  });
});

/** Export, load the files back as manifests, plan against the same live state: nothing to do. */
function planExport(state: LiveState) {
  const files = exportManifests(state);
  const result = validateManifestTexts(files.map((f) => ({ file: `export/${f.file}`, text: f.text })));
  expect(result.diagnostics.map((d) => `${d.location.file}:${d.location.line}: ${d.message}`)).toEqual([]);
  return plan(result.state!, state);
}

describe('export round trip', () => {
  it('plans to zero steps for an org with every kind and every form of reference', () => {
    const { state, add } = liveOrg();
    add(
      named('identity', '', {
        name: 'release-bot',
        description: 'GitHub release workflow',
        claimMatch: {
          issuer: 'https://token.actions.githubusercontent.com',
          subject: 'repo:acme/app:ref:refs/heads/main',
        },
      }),
    );
    add(
      named('role', '', {
        name: 'release-manager',
        description: 'Cuts releases',
        capabilities: ['tag.create', 'repo.list'],
      }),
    );
    add(named('repo', '', { name: 'nginx', description: 'Hardened nginx', readme: '# nginx\n\n  indented\n' }));
    add(named('repo', '', { name: '1.10', description: '', readme: '' }));
    add({
      kind: 'subscription',
      address: namedAddress('subscription', '', 'https://hooks.acme.dev/platform'),
      groupPath: '',
      parentAddress: 'org',
      fields: { sink: 'https://hooks.acme.dev/platform' },
    });
    add(binding('', { path: 'release-bot' }, { builtin: 'registry.push' }));
    add(binding('', { path: 'release-bot' }, { path: 'release-manager' }));
    add(group('engineering', 'Engineering'));
    add(group('engineering/platform', ''));
    add(group('data science', 'spaces in a name'));
    add(named('identity', 'engineering', { name: 'ci-bot', description: '' }));
    add(named('role', 'engineering/platform', { name: 'deployer', description: '', capabilities: ['repo.update'] }));
    add(binding('engineering', { path: 'release-bot' }, { builtin: 'viewer' }));
    add(binding('engineering', { path: 'engineering/ci-bot' }, { path: 'release-manager' }));
    add(binding('engineering/platform', { path: 'engineering/ci-bot' }, { path: 'engineering/platform/deployer' }));
    add(binding('engineering/platform', { uid: 'f'.repeat(40) + '/0000000000000001' }, { builtin: 'viewer' }));
    add(named('repo', 'engineering/platform', { name: 'tools', description: 'x' }));
    add(named('identity', 'data science', { name: 'notebook', description: 'd' }));

    const result = planExport(state);
    expect(result.steps).toEqual([]);
    expect(result.summary).toEqual({ create: 0, update: 0, delete: 0 });
  });

  it('plans to zero steps for an empty org', () => {
    expect(planExport(liveOrg('empty').state).steps).toEqual([]);
  });
});
