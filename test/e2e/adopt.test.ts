import { cpSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { REPO_ROOT, makeTempDir, openClient, runCli } from './cli-harness.js';

const OWNER = 'adopt-e2e-owner-token-3f9a';
const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'adopt');

/** The files of a directory, by name, as bytes: what "changes no file" is checked against. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );
}

/** The lines of `after` that are not lines of `before` (and the other way round), as a multiset difference. */
function lineChanges(before: string, after: string): { gone: string[]; new: string[] } {
  const count = (text: string): Map<string, number> =>
    text.split('\n').reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>());
  const a = count(before);
  const b = count(after);
  const diff = (x: Map<string, number>, y: Map<string, number>): string[] =>
    [...x].flatMap(([l, n]) => Array(Math.max(0, n - (y.get(l) ?? 0))).fill(l));
  return { gone: diff(a, b), new: diff(b, a) };
}

describe('platform-sync adopt', () => {
  let emulator: Emulator;
  let env: Record<string, string>;
  const temp = makeTempDir('adopt');
  const dir = join(temp.dir, 'manifests');

  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
    cpSync(FIXTURE, dir, { recursive: true });
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: OWNER };
    const applied = await runCli(
      ['apply', dir, '--bootstrap', '--auto-approve', '--invite-codes', join(temp.dir, 'codes.jsonl')],
      { env },
    );
    expect(applied.stderr).toBe('');
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  it('exits 0 and writes nothing when live matches', async () => {
    const run = await runCli(['adopt', dir], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No drift: org adoptco matches the manifests; nothing to adopt.');
  });

  it('adopts hand edits of every kind: a diff naming each (exit 2, no file changed), then --write, then plan is empty', async () => {
    const client = openClient(emulator.url, OWNER);
    try {
      const org = (await client.list('group', { name: 'adoptco' })).items[0]!;
      const groups = (await client.list('group', { childrenOf: org.uid })).items;
      const engineering = groups.find((g) => g.name === 'engineering')!;
      const legacy = groups.find((g) => g.name === 'legacy')!;
      // A changed description (an identity in another file), a repo field, a group made and one deleted by hand.
      const ci = (await client.list('identity', { childrenOf: engineering.uid, name: 'ci-bot' })).items[0]!;
      await client.update('identity', ci.uid, { description: 'CI, edited in the console' }, ['description']);
      const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { description: 'Renamed in the console' }, ['description']);
      const made = await client.create('group', org.uid, { name: 'sandbox', description: 'Made by hand' });
      await client.delete('group', legacy.uid);
      // A binding made by hand (an existing identity, a built-in role), and a member invited by hand.
      const roles = (await client.list('role', {})).items;
      const viewer = roles.find((r) => r.name === 'viewer' && !String(r.uid).includes('/'))!;
      await client.create('roleBinding', engineering.uid, { identityUid: ci.uid, roleUid: viewer.uid });
      await client.create('groupInvite', org.uid, {
        email: 'bob@adoptco.dev',
        role: viewer.uid,
        expirationTime: new Date(Date.now() + 5 * 86_400_000).toISOString(),
        singleUse: true,
      });
      void made;
    } finally {
      await client.close();
    }

    const before = snapshot(dir);
    const preview = await runCli(['adopt', dir], { env });
    expect(preview.stderr).toBe('');
    expect(preview.code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
    const named = [
      'identity:engineering/ci-bot',
      'repo:app',
      'group:sandbox',
      'group:legacy',
      'roleBinding:engineering/ci-bot=viewer',
      'groupInvite:bob@adoptco.dev=viewer',
    ];
    for (const name of named) {
      expect(preview.stdout).toContain(name);
    }
    expect(preview.stdout).toContain('--- a/');
    expect(preview.stdout).toContain('+    - name: sandbox');
    expect(preview.stdout).toContain('-    - name: legacy');

    const json = await runCli(['adopt', dir, '--format', 'json'], { env });
    expect(json.code).toBe(2);
    const parsed = JSON.parse(json.stdout);
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'adopt.schema.json'), 'utf8'));
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(parsed), JSON.stringify(validate.errors)).toBe(true);
    expect(parsed.summary).toMatchObject({ changed: 2, removed: 1, left: 0 });
    expect(parsed.summary.added).toBeGreaterThanOrEqual(3);

    const report = join(temp.dir, 'drift.md');
    const write = await runCli(['adopt', dir, '--write', '--report', report], { env, cwd: dir });
    expect(write.stderr).toBe('');
    expect(write.code).toBe(2);
    expect(write.stdout).toContain('Wrote org.yaml');
    expect(readFileSync(report, 'utf8')).toContain('### platform-sync drift: org `adoptco`');
    const after = snapshot(dir);

    // The org file: only the lines the changes need, everything else byte for byte.
    const org = lineChanges(before['org.yaml']!, after['org.yaml']!);
    const gone = [
      '      description: To be retired',
      '    - name: legacy',
      '      description: The application   # the customer-facing one',
    ];
    expect(org.gone.sort()).toEqual(gone.sort());
    expect(org.new.sort()).toEqual(
      [
        '      description: Renamed in the console   # the customer-facing one',
        '    - name: sandbox',
        '      description: Made by hand',
        '    - {email: bob@adoptco.dev, role: viewer}',
      ].sort(),
    );
    const eng = lineChanges(before['engineering.yaml']!, after['engineering.yaml']!);
    expect(eng.gone).toEqual(['          description: CI of adoptco/monorepo']);
    expect(eng.new.sort()).toEqual(
      [
        '          description: CI, edited in the console',
        '        - identity: ci-bot',
        '          role: viewer',
      ].sort(),
    );

    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env });
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
    const again = await runCli(['adopt', dir], { env });
    expect(again.code).toBe(0);
    expect(snapshot(dir)).toEqual(after);
  });

  it('a group made by hand with what it holds, --into, a set field in flow style, a secret as a reference, a protected deletion left', async () => {
    // Protect the repos first (a manifest change, applied), then the hand edits.
    const orgFile = join(dir, 'org.yaml');
    const ignore = '  ignore: ["identity:*/human-*"]\n';
    writeFileSync(orgFile, readFileSync(orgFile, 'utf8').replace(ignore, `${ignore}  protect: ["repo:*"]\n`));
    const client = openClient(emulator.url, OWNER);
    try {
      const org = (await client.list('group', { name: 'adoptco' })).items[0]!;
      const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { bundles: ['featured', 'fips'] }, ['bundles']);
      const lab = await client.create('group', org.uid, { name: 'lab', description: 'Made by hand' });
      const bot = await client.create('identity', lab.uid, {
        name: 'lab-bot',
        claimMatch: {
          issuer: 'https://token.actions.githubusercontent.com',
          subject: 'repo:adoptco/lab:ref:refs/heads/main',
        },
      });
      const roles = (await client.list('role', {})).items;
      const viewer = roles.find((r) => r.name === 'viewer' && !String(r.uid).includes('/'))!;
      await client.create('roleBinding', lab.uid, { identityUid: bot.uid, roleUid: viewer.uid });
      await client.create('identityProvider', org.uid, {
        name: 'okta',
        defaultRole: viewer.uid,
        oidc: {
          issuer: 'https://adoptco.okta.com',
          clientId: '0oa1adoptco',
          clientSecret: 'a-secret-the-api-never-returns-1234',
          additionalScopes: ['email'],
          groupsClaim: 'groups',
        },
      });
      const engineering = (await client.list('group', { childrenOf: org.uid, name: 'engineering' })).items[0]!;
      const docs = (await client.list('repo', { childrenOf: engineering.uid, name: 'docs' })).items[0]!;
      await client.delete('repo', docs.uid);
    } finally {
      await client.close();
    }
    const engineering = join(dir, 'engineering.yaml');
    const before = snapshot(dir);
    const run = await runCli(['adopt', dir, '--into', engineering, '--write'], { env, cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(2);
    const after = snapshot(dir);
    // Made by hand: into --into's file, the group with what it holds; the secret as a reference with its comment.
    // The set field in place, in its flow style: one line.
    expect(lineChanges(before['org.yaml']!, after['org.yaml']!)).toEqual({
      gone: ['      bundles: [featured]'],
      new: ['      bundles: [featured, fips]'],
    });
    // Protected and deleted by hand: left in the manifests (apply creates it again), and said so.
    expect(after['engineering.yaml']).toContain('        - name: docs');
    expect(run.stdout).toMatch(/! repo:engineering\/docs left: protected/);
    const added = lineChanges(before['engineering.yaml']!, after['engineering.yaml']!).new.join('\n');
    expect(added).toContain('    - name: lab');
    expect(added).toContain('        - name: lab-bot');
    expect(added).not.toContain('description: ""');
    expect(after['engineering.yaml']).toMatch(/\n {8}- identity: lab-bot\n {10}role: viewer\n/);
    expect(added).toContain(
      'clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA} # the API never returns a secret: set this variable in the apply job only',
    );
    expect(JSON.stringify(after)).not.toContain('a-secret-the-api-never-returns');
    const plan = await runCli(['plan', dir, '--format', 'json'], { env });
    expect(
      JSON.parse(plan.stdout).steps.map((s: { action: string; address: string }) => `${s.action} ${s.address}`),
    ).toEqual(['create repo:engineering/docs']);
  });

  it('bad input is a clear error and writes nothing: manifests that do not parse, an --into outside the paths', async () => {
    const before = snapshot(dir);
    const outside = join(temp.dir, 'outside.yaml');
    writeFileSync(outside, 'apiVersion: platform-sync/v1\norg:\n  name: adoptco\n');
    const into = await runCli(['adopt', dir, '--into', outside, '--write'], { env });
    expect(into.code).toBe(1);
    expect(into.stderr).toContain('--into');
    expect(into.stderr).toContain('is not one of the manifest files read');
    const broken = join(temp.dir, 'broken');
    cpSync(dir, broken, { recursive: true });
    writeFileSync(join(broken, 'org.yaml'), `${readFileSync(join(broken, 'org.yaml'), 'utf8')}  : [unclosed\n`);
    const brokenBefore = snapshot(broken);
    const bad = await runCli(['adopt', broken, '--write'], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/org\.yaml:\d+:\d+/);
    expect(snapshot(broken)).toEqual(brokenBefore);
    expect(snapshot(dir)).toEqual(before);
  });
});
