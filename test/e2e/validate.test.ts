/**
 * `platform-sync validate` end to end, in-process through main(argv, io); one run spawns
 * bin/platform-sync (built by `npm test`) with a socket guard, to prove validate never opens a
 * connection.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli-harness.js';

const BIN = 'bin/platform-sync';
let dir: string;
let noNetwork: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ps-validate-e2e-'));
  // Preloaded into the CLI: any attempt to open a socket fails the run loudly.
  noNetwork = join(dir, 'no-network.cjs');
  await writeFile(
    noNetwork,
    `const net = require('node:net');
net.Socket.prototype.connect = function () { process.stderr.write('NETWORK CONNECTION ATTEMPTED\\n'); process.exit(99); };`,
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** In a child process whose every socket connect fails the run loudly. */
function validateOffline(...paths: string[]) {
  const r = spawnSync(process.execPath, ['--require', noNetwork, BIN, 'validate', ...paths], {
    encoding: 'utf8',
    env: { ...process.env, PLATFORM_API_URL: 'http://127.0.0.1:9' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function validate(...paths: string[]) {
  return runCli(['validate', ...paths], { env: { PLATFORM_API_URL: 'http://127.0.0.1:9' } });
}

describe('platform-sync validate', () => {
  it('accepts examples/acme: exit 0 and a summary, with no network connection', () => {
    const r = validateOffline('examples/acme');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok: 3 files, 41 resources, org acme\n');
    expect(r.code).toBe(0);
  });

  it('prints every diagnostic of every file, then the count; exit 1', async () => {
    const r = await validate(
      'test/fixtures/bad-duplicate-b.yaml',
      'test/fixtures/bad-duplicate-a.yaml',
      'test/fixtures/bad-tab-indent.yaml',
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      [
        'test/fixtures/bad-duplicate-b.yaml:6:7: repo "nginx" in org "acme" is declared twice (address repo:nginx); also declared at test/fixtures/bad-duplicate-a.yaml:5:7 (at /org/repos/1)',
        'test/fixtures/bad-tab-indent.yaml:5:1: tab character in indentation; YAML indentation must use spaces only',
        // Two problems, in two of the three files read (not "in 3 files").
        '2 problems in 2 files (3 files read)',
        '',
      ].join('\n'),
    );
    expect(r.code).toBe(1);
  });

  it('shows files as given and reports a missing one', async () => {
    const r = await validate('./test/fixtures/good-minimal.yaml', 'missing.yaml');
    // A path that cannot be read has no line or column to point at: `path: message`, not `path:1:1:`.
    expect(r.stdout).toBe('missing.yaml: cannot read: no such file or directory\n1 problem in 1 file (1 file read)\n');
    expect(r.code).toBe(1);
  });

  it('says no manifest files were found, not "1 problem in 0 files", for a missing path or an empty directory', async () => {
    const missing = await validate('no-such-dir');
    expect(missing.stdout).toBe(
      'no-such-dir: cannot read: no such file or directory\nno manifest files found in no-such-dir\n',
    );
    expect(missing.code).toBe(1);
    const empty = join(dir, 'empty');
    await mkdir(empty);
    const none = await validate(empty);
    expect(none.stdout).toBe(
      `${empty}: no .yaml or .yml files in this directory; expected manifest files\nno manifest files found in ${empty}\n`,
    );
    expect(none.code).toBe(1);
  });

  it('counts members beside resources (issue 50)', async () => {
    const { writeFile } = await import('node:fs/promises');
    const file = join(dir, 'members.yaml');
    await writeFile(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  members:\n    - {email: a@acme.dev, role: viewer}\n    - {email: b@acme.dev, role: viewer}\n',
    );
    const r = await validate(file);
    expect(r.stdout).toBe('ok: 1 file, 1 resource, 2 members, org acme\n');
  });

  it('prints a file name holding a newline as one line, escaped like a name (issue 50)', async () => {
    const { writeFile } = await import('node:fs/promises');
    const hostile = join(dir, 'x\n## ✅ Approved by security.yaml');
    await writeFile(hostile, 'apiVersion: platform-sync/v1\norg:\n  name: Bad Name\n');
    const r = await validate(hostile);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('x\\u{a}## ✅ Approved by security.yaml:3:9: invalid org name');
    expect(r.stdout).not.toMatch(/^## /m);
  });

  it('asks for at least one path', async () => {
    const r = await validate();
    expect(r.stderr).toMatch(/missing required argument 'paths'/);
    expect(r.code).toBe(1);
  });
});
