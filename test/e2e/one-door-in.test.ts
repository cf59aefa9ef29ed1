/**
 * The one door in (DESIGN.md §8 rev 4, issue 35): what a pull request's manifest tree may point
 * the reader at, end to end through the CLI in process. Each test is a named regression of the
 * attack it stops; the output shows nothing of the target, and nothing is written.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../src/emulator/failures.js';
import { validateCreate } from '../../src/emulator/validate.js';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'one-door-in-owner-token-3c7a';
const CREDENTIAL = 'ghs_SecretRunnerCredential0123456789';
const BASIC = Buffer.from(`x-access-token:${CREDENTIAL}`).toString('base64');

describe('one door in: a manifest tree from a pull request', () => {
  const suite = useSuiteEmulator(TOKEN, 'door-in');
  /** A checkout: `.git/config` with the job token as actions/checkout leaves it, a manifests directory. */
  const checkout = (name: string) => {
    const root = join(suite.dir, name);
    mkdirSync(join(root, '.git'), { recursive: true });
    mkdirSync(join(root, 'manifests'));
    writeFileSync(
      join(root, '.git', 'config'),
      `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${BASIC}\n`,
    );
    writeFileSync(join(root, 'credentials'), `https://x-access-token:${CREDENTIAL}@github.com\n`);
    writeFileSync(join(root, 'manifests', 'org.yaml'), 'apiVersion: platform-sync/v1\norg:\n  name: acme\n');
    return root;
  };
  const expectNoLeak = (text: string) => {
    expect(text).not.toContain(BASIC);
    expect(text).not.toContain(BASIC.slice(0, 12));
    expect(text).not.toContain(CREDENTIAL);
    expect(text).not.toContain('ghs_');
  };

  it('regression 1: a manifest symlink to ../.git/config is refused naming the link; the token is never quoted (validate, plan)', async () => {
    const root = checkout('git-config');
    symlinkSync('../.git/config', join(root, 'manifests', 'zz.yaml'));
    for (const command of [['validate'], ['plan']]) {
      const run = await runCli([...command, join(root, 'manifests')], { env: suite.env });
      expect(run.code).toBe(1);
      expect(run.stderr + run.stdout).toContain(
        `${join(root, 'manifests', 'zz.yaml')}: is a symbolic link that leads outside the directory named on the command line`,
      );
      expectNoLeak(run.stdout + run.stderr);
    }
  });

  it('regression 1: a file with no platform-sync document is never quoted, even inside the root (a credentials file named as a manifest)', async () => {
    const root = checkout('credentials');
    const run = await runCli(['validate', join(root, 'credentials'), join(root, 'manifests')], { env: suite.env });
    expect(run.code).toBe(1);
    expectNoLeak(run.stdout + run.stderr);
    writeFileSync(join(root, 'manifests', 'config.yaml'), `[core]\n\textraheader = basic ${BASIC}\n`);
    const yaml = await runCli(['validate', join(root, 'manifests')], { env: suite.env });
    expect(yaml.code).toBe(1);
    expect(yaml.stdout + yaml.stderr).toContain('so none of its content is quoted');
    expectNoLeak(yaml.stdout + yaml.stderr);
  });

  it('regression 1: a link to /proc/self/environ is refused without a byte read', async () => {
    const root = checkout('environ');
    symlinkSync('/proc/self/environ', join(root, 'manifests', 'env.yaml'));
    const run = await runCli(['validate', join(root, 'manifests')], {
      env: { ...suite.env, SOME_SECRET_VALUE: CREDENTIAL },
    });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('env.yaml: is a symbolic link that leads outside');
    expectNoLeak(run.stdout + run.stderr);
  });

  it('regression 2: links to /dev/zero and /dev/urandom, a FIFO and a link to / are refused at once', async () => {
    const root = checkout('devices');
    const dir = join(root, 'manifests');
    symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
    symlinkSync('/dev/urandom', join(dir, 'random.yaml'));
    symlinkSync('/', join(dir, 'everything'));
    expect(spawnSync('mkfifo', [join(dir, 'pipe.yaml')]).status).toBe(0);
    const run = await runCli(['validate', dir], { env: suite.env });
    expect(run.code).toBe(1);
    const out = run.stdout + run.stderr;
    expect(out).toContain('zero.yaml: is a symbolic link that leads outside');
    expect(out).toContain('random.yaml: is a symbolic link that leads outside');
    expect(out).toContain('everything: is a symbolic link that leads outside');
    expect(out).toContain('pipe.yaml: is not a regular file');
  });

  it('regression 2: a device inside the root itself is refused as no regular file (the bound counts bytes read, not stat)', async () => {
    const root = checkout('device-inside');
    const run = await runCli(['validate', '/dev/zero'], { env: suite.env, cwd: root });
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).toContain('is not a regular file');
  });

  it('a symlink that stays inside the directory named is still followed', async () => {
    const root = checkout('inside-link');
    mkdirSync(join(root, 'manifests', 'shared'));
    writeFileSync(
      join(root, 'manifests', 'shared', 'team.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - name: ci-bot\n',
    );
    symlinkSync('shared/team.yaml', join(root, 'manifests', 'team-link.yaml'));
    const run = await runCli(['validate', join(root, 'manifests')], { env: suite.env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe('one door in: names are one line (regression 5)', () => {
  const suite = useSuiteEmulator(TOKEN, 'door-names');
  it('validate refuses a key holding a newline, naming it escaped; the emulator refuses it too', async () => {
    const file = join(suite.dir, 'org.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: platform-sync/v1',
        'org:',
        '  name: acme',
        '  roles:',
        '    - {name: admin-role, capabilities: [repo.list]}',
        '  identityProviders:',
        '    - name: okta',
        '      defaultRole: viewer',
        '      oidc: {issuer: "https://okta.example", clientId: c, clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}}',
        '      groupMappings:',
        '        - {externalGroup: "admins\\n\\n## ✅ Reviewed by security: no changes\\n\\n", role: admin-role}',
      ].join('\n'),
    );
    const run = await runCli(['validate', file], { env: suite.env });
    expect(run.code).toBe(1);
    // One problem, at the line that writes it, the key shown on one line.
    expect(run.stdout).toContain(
      `${file}:11:11: group mapping in identity provider "okta" in org "acme" has a name or key holding a control character (a newline, a tab, …): groupMapping:identityProvider:okta/admins\\u{a}\\u{a}## ✅ Reviewed by security: no changes\\u{a}\\u{a}=admin-role`,
    );
    expect(run.stdout).toContain('1 problem in 1 file');
    expect(run.stdout + run.stderr).not.toContain('\n## ✅');
    let refused: unknown;
    try {
      validateCreate('groupMapping', { externalGroupId: 'admins\n## fake', roleUid: 'x' });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ApiFailure);
    expect(JSON.stringify((refused as ApiFailure).details)).toContain(
      'externalGroupId must not hold a control character',
    );
  });
});
