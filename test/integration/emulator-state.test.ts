/** Emulator: seed files and atomic persistence (issue 2, point 11), and the library API (point 12). */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SeedError, startEmulator } from '../../src/emulator/index.js';
import { OWNER, get, patch, post, startTestEmulator } from './emulator-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'emulator-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EXAMPLE = new URL('../../examples/emulator-seed.yaml', import.meta.url).pathname;

describe('seed files', () => {
  it('loads the example YAML seed: nested groups, bindings by path, readmes, tags, advisories', async () => {
    const emu = await startTestEmulator({ seed: EXAMPLE });
    try {
      const org = '00000000000000000000000000000000000ac3e1';
      expect((await get(emu, `/iam/v2/groups/${org}`)).body.description).toBe('Acme Corp');
      const platform = (await get(emu, '/iam/v2/groups?name=platform')).body.groups[0];
      const bindings = (await get(emu, `/iam/v2/roleBindings?uidp.children_of=${platform.uid}`)).body.roleBindings;
      expect(bindings.map((b: any) => `${b.identity.name}=${b.role.name}`)).toEqual(['ci-bot=registry.push']);
      const engUid = (await get(emu, '/iam/v2/groups?name=engineering')).body.groups[0].uid;
      const eng = (await get(emu, `/iam/v2/roleBindings?uidp.children_of=${engUid}`)).body.roleBindings;
      expect(eng.map((b: any) => `${b.identity.name}=${b.role.name}`).sort()).toEqual([
        'ci-bot=editor',
        'release-bot=viewer',
      ]);
      const nginx = (await get(emu, '/registry/v2/repos?name=nginx')).body.repos[0];
      expect((await get(emu, `/registry/v2/repos/${nginx.uid}/readme`)).body.content).toContain('Hardened nginx image');
      const tags = (await get(emu, `/registry/v2/tags?uidp.children_of=${nginx.uid}&order_by=name`)).body.tags;
      expect(tags.map((t: any) => [t.name, t.deprecated])).toEqual([
        ['1.25', true],
        ['1.27', false],
      ]);
      expect((await get(emu, '/vulnerabilities/v2/advisories')).body.totalCount).toBe('2');
      // An identity the seed says was last seen long ago keeps that time (audit's stale-identity shows it).
      const legacy = (await get(emu, '/iam/v2/identities?name=legacy-deployer')).body.identities[0];
      expect(legacy.lastSeenTime).toBe('2025-03-01T09:00:00.000Z');
      expect(emu.resourceCount()).toBe(18);
    } finally {
      await emu.close();
    }
  });

  it('accepts JSON too, and reports every problem of a bad seed with its location', async () => {
    const json = join(dir, 'seed.json');
    writeFileSync(json, JSON.stringify({ orgs: [{ name: 'json-org' }] }));
    const emu = await startTestEmulator({ seed: json });
    expect((await get(emu, '/iam/v2/groups')).body.groups[0].name).toBe('json-org');
    await emu.close();

    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      [
        'orgs:',
        '  - name: Acme!',
        '    colour: red',
        '    roles: [{name: r, capabilities: [fly]}]',
        '    roleBindings: [{identity: ghost, role: nobody}]',
        '    groups: [{name: a}, {name: a}]',
      ].join('\n'),
    );
    const err = await startEmulator({ checkAnswers: true, seed: bad }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SeedError);
    const message = (err as Error).message;
    expect(message).toContain(bad);
    for (const fragment of [
      'orgs[0].name',
      'orgs[0]: unknown field "colour"',
      'orgs[0].roles[0].capabilities',
      'orgs[0].roleBindings[0].identity: no identity "ghost"',
      'orgs[0].roleBindings[0].role',
      'orgs[0].groups[1]: group "a" is declared twice',
    ])
      expect(message).toContain(fragment);
  });

  it('seeds one identity holding the same role in two groups as two bindings', async () => {
    const emu = await startTestEmulator({
      seed: {
        orgs: [
          {
            name: 'acme',
            identities: [{ name: 'bot' }],
            roleBindings: [{ identity: 'bot', role: 'viewer' }],
            groups: [{ name: 'eng', roleBindings: [{ identity: '/bot', role: 'viewer' }] }],
          },
        ],
      },
    });
    try {
      const bindings = (await get(emu, '/iam/v2/roleBindings')).body.roleBindings as { group: { name: string } }[];
      expect(bindings.map((b) => b.group.name).sort()).toEqual(['acme', 'eng']);
    } finally {
      await emu.close();
    }
  });

  it('refuses a lastSeenTime that is no time, naming where, inserting nothing', async () => {
    const emu = await startTestEmulator();
    try {
      const before = emu.resourceCount();
      expect(() =>
        emu.seed({ orgs: [{ name: 'acme', identities: [{ name: 'old', lastSeenTime: 'last spring' }] }] }),
      ).toThrow(/orgs\[0\]\.identities\[0\]\.lastSeenTime: must be an RFC 3339 time/);
      expect(emu.resourceCount()).toBe(before);
    } finally {
      await emu.close();
    }
  });

  it('refuses to seed an org that already exists, inserting nothing', async () => {
    const emu = await startTestEmulator({ seed: { orgs: [{ name: 'acme' }] } });
    try {
      const before = emu.resourceCount();
      expect(() => emu.seed({ orgs: [{ name: 'fresh', repos: [{ name: 'x' }] }, { name: 'acme' }] })).toThrow(
        /root group named "acme" already exists/,
      );
      expect(emu.resourceCount()).toBe(before);
    } finally {
      await emu.close();
    }
  });
});

describe('persistence of the state file', () => {
  it('writes state after changes and on close, and loads it on the next start', async () => {
    const state = join(dir, 'state.json');
    const first = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'acme' }] } });
    const org = (await get(first, '/iam/v2/groups')).body.groups[0].uid;
    const repo = (await post(first, `/registry/v2/repos/${org}`, { name: 'nginx' })).body;
    await patch(first, `/registry/v2/repos/${repo.uid}/readme`, { content: 'persisted' });
    await first.close();

    // The seed is ignored when the state file exists: no duplicate org.
    const second = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'acme' }] } });
    try {
      expect((await get(second, '/iam/v2/groups')).body.totalCount).toBe('1');
      const again = (await get(second, `/registry/v2/repos/${repo.uid}`)).body;
      expect(again).toEqual((await get(second, `/registry/v2/repos?name=nginx`)).body.repos[0]);
      expect(again.createTime).toBe(repo.createTime);
      expect((await get(second, `/registry/v2/repos/${repo.uid}/readme`)).body.content).toBe('persisted');
      // New resources keep sorting after old ones by createTime.
      await post(second, `/registry/v2/repos/${org}`, { name: 'later' });
      const order = (await get(second, `/registry/v2/repos?order_by=createTime`)).body.repos.map((r: any) => r.name);
      expect(order).toEqual(['nginx', 'later']);
    } finally {
      await second.close();
    }
  });

  it('writes atomically: a new file renamed over the old one, no temporary files left behind', async () => {
    const state = join(dir, 'atomic.json');
    const emu = await startTestEmulator({ statePath: state });
    try {
      await post(emu, '/iam/v2/groups', { name: 'one' });
      await emu.flush();
      const inodeBefore = statSync(state).ino;
      const contentBefore = readFileSync(state, 'utf8');
      await post(emu, '/iam/v2/groups', { name: 'two' });
      await emu.flush();
      // rename() replaces the directory entry: a different inode, never the old file rewritten in place.
      expect(statSync(state).ino).not.toBe(inodeBefore);
      expect(JSON.parse(contentBefore).resources).toHaveLength(1);
      expect(JSON.parse(readFileSync(state, 'utf8')).resources).toHaveLength(2);
      expect(readdirSync(dir).filter((f) => f.startsWith('atomic.json') && f.endsWith('.tmp'))).toEqual([]);
    } finally {
      await emu.close();
    }
  });

  it('ignores a leftover temporary file from a crash, and names a corrupt state file', async () => {
    const state = join(dir, 'crash.json');
    const emu = await startTestEmulator({ statePath: state, seed: { orgs: [{ name: 'kept' }] } });
    await emu.close();
    // What a crash mid-write leaves: a truncated temporary file beside the intact state.
    writeFileSync(`${state}.99999.1.tmp`, '{"format":"platform-sync-emulator-state","resou');
    const again = await startTestEmulator({ statePath: state });
    expect((await get(again, '/iam/v2/groups')).body.groups.map((g: any) => g.name)).toEqual(['kept']);
    await again.close();

    const corrupt = join(dir, 'corrupt.json');
    writeFileSync(corrupt, '{"format":"platform-sync-emulator-state","resou');
    await expect(startEmulator({ checkAnswers: true, statePath: corrupt })).rejects.toThrow(
      /corrupt\.json is not valid JSON/,
    );
  });
});

describe('the emulator as a library', () => {
  it('starts on port 0 at 127.0.0.1, counts resources, closes idempotently', async () => {
    const emu = await startEmulator({ checkAnswers: true, tokens: [{ token: OWNER, role: 'owner' }] });
    expect(emu.url).toBe(`http://127.0.0.1:${emu.port}`);
    expect(emu.port).toBeGreaterThan(0);
    expect(emu.resourceCount()).toBe(0);
    const result = emu.seed({
      orgs: [{ name: 'acme', repos: [{ name: 'a', tags: [{ name: 't', digest: `sha256:${'0'.repeat(64)}` }] }] }],
    });
    expect(result.count).toBe(3);
    expect(result.orgUids.acme).toMatch(/^[0-9a-f]{40}$/);
    expect(result.uids['tag:acme/a:t']).toMatch(new RegExp(`^${result.uids['repo:acme/a']}/[0-9a-f]{16}$`));
    expect(emu.resourceCount()).toBe(3);
    await emu.close();
    await emu.close();
    await expect(fetch(`${emu.url}/ping/v2/ping`)).rejects.toThrow();
  });
});

describe('a state file that is a link (issue 48)', () => {
  it('is named as the user gave it, with what it links to, when it cannot be read', async () => {
    const { symlinkSync } = await import('node:fs');
    const link = join(dir, 'linked-state.json');
    symlinkSync('/dev/zero', link);
    await expect(startEmulator({ statePath: link })).rejects.toThrow(
      `emulator state file ${link} (a link to /dev/zero) cannot be read`,
    );
  });
});
