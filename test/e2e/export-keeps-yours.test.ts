/**
 * Nothing of the user's lost (DESIGN.md §8 rev 6, issue 60): export writes its own files into
 * --out and touches nothing else there, at any depth, with or without --force; --force replaces
 * or removes a file of an earlier export only while it is as export wrote it (the seal under its
 * mark: a hash of its name and content). Unwritable output paths are clear errors naming them; a
 * secret echoed base64-encoded is redacted like its other forms.
 */
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACME, applyManifests, openClient, runCli, useSuiteEmulator } from './cli-harness.js';

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
        { name: 'echo', identities: echoes.map((text, i) => ({ name: `echo-${i}`, description: `served ${text} back` })) },
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

  it('redacts the token echoed base64-encoded (standard and URL-safe, at each byte alignment)', async () => {
    const out = join(suite.dir, 'echo');
    const stdout = (await runCli(['export', '--org', 'echo'], { env: suite.env })).stdout;
    expect((await runCli(['export', '--org', 'echo', '--out', out], { env: suite.env })).code).toBe(0);
    for (const [label, text] of [['stdout', stdout], ['org.yaml', readFileSync(join(out, 'org.yaml'), 'utf8')]] as const) {
      for (const echo of echoes) expect(text, `${label}: ${echo}`).not.toContain(echo);
      expect(text.split('[REDACTED]').length - 1, label).toBe(echoes.length);
    }
  });
});

describe('unwritable output paths', () => {
  const suite = useSuiteEmulator(TOKEN, 'unwritable-paths', (emulator) => applyManifests(emulator.url, TOKEN, [ACME]));

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
    ];
    for (const [args, path, why] of cases) {
      const run = await runCli(args, { env: suite.env, cwd: dir });
      const label = args.join(' ');
      expect(run.code, `${label}: ${run.stderr}`).toBe(1);
      expect(run.stderr, label).not.toMatch(/internal error|\n\s+at /);
      expect(run.stderr, label).toContain(`cannot write`);
      expect(run.stderr, label).toContain(resolve(dir, path));
      expect(run.stderr, label).toMatch(why);
      expect(readdirSync(dir).sort(), label).toEqual(['d', 'f']);
    }
  });
});
