/**
 * `platform-sync init` (DESIGN.md §5, issue 40 item 1): a starter a newcomer can run at once —
 * its manifest validates and plans against the embedded emulator, its workflow is the package's
 * example — and that never overwrites a file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';

describe('platform-sync init', () => {
  const temp = makeTempDir('init');
  afterAll(() => temp.remove());
  const dir = join(temp.dir, 'acme-infra');

  it('writes the starter: a commented manifest with its schema line, the workflow, .gitignore and a README of the next three commands', async () => {
    const run = await runCli(['init', 'acme-infra', '--org', 'acme'], { cwd: temp.dir });
    expect(run.code, run.stderr).toBe(0);
    const files = [
      'manifests/org.yaml',
      '.github/workflows/platform-sync.yml',
      'package.json',
      '.gitignore',
      'README.md',
    ];
    for (const file of files) expect(run.stdout).toContain(`wrote  ${file}`);
    // platform-sync at exactly this version: the workflow's npm ci installs it, its action runs from node_modules (issue 60).
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(
      (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: unknown }).dependencies,
    ).toEqual({ 'platform-sync': version });
    expect(run.stdout).toContain(
      'Next: cd acme-infra && npm install (platform-sync as package.json pins it; commit package-lock.json too), then',
    );
    const manifest = readFileSync(join(dir, 'manifests', 'org.yaml'), 'utf8');
    expect(manifest.split('\n')[0]).toBe(
      '# yaml-language-server: $schema=../node_modules/platform-sync/schemas/manifest.schema.json',
    );
    expect(manifest).toContain('  name: "acme" ');
    // The package's workflow, less the example org's own provider secret (a comment says how to add one).
    const workflow = readFileSync(join(dir, '.github', 'workflows', 'platform-sync.yml'), 'utf8');
    const example = readFileSync(join(REPO_ROOT, 'examples', 'github-actions', 'platform-sync.yml'), 'utf8');
    expect(workflow).not.toContain('ACME');
    expect(workflow).toContain(
      '# secrets-env: one line per {fromEnv: PLATFORM_SYNC_SECRET_<NAME>} your manifests name',
    );
    const code = (text: string) => text.split('\n').filter((l) => !l.trimStart().startsWith('#'));
    expect(Object.keys(parse(workflow).jobs)).toEqual(['plan', 'apply', 'replan', 'apply-replanned', 'drift', 'adopt']);
    expect(code(workflow)).toEqual(
      code(example.replace(/^ +secrets-env: \|\n +PLATFORM_SYNC_SECRET_ACME_OKTA=.*\n/gm, '')),
    );
    // What the newcomer must set before the first pull request, and where the references are.
    const guide = readFileSync(join(dir, 'README.md'), 'utf8');
    // No owner/repo address anywhere, none invented (issue 60): the action comes with the package.
    for (const text of [guide, workflow, manifest]) expect(text).not.toMatch(/your-org|[\w-]+\/platform-sync@/);
    expect(workflow).toContain('uses: ./node_modules/platform-sync');
    expect(guide).toContain('package-lock.json');
    for (const name of ['PLATFORM_API_URL', 'PLATFORM_TOKEN_READONLY', 'PLATFORM_TOKEN'])
      expect(guide).toContain(`\`${name}\``);
    const reference = /# Reference: node_modules\/platform-sync\/(\S+)/.exec(manifest)?.[1];
    expect(reference && existsSync(join(REPO_ROOT, reference)), reference).toBe(true);
    expect(readFileSync(join(dir, '.gitignore'), 'utf8').split('\n')).toEqual(
      expect.arrayContaining(['.platform-sync/', 'plan.json', 'invites*.jsonl']),
    );
    const readme = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(readme).toContain('npx --no-install platform-sync plan manifests/ --emulator --bootstrap');
    expect(readme).not.toMatch(/npx platform-sync/); // never a bare npx: it would fetch the name from a registry
  });

  it("runs: the starter's README commands validate, apply and re-plan it against the embedded emulator", async () => {
    expect((await runCli(['validate', 'manifests/'], { cwd: dir })).code).toBe(0);
    const apply = await runCli(['apply', 'manifests/', '--emulator', '--bootstrap', '--auto-approve'], { cwd: dir });
    expect(apply.code, apply.stderr).toBe(0);
    expect((await runCli(['plan', 'manifests/', '--emulator', '--detailed-exitcode'], { cwd: dir })).code).toBe(0);
  });

  it('never overwrites a file: a second init keeps what is there and says so', async () => {
    writeFileSync(join(dir, 'README.md'), '# mine\n');
    const run = await runCli(['init', 'acme-infra'], { cwd: temp.dir });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('kept   README.md (it exists: never overwritten)');
    expect(run.stdout).not.toContain('wrote');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# mine\n');
  });

  it('guesses a GitHub owner from an org name that is none ("acme corp" → acme-corp), and the starter still validates', async () => {
    const run = await runCli(['init', 'spaced', '--org', 'acme corp'], { cwd: temp.dir });
    expect(run.code, run.stderr).toBe(0);
    const manifest = readFileSync(join(temp.dir, 'spaced', 'manifests', 'org.yaml'), 'utf8');
    expect(manifest).toContain('  name: "acme corp" ');
    expect(manifest).toContain('subject: repo:acme-corp/app:ref:refs/heads/main');
    expect((await runCli(['validate', 'manifests/'], { cwd: join(temp.dir, 'spaced') })).code).toBe(0);
  });

  it('refuses an org name the manifests cannot hold, writing nothing', async () => {
    const run = await runCli(['init', 'bad', '--org', 'Acme Corp!'], { cwd: temp.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not an org name');
    expect(existsSync(join(temp.dir, 'bad', 'manifests'))).toBe(false);
  });

  it('adds the lines that keep invite codes and saved plans out of git to an existing .gitignore, and says so (issue 50)', async () => {
    const here = join(temp.dir, 'has-gitignore');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(here);
    writeFileSync(join(here, '.gitignore'), 'dist/\nplan.json');
    const run = await runCli(['init', '--org', 'acme'], { cwd: here });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('added  .platform-sync/, invites*.jsonl to .gitignore');
    const lines = readFileSync(join(here, '.gitignore'), 'utf8').split('\n');
    expect(lines.slice(0, 2)).toEqual(['dist/', 'plan.json']);
    expect(lines).toEqual(expect.arrayContaining(['.platform-sync/', 'invites*.jsonl']));
    expect(lines.filter((l) => l === 'plan.json')).toHaveLength(1);
    // A second init has nothing to add: kept.
    const again = await runCli(['init', '--org', 'acme'], { cwd: here });
    expect(again.stdout).toContain('kept   .gitignore');
  });

  it('appends to an existing .gitignore and leaves its bytes as they are: not UTF-8, a line equal to a secret, no newline at the end (found by the review)', async () => {
    const here = join(temp.dir, 'latin1-gitignore');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(here);
    const token = 'init-gitignore-token-5a7c9e';
    // café-notes.txt in latin1 (byte e9, not UTF-8), a line that is the token, and `plan.json` as the last line, unended.
    const before = Buffer.concat([
      Buffer.from('build/\ncaf', 'latin1'),
      Buffer.from([0xe9]),
      Buffer.from(`-notes.txt\n${token}/\nplan.json`, 'latin1'),
    ]);
    writeFileSync(join(here, '.gitignore'), before);
    const run = await runCli(['init', '.', '--org', 'acme'], { cwd: here, env: { PLATFORM_TOKEN: token } });
    expect(run.code, run.stderr).toBe(0);
    const after = readFileSync(join(here, '.gitignore'));
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    // A newline first (the file did not end with one), then only the lines it lacked: plan.json it has.
    expect(after.subarray(before.length).toString('latin1')).toBe(
      '\n# platform-sync: invite codes, saved plans and emulator state stay out of git\n.platform-sync/\ninvites*.jsonl\n',
    );
  });

  it('reads an existing .gitignore as git does (a byte order mark skipped) and appends in its line endings (CRLF)', async () => {
    const here = join(temp.dir, 'crlf-gitignore');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(here);
    const before = Buffer.from('\xef\xbb\xbf.platform-sync/\r\nbuild/\r\n', 'latin1');
    writeFileSync(join(here, '.gitignore'), before);
    const run = await runCli(['init', '.', '--org', 'acme'], { cwd: here });
    expect(run.code, run.stderr).toBe(0);
    const after = readFileSync(join(here, '.gitignore'));
    expect(after.subarray(0, before.length).equals(before)).toBe(true);
    expect(after.subarray(before.length).toString('latin1')).toBe(
      '# platform-sync: invite codes, saved plans and emulator state stay out of git\r\nplan.json\r\ninvites*.jsonl\r\n',
    );
  });

  it('never writes through a symbolic link: a .gitignore that links elsewhere, or a .github that does, is reported and left alone (issue 60)', async () => {
    const { lstatSync, mkdirSync, readlinkSync, symlinkSync } = await import('node:fs');
    const here = join(temp.dir, 'linked');
    const outside = join(temp.dir, 'outside');
    mkdirSync(here);
    mkdirSync(outside);
    // A secret outside the repository, which a .gitignore link points at.
    const secret = join(outside, 'credentials');
    writeFileSync(secret, 'token=super-secret-value\n', { mode: 0o600 });
    symlinkSync(secret, join(here, '.gitignore'));
    symlinkSync(outside, join(here, '.github'));
    const run = await runCli(['init', '--org', 'acme'], { cwd: here });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('left   .gitignore alone: it is a symbolic link, and init never writes through one');
    expect(run.stderr).toContain(
      'left   .github/workflows/platform-sync.yml alone: .github is a symbolic link, and init never writes through one',
    );
    expect(run.stdout + run.stderr).not.toContain('super-secret-value');
    // The link is still a link, to the same place; its target is as it was; nothing was written through either link.
    expect(lstatSync(join(here, '.gitignore')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(here, '.gitignore'))).toBe(secret);
    expect(readFileSync(secret, 'utf8')).toBe('token=super-secret-value\n');
    expect(lstatSync(secret).mode & 0o777).toBe(0o600);
    expect(existsSync(join(outside, 'workflows'))).toBe(false);
    expect(run.stdout).toContain('wrote  manifests/org.yaml');
  });

  it('writes a starter that validates for an org name YAML would read otherwise ("- x")', async () => {
    const run = await runCli(['init', 'dashed', '--org', '- x'], { cwd: temp.dir });
    expect(run.code, run.stderr).toBe(0);
    expect((await runCli(['validate', 'manifests/'], { cwd: join(temp.dir, 'dashed') })).code).toBe(0);
  });
});
