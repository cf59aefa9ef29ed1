/**
 * Nothing of the user's lost (DESIGN.md §8 rev 6, issue 60): export writes its own files into
 * --out and touches nothing else there, at any depth, with or without --force; --force replaces
 * or removes a file of an earlier export only while it is as export wrote it (the seal under its
 * mark: a hash of its name and content). Unwritable output paths are clear errors naming them; a
 * secret echoed base64-encoded is redacted like its other forms.
 */
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answerWith, startRewritingProxy, type RewritingProxy } from '../support/rewriting-proxy.js';
import { ACME, applyManifests, makeTempDir, openClient, runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'export-keeps-yours-token-5e1a9c';

/** base64 of the token with k bytes before it and two after: it starts at each byte alignment of a longer base64 text. */
const echoes = [0, 1, 2].flatMap((k) => {
  const bytes = Buffer.concat([Buffer.from('q'.repeat(k)), Buffer.from(TOKEN), Buffer.from('zz')]);
  return [bytes.toString('base64'), bytes.toString('base64url')];
});

/** A user's work in a directory: a checkout's .git, sources, notes, a nested manifest-looking file. */
function plantUserFiles(dir: string): Record<string, string> {
  const files: Record<string, string> = {
    '.git/HEAD': 'ref: refs/heads/main\n',
    'src/main.ts': 'export const x = 1;\n',
    'notes.md': '# notes\n',
    'deep/er/values.yaml': 'replicas: 3\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return files;
}

function expectKept(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) expect(readFileSync(join(dir, path), 'utf8'), path).toBe(text);
}

describe('export keeps what it did not write', () => {
  const suite = useSuiteEmulator(TOKEN, 'export-keeps-yours', async (emulator) => {
    emulator.seed({
      orgs: [
        { name: 'keep', groups: [{ name: 'a' }, { name: 'b' }] },
        { name: 'held', groups: [{ name: 'b', description: 'the description of b' }] },
        {
          name: 'echo',
          identities: echoes.map((text, i) => ({ name: `echo-${i}`, description: `served ${text} back` })),
        },
      ],
    });
  });

  it('export --out into a checkout without --force adds its files and keeps .git, sources and notes', async () => {
    const repo = join(suite.dir, 'repo');
    const mine = plantUserFiles(repo);
    const run = await runCli(['export', '--org', 'keep', '--out', repo], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    expectKept(repo, mine);
    expect(readdirSync(repo).sort()).toEqual(['.git', 'a.yaml', 'b.yaml', 'deep', 'notes.md', 'org.yaml', 'src']);
  });

  it('export --out t/ex keeps the directories beside it named like its stages or an old swap, --out there or not', async () => {
    const t = join(suite.dir, 't1');
    const siblings = ['.ex.export-notes', '.ex.replaced-backup'];
    for (const name of siblings) {
      mkdirSync(join(t, name), { recursive: true });
      writeFileSync(join(t, name, 'mine.txt'), `${name}\n`);
    }
    const out = join(t, 'ex');
    for (const outThere of [false, true]) {
      rmSync(out, { recursive: true, force: true });
      if (outThere) mkdirSync(out);
      const run = await runCli(['export', '--org', 'keep', '--out', out], { env: suite.env });
      expect(run.code, run.stderr).toBe(0);
      for (const name of siblings) expect(readFileSync(join(t, name, 'mine.txt'), 'utf8')).toBe(`${name}\n`);
      expect(readdirSync(t).sort()).toEqual([...siblings, 'ex']);
      expect(readdirSync(out).sort()).toEqual(['a.yaml', 'b.yaml', 'org.yaml']);
    }
  });

  it('export --out . keeps the current directory', async () => {
    const cwd = join(suite.dir, 'cwd');
    const mine = plantUserFiles(cwd);
    const run = await runCli(['export', '--org', 'keep', '--out', '.'], { env: suite.env, cwd });
    expect(run.code, run.stderr).toBe(0);
    expectKept(cwd, mine);
    expect(existsSync(join(cwd, 'org.yaml'))).toBe(true);
  });

  it('without --force, a file it would write that exists is an error naming it, and nothing is written', async () => {
    const out = join(suite.dir, 'taken');
    mkdirSync(out);
    writeFileSync(join(out, 'b.yaml'), 'mine\n');
    const run = await runCli(['export', '--org', 'keep', '--out', out], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${join(out, 'b.yaml')} already exists`);
    expect(readdirSync(out)).toEqual(['b.yaml']);
    expect(readFileSync(join(out, 'b.yaml'), 'utf8')).toBe('mine\n');
  });

  it('--force leaves a copy of an exported file under another name: an error naming it, nothing written', async () => {
    const out = join(suite.dir, 'copied');
    expect((await runCli(['export', '--org', 'keep', '--out', out], { env: suite.env })).code).toBe(0);
    copyFileSync(join(out, 'org.yaml'), join(out, 'team.yaml'));
    const before = Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(join(out, f), 'utf8')]));
    const run = await runCli(['export', '--org', 'keep', '--out', out, '--force'], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(join(out, 'team.yaml'));
    expect(run.stderr).toMatch(/not as export wrote it \(edited, or copied under another name\)/);
    expect(Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(join(out, f), 'utf8')]))).toEqual(before);
  });

  it('--force leaves an edited exported file: an error naming it, nothing written', async () => {
    const out = join(suite.dir, 'edited');
    expect((await runCli(['export', '--org', 'keep', '--out', out], { env: suite.env })).code).toBe(0);
    appendFileSync(join(out, 'a.yaml'), '# my note\n');
    const edited = readFileSync(join(out, 'a.yaml'), 'utf8');
    const run = await runCli(['export', '--org', 'keep', '--out', out, '--force'], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(join(out, 'a.yaml'));
    expect(readFileSync(join(out, 'a.yaml'), 'utf8')).toBe(edited);
  });

  it('--force replaces an unchanged earlier export, removes its file the org no longer has, and keeps everything else', async () => {
    const out = join(suite.dir, 'again');
    const mine = plantUserFiles(out);
    expect((await runCli(['export', '--org', 'keep', '--out', out], { env: suite.env })).code).toBe(0);
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      const org = (await client.list('group', { name: 'keep' })).items[0]!;
      const b = (await client.list('group', { childrenOf: org.uid, name: 'b' })).items[0]!;
      await client.delete('group', b.uid);
    } finally {
      await client.close();
    }
    const run = await runCli(['export', '--org', 'keep', '--out', out, '--force'], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    expectKept(out, mine);
    expect(readdirSync(out).sort()).toEqual(['.git', 'a.yaml', 'deep', 'notes.md', 'org.yaml', 'src']);
    // The export is whole again: a second --force over it goes through.
    expect((await runCli(['export', '--org', 'keep', '--out', out, '--force'], { env: suite.env })).code).toBe(0);
  });

  it('refuses a live value holding the token (here base64-encoded, standard and URL-safe, at each byte alignment) rather than write it or a [REDACTED] that would not round-trip', async () => {
    const out = join(suite.dir, 'echo');
    for (const args of [[], ['--out', out]]) {
      const run = await runCli(['export', '--org', 'echo', ...args], { env: suite.env });
      expect(run.code, run.stderr).toBe(1);
      for (const echo of echoes) expect(run.stdout + run.stderr).not.toContain(echo);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('live values hold a secret this run holds');
      for (const i of echoes.keys()) expect(run.stderr).toContain(`identity:echo-${i} description`);
    }
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a live description equal to a PLATFORM_SYNC_SECRET_* value, naming it, and writes nothing (DESIGN.md §4, §8)', async () => {
    const out = join(suite.dir, 'held');
    const env = { ...suite.env, PLATFORM_SYNC_SECRET_HELD: 'the description of b' };
    for (const args of [[], ['--out', out]]) {
      const run = await runCli(['export', '--org', 'held', ...args], { env });
      expect(run.code, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('  - group:b description\n');
      expect(run.stderr).not.toContain('the description of b');
    }
    expect(existsSync(out)).toBe(false);
    // Without the variable the same org exports, the description as it is.
    const run = await runCli(['export', '--org', 'held', '--out', out], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(out, 'b.yaml'), 'utf8')).toContain('description: the description of b\n');
  });
});

describe('unwritable output paths', () => {
  const suite = useSuiteEmulator(TOKEN, 'unwritable-paths', (emulator) => applyManifests(emulator.url, TOKEN, [ACME]));
  const manifests = makeTempDir('unwritable-manifests');
  afterAll(manifests.remove);
  /** A plan that invites someone: apply needs --invite-codes. */
  const MEMBER = join(manifests.dir, 'member.yaml');
  writeFileSync(
    MEMBER,
    'apiVersion: platform-sync/v1\norg:\n  name: solo\n  members:\n    - email: a@example.com\n      role: viewer\n',
  );

  it('are one clear line naming the path, never an internal error: a file in the way, a directory, a missing directory', async () => {
    const dir = suite.dir;
    writeFileSync(join(dir, 'f'), 'a file\n');
    mkdirSync(join(dir, 'd'));
    const cases: Array<[string[], string, RegExp]> = [
      [['plan', ACME, '--bootstrap', '--out', 'f/x'], 'f/x', /a part of \S*\/f\/x is a file/],
      [['plan', ACME, '--bootstrap', '--out', 'd'], 'd', /\/d is a directory/],
      [['plan', ACME, '--bootstrap', '--out', 'missing/x'], 'missing/x', /its directory \S*\/missing does not exist/],
      [['audit', ACME, '--sarif', 'f/x'], 'f/x', /a part of \S*\/f\/x is a file/],
      [['audit', ACME, '--sarif', 'd'], 'd', /\/d is a directory/],
      [['audit', ACME, '--sarif', '.'], '.', / is (a directory|busy)/],
      [
        ['apply', MEMBER, '--bootstrap', '--auto-approve', '--invite-codes', 'f/x'],
        'f/x',
        /a part of \S*f\/x is a file/,
      ],
      [['apply', MEMBER, '--bootstrap', '--auto-approve', '--invite-codes', 'd'], 'd', /d is a directory/],
      [
        ['emulator', '--port', '0', '--token', 'x-token-123456', '--state', 'f/x'],
        'f/x',
        /f\/x: \S*\/f is not a directory/,
      ],
    ];
    for (const [args, path, why] of cases) {
      const run = await runCli(args, { env: suite.env, cwd: dir });
      const label = args.join(' ');
      expect(run.code, `${label}: ${run.stderr}`).toBe(1);
      expect(run.stderr, label).not.toMatch(/internal error|\n\s+at /);
      expect(run.stderr, label).toMatch(/cannot (write|use)/);
      expect(run.stderr, label).toContain(args[0] === 'plan' || args[0] === 'audit' ? resolve(dir, path) : path);
      expect(run.stderr, label).toMatch(why);
      expect(readdirSync(dir).sort(), label).toEqual(['d', 'f']);
    }
  });
});

describe('an invite code the server echoes base64-encoded', () => {
  const suite = useSuiteEmulator(TOKEN, 'invite-echo', (emulator) =>
    emulator.seed({ orgs: [{ name: 'inv-text' }, { name: 'inv-json' }] }),
  );
  let proxy: RewritingProxy | undefined;
  afterAll(() => proxy?.close());

  it("is redacted in every output form: the second invite's 400 quotes the first one's code, base64 at each alignment, standard and URL-safe", async () => {
    let code: string | undefined;
    proxy = await startRewritingProxy(suite.emulator.url, (request, body) => {
      const answer = body as { code?: unknown };
      if (request.method !== 'POST' || !/invites/i.test(request.path)) return body;
      if (code === undefined) {
        if (typeof answer?.code === 'string') code = answer.code;
        return body;
      }
      const forms = [0, 1, 2].flatMap((k) => {
        const bytes = Buffer.concat([Buffer.from('q'.repeat(k)), Buffer.from(code!), Buffer.from('zz')]);
        return [bytes.toString('base64'), bytes.toString('base64url')];
      });
      return answerWith(400, { code: 3, message: `Invalid argument: already holds ${forms.join(' and ')}` });
    });
    const env = { ...suite.env, PLATFORM_API_URL: proxy.url };
    const runs = [];
    for (const format of ['text', 'json']) {
      // Each format against an org of its own: the first run leaves both invites live.
      const manifest = join(suite.dir, `invites-${format}.yaml`);
      const members =
        '  members:\n    - {email: a@example.com, role: viewer}\n    - {email: b@example.com, role: viewer}\n';
      writeFileSync(manifest, `apiVersion: platform-sync/v1\norg:\n  name: inv-${format}\n${members}`);
      const codes = join(suite.dir, `codes-${format}.jsonl`);
      runs.push(
        await runCli(
          ['apply', manifest, '--auto-approve', '--concurrency', '1', '--invite-codes', codes, '--format', format],
          { env },
        ),
      );
      code = undefined;
    }
    for (const run of runs) {
      const out = run.stdout + run.stderr;
      expect(run.code, out).toBe(1);
      expect(out).toContain('already holds');
      expect(out.split('[REDACTED]').length - 1, out).toBeGreaterThanOrEqual(6);
    }
  });
});
