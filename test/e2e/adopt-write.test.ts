/**
 * How `adopt --write` writes (DESIGN.md §5 "1 error, nothing written", §8): the manifests and the
 * drift report all or none, every target checked and staged before the first is replaced; a
 * manifest that is a symbolic link refused (never replaced, never written through); a replaced
 * manifest keeps its permission bits.
 */
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, openClient, runCli, useSuiteEmulator } from './cli-harness.js';

const OWNER = 'adopt-write-owner-token-8c2e';
const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'adopt');

/** Every entry under `dir` (hidden ones too: a temporary file left behind shows), with a file's bytes or a link's target. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string, prefix: string) => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path, `${prefix}${name}/`);
      else if (stat.isSymbolicLink()) out[`${prefix}${name}`] = `a link to ${readlinkSync(path)}`;
      else out[`${prefix}${name}`] = readFileSync(path, 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

describe('adopt --write', () => {
  const suite = useSuiteEmulator(OWNER, 'adopt-write');
  let fresh = 0;
  /** A copy of the fixture's manifests (the org drifted in both files). */
  const copy = (): string => {
    const dir = join(suite.dir, `case-${++fresh}`);
    cpSync(FIXTURE, dir, { recursive: true });
    return dir;
  };

  beforeAll(async () => {
    const applied = await runCli(
      ['apply', copy(), '--bootstrap', '--auto-approve', '--invite-codes', join(suite.dir, 'codes.jsonl')],
      { env: suite.env },
    );
    expect(applied.stderr).toBe('');
    // Drift in both files: a repo's description (org.yaml), an identity's (engineering.yaml).
    const client = openClient(suite.emulator.url, OWNER);
    try {
      const org = (await client.list('group', { name: 'adoptco' })).items[0]!;
      const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { description: 'Renamed in the console' }, ['description']);
      const engineering = (await client.list('group', { childrenOf: org.uid, name: 'engineering' })).items[0]!;
      const ci = (await client.list('identity', { childrenOf: engineering.uid, name: 'ci-bot' })).items[0]!;
      await client.update('identity', ci.uid, { description: 'CI, edited in the console' }, ['description']);
    } finally {
      await client.close();
    }
  });

  it('a --report that cannot be written: an error naming it before any manifest is written', async () => {
    const dir = copy();
    const before = snapshot(dir);
    const report = join(suite.dir, 'no-such-dir', 'r.md');
    const run = await runCli(['adopt', dir, '--write', '--report', report], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `cannot write the drift report to ${report}: its directory ${join(suite.dir, 'no-such-dir')} does not exist; nothing was written`,
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('a --report that is a directory: refused before any manifest is written', async () => {
    const dir = copy();
    const report = join(dir, 'reports');
    mkdirSync(report);
    const before = snapshot(dir);
    const run = await runCli(['adopt', dir, '--write', '--report', report], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${report} is a directory; name a file; nothing was written`);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a manifest that is a symbolic link: an error naming it, nothing written, the link and the file it leads to as they were', async () => {
    const dir = copy();
    mkdirSync(join(dir, 'store'));
    renameSync(join(dir, 'org.yaml'), join(dir, 'store', 'org.yaml'));
    renameSync(join(dir, 'engineering.yaml'), join(dir, 'store', 'engineering.yaml'));
    symlinkSync(join('store', 'org.yaml'), join(dir, 'org.yaml'));
    const before = snapshot(dir);
    const files = [join(dir, 'org.yaml'), join(dir, 'store', 'engineering.yaml')];
    const preview = await runCli(['adopt', ...files], { env: suite.env });
    expect(preview.code, preview.stderr).toBe(2); // it reads through the link: the diff is there
    const run = await runCli(['adopt', ...files, '--write'], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `cannot write the manifest to ${join(dir, 'org.yaml')}: it is a symbolic link, which is neither replaced nor written through; name the file it leads to; nothing was written`,
    );
    expect(lstatSync(join(dir, 'org.yaml')).isSymbolicLink()).toBe(true);
    expect(snapshot(dir)).toEqual(before);
  });

  it('a replaced manifest keeps its permission bits', async () => {
    const dir = copy();
    chmodSync(join(dir, 'org.yaml'), 0o600);
    chmodSync(join(dir, 'engineering.yaml'), 0o640);
    const run = await runCli(['adopt', dir, '--write'], { env: suite.env, cwd: dir });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toContain('Wrote org.yaml');
    expect(readFileSync(join(dir, 'org.yaml'), 'utf8')).toContain('Renamed in the console');
    expect(statSync(join(dir, 'org.yaml')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'engineering.yaml')).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir).sort()).toEqual(['engineering.yaml', 'org.yaml']); // nothing staged left beside them
  });
});
