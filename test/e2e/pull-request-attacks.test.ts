/**
 * What a pull request's manifests may try (DESIGN.md §8), end to end: the CLI in process against
 * the emulator, its request log showing zero writes, the output showing nothing that leaked.
 * `plan` runs on the pull request; `apply` after merge, with a write token and the operator's
 * secrets.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openClient, runCli, useSuiteEmulator, type CliRun } from './cli-harness.js';

const TOKEN = 'pull-request-attacks-owner-token-5d2e';
const OUTSIDE_SECRET = 'outside-file-content-must-never-leak-91f';
const ISSUER = 'https://token.actions.githubusercontent.com';

function writes(suite: { emulator: { requestLog: { method: string }[] } }) {
  return suite.emulator.requestLog.filter((e) => e.method !== 'GET');
}

function idpManifest(secret: string, extra = ''): string {
  return [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  identityProviders:',
    '    - name: okta',
    '      defaultRole: viewer',
    `      oidc: {issuer: "https://evil.example", clientId: c, clientSecret: ${secret}}`,
    extra,
  ].join('\n');
}

/**
 * Runs a pull request's manifest as CI does, `plan` and then (after merge) `apply
 * --auto-approve`, with the same `extra` arguments: both must refuse it (exit 1). The runs, for
 * what each must say.
 */
async function refusedByPlanAndApply(
  suite: { env: Record<string, string> },
  file: string,
  extra: string[] = [],
  planWarnsOnly = false,
): Promise<CliRun[]> {
  const runs: CliRun[] = [];
  for (const command of [
    ['plan', file, ...extra],
    ['apply', file, ...extra, '--auto-approve'],
  ]) {
    const run = await runCli(command, { env: suite.env });
    // A secret is read at apply: plan only warns about one it cannot find (DESIGN.md §3 rev 4).
    const warnsOnly = planWarnsOnly && command[0] === 'plan';
    expect(run.code, run.stdout + run.stderr).toBe(warnsOnly ? 0 : 1);
    if (warnsOnly) expect(run.stderr).toContain('Warning: ');
    runs.push(run);
  }
  return runs;
}

function expectNothingLeaked(run: CliRun, ...secrets: string[]): void {
  for (const s of secrets) expect(run.stdout + run.stderr).not.toContain(s);
}

describe('secrets a pull request names', () => {
  const suite = useSuiteEmulator(TOKEN, 'pr-secrets', async (emulator) => {
    const { applyManifests } = await import('./cli-harness.js');
    writeFileSync(join(suite.dir, 'org.yaml'), 'apiVersion: platform-sync/v1\norg:\n  name: acme\n');
    await applyManifests(emulator.url, TOKEN, [join(suite.dir, 'org.yaml')]);
  });
  const secretsDir = join(suite.dir, 'secrets');
  const manifest = (name: string, secret: string) => {
    const file = join(suite.dir, `${name}.yaml`);
    writeFileSync(file, idpManifest(secret));
    return file;
  };

  it('fromEnv naming the write token (or anything but PLATFORM_SYNC_SECRET_*) is refused before any request', async () => {
    const file = manifest('token', '{fromEnv: PLATFORM_TOKEN}');
    suite.emulator.clearRequestLog();
    for (const run of await refusedByPlanAndApply(suite, file)) {
      expect(run.stderr).toContain('fromEnv "PLATFORM_TOKEN" may not be read');
      expectNothingLeaked(run, TOKEN);
    }
    expect(suite.emulator.requestLog).toEqual([]);
  });

  it('absolute and ../ paths are refused before any request', async () => {
    suite.emulator.clearRequestLog();
    for (const path of ['/etc/passwd', '../../etc/passwd']) {
      const run = await runCli(['plan', manifest('path', `{fromFile: "${path}"}`)], { env: suite.env });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/must be a path relative to the secrets directory|may not contain "\.\."/);
    }
    expect(suite.emulator.requestLog).toEqual([]);
  });

  it('a symlink out of the secrets directory, and /dev/zero, are refused by plan and apply with zero writes', async () => {
    mkdirSync(secretsDir, { recursive: true });
    const outside = join(suite.dir, 'outside.txt');
    writeFileSync(outside, OUTSIDE_SECRET);
    symlinkSync(outside, join(secretsDir, 'okta'));
    symlinkSync('/dev/zero', join(secretsDir, 'zero'));
    for (const name of ['okta', 'zero']) {
      const file = manifest(`link-${name}`, `{fromFile: ${name}}`);
      suite.emulator.clearRequestLog();
      for (const run of await refusedByPlanAndApply(suite, file, ['--secrets-dir', secretsDir], true)) {
        expect(run.stderr).toContain('resolves outside the secrets directory');
        expectNothingLeaked(run, OUTSIDE_SECRET, outside);
      }
      expect(writes(suite)).toEqual([]);
    }
  });

  it('a FIFO is refused at once, never waited on', async () => {
    mkdirSync(secretsDir, { recursive: true });
    const fifo = join(secretsDir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const file = manifest('fifo', '{fromFile: fifo}');
    suite.emulator.clearRequestLog();
    for (const run of await refusedByPlanAndApply(suite, file, ['--secrets-dir', secretsDir], true)) {
      expect(run.stderr).toContain('is not a regular file');
    }
    expect(writes(suite)).toEqual([]);
  });

  it('plan never reads a value; apply reads it, sends it once, and redacts it where live data repeats it', async () => {
    mkdirSync(secretsDir, { recursive: true });
    const value = 'okta-client-secret-value-7781';
    writeFileSync(join(secretsDir, 'real'), `${value}\n`);
    const file = manifest('real', '{fromFile: real}');
    // The value already sits in live data (a repo description): apply must not print it.
    const client = openClient(suite.env.PLATFORM_API_URL!, TOKEN);
    try {
      const org = (await client.list('group', { name: 'acme' })).items[0]!;
      await client.create('repo', org.uid, { name: 'leaky', description: `pasted ${value}` });
    } finally {
      await client.close();
    }
    const plan = await runCli(['plan', file, '--secrets-dir', secretsDir], { env: suite.env });
    expect(plan.code, plan.stderr).toBe(0);
    // The plan says where the secret comes from (inside the operator's directory), never what it is.
    expect(plan.stdout).toContain(`(sensitive: read from "real" in the operator's secrets directory at apply time)`);
    // plan does not know the value, so it cannot have printed it anywhere but where live data shows it.
    suite.emulator.clearRequestLog();
    const apply = await runCli(['apply', file, '--secrets-dir', secretsDir, '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    expectNothingLeaked(apply, value);
    expect(apply.stdout).toContain('[REDACTED]');
    expect(writes(suite).length).toBeGreaterThan(0);
  });

  it('a value shorter than 16 characters is refused by apply', async () => {
    const file = manifest('short', '{fromEnv: PLATFORM_SYNC_SECRET_SHORT}');
    suite.emulator.clearRequestLog();
    const run = await runCli(['apply', file, '--rotate-secrets', '--auto-approve'], {
      env: { ...suite.env, PLATFORM_SYNC_SECRET_SHORT: 'tiny' },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('shorter than 16 characters');
    expect(writes(suite)).toEqual([]);
  });
});

describe('renames against ignore and protect', () => {
  const suite = useSuiteEmulator(TOKEN, 'pr-renames');
  const base = (team: string, extra: string[] = []) =>
    [
      'apiVersion: platform-sync/v1',
      'org:',
      '  name: acme',
      '  groups:',
      `    - name: ${team}`,
      ...extra,
      'settings:',
      '  ignore: ["identity:*/human-*"]',
      '  protect: ["repo:team/*"]',
      '',
    ].join('\n');

  async function setUp(): Promise<void> {
    const file = join(suite.dir, 'setup.yaml');
    writeFileSync(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  groups:\n    - name: team\n      repos: [{name: legacy}]\n',
    );
    expect((await runCli(['apply', file, '--bootstrap', '--auto-approve'], { env: suite.env })).code).toBe(0);
    const client = openClient(suite.env.PLATFORM_API_URL!, TOKEN);
    try {
      const team = (await client.list('group', { name: 'team' })).items[0]!;
      const carol = await client.create('identity', team.uid, {
        name: 'human-carol',
        claimMatch: { issuer: 'https://accounts.acme.dev', subject: 'carol' },
      });
      const roles = (await client.list('role', { name: 'owner' })).items;
      const org = (await client.list('group', { name: 'acme' })).items[0]!;
      await client.create('roleBinding', org.uid, {
        identityUid: carol.uid,
        roleUid: roles.find((r) => !r.uid.includes('/'))!.uid,
      });
    } finally {
      await client.close();
    }
  }

  it('renamedFrom onto an ignored identity (a takeover) is refused with zero writes', async () => {
    await setUp();
    const file = join(suite.dir, 'takeover.yaml');
    writeFileSync(
      file,
      base('team', [
        '      repos: [{name: legacy}]',
        '      identities:',
        `        - {name: takeover, renamedFrom: human-carol, claimMatch: {issuer: "${ISSUER}", subject: "repo:evil/x:ref:refs/heads/main"}}`,
      ]),
    );
    suite.emulator.clearRequestLog();
    for (const run of await refusedByPlanAndApply(suite, file)) {
      expect(run.stdout).toContain('is renamedFrom "human-carol", but identity:team/human-carol is ignored');
    }
    expect(writes(suite)).toEqual([]);
  });

  it('renaming the parent neither unprotects nor un-ignores what is beneath it', async () => {
    const file = join(suite.dir, 'rename.yaml');
    writeFileSync(file, base('squad', ['      renamedFrom: team']));
    suite.emulator.clearRequestLog();
    const plan = await runCli(['plan', file], { env: suite.env });
    expect(plan.code).toBe(1);
    expect(plan.stdout).toContain('repo:squad/legacy (as repo:team/legacy) is protected');
    expect(plan.stdout).not.toMatch(/- delete identity:squad\/human-carol|- delete roleBinding/);
    const apply = await runCli(['apply', file, '--auto-approve'], { env: suite.env });
    expect(apply.code).toBe(1);
    expect(writes(suite)).toEqual([]);
  });
});

describe('globs, look-alikes, other orgs and hidden text', () => {
  const suite = useSuiteEmulator(TOKEN, 'pr-misc');

  it('a 16-star glob is validated and planned at once', async () => {
    const file = join(suite.dir, 'glob.yaml');
    writeFileSync(
      file,
      `apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos: [{name: ${'a'.repeat(40)}}]\nsettings:\n  ignore: ["repo:${'*a'.repeat(16)}*c"]\n`,
    );
    const run = await runCli(['validate', file]);
    expect(run.code, run.stdout).toBe(0);
    expect((await runCli(['plan', file, '--bootstrap'], { env: suite.env })).code).toBe(0);
  });

  it('a look-alike issuer is refused naming its code point, before any request', async () => {
    const file = join(suite.dir, 'lookalike.yaml');
    writeFileSync(
      file,
      `apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - {name: ci, claimMatch: {issuer: "https://t\u043eken.actions.githubusercontent.com", subject: x}}\n`,
    );
    suite.emulator.clearRequestLog();
    const run = await runCli(['plan', file, '--bootstrap'], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('U+043E, which is not ASCII');
    expect(suite.emulator.requestLog).toEqual([]);
  });

  it("pinning another org's uid is refused, naming its live name, with zero writes", async () => {
    const victim = join(suite.dir, 'victim.yaml');
    writeFileSync(victim, 'apiVersion: platform-sync/v1\norg:\n  name: victim\n  repos: [{name: crown-jewels}]\n');
    expect((await runCli(['apply', victim, '--bootstrap', '--auto-approve'], { env: suite.env })).code).toBe(0);
    const client = openClient(suite.env.PLATFORM_API_URL!, TOKEN);
    const uid = (await client.list('group', { name: 'victim' })).items[0]!.uid;
    await client.close();
    const mine = join(suite.dir, 'mine.yaml');
    writeFileSync(mine, `apiVersion: platform-sync/v1\norg:\n  name: mine\n  uid: ${uid}\n  repos: [{name: mine}]\n`);
    suite.emulator.clearRequestLog();
    for (const run of await refusedByPlanAndApply(suite, mine)) {
      expect(run.stdout).toContain('that root group is named "victim" live, not "mine"');
    }
    expect(writes(suite)).toEqual([]);
  });

  it('raw ESC, BEL, CR, C1, bidi and zero-width characters never reach any output format or the step summary', async () => {
    const hostile = 'x\u001b[2J\u0007\r\u009b\u202eevil\u200b\ufeff';
    const file = join(suite.dir, 'hidden.yaml');
    writeFileSync(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: hidden\n  repos: [{name: app, description: "declared"}]\n',
    );
    expect((await runCli(['apply', file, '--bootstrap', '--auto-approve'], { env: suite.env })).code).toBe(0);
    const client = openClient(suite.env.PLATFORM_API_URL!, TOKEN);
    try {
      const org = (await client.list('group', { name: 'hidden' })).items[0]!;
      const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { description: hostile }, ['description']);
      await client.create('repo', org.uid, { name: 'intruder', description: hostile });
    } finally {
      await client.close();
    }
    const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;
    const summary = join(suite.dir, 'summary.md');
    for (const command of ['plan', 'drift']) {
      for (const format of ['text', 'json', 'markdown']) {
        const run = await runCli([command, file, '--format', format], {
          env: { ...suite.env, GITHUB_STEP_SUMMARY: summary },
        });
        expect(run.code, `${command} ${format}: ${run.stderr}`).toBe(command === 'drift' ? 2 : 0);
        expect(RAW.test(run.stdout + run.stderr), `${command} --format ${format}`).toBe(false);
        expect(run.stdout, `${command} --format ${format}`).toMatch(/evil/);
      }
    }
    const { readFileSync } = await import('node:fs');
    const written = readFileSync(summary, 'utf8');
    expect(written).toContain('evil');
    expect(RAW.test(written)).toBe(false);
  });
});

describe('the size of a manifest set', () => {
  const suite = useSuiteEmulator(TOKEN, 'pr-size');

  it('is bounded as a whole (--max-manifest-bytes), before any file is read or any request sent', async () => {
    const dir = join(suite.dir, 'many');
    mkdirSync(dir);
    const doc = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n${Array.from({ length: 50 }, (_, i) => `    - {name: r${i}, description: "${'x'.repeat(100)}"}`).join('\n')}\n`;
    for (let i = 0; i < 4; i++)
      writeFileSync(
        join(dir, `part-${i}.yaml`),
        doc
          .replace('repos:', i === 0 ? 'repos:' : 'groups:\n    - name: g' + i + '\n      repos:')
          .replace(/\n {4}- \{name/g, i === 0 ? '\n    - {name' : '\n        - {name'),
      );
    const limit = String(doc.length * 2);
    const validate = await runCli(['validate', dir, '--max-manifest-bytes', limit]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(
      `over the limit of ${limit} bytes for a manifest set (--max-manifest-bytes); nothing was read`,
    );
    suite.emulator.clearRequestLog();
    const plan = await runCli(['plan', dir, '--bootstrap', '--max-manifest-bytes', limit], { env: suite.env });
    expect(plan.code).toBe(1);
    expect(suite.emulator.requestLog).toEqual([]);
    // Under the default bound (64 MiB) the same set is fine.
    expect((await runCli(['validate', dir])).code).toBe(0);
  });
});
