/**
 * The help and the hints say what is true: paths are required, a refused plan exits 1, the
 * saved-plan hint keeps --emulator, a file that is no manifest says so once, and a misspelt
 * identity of another group gets its path suggested.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { ACME, makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';

describe('help and hints', () => {
  const temp = makeTempDir('help-hints');
  afterAll(() => temp.remove());

  it('plan and apply show their paths as required, and plan says a refused plan exits 1', async () => {
    const plan = await runCli(['plan', '--help']);
    expect(plan.stdout).toContain('Usage: platform-sync plan [options] <paths...>');
    expect(plan.stdout).toContain('1 error or a refused plan');
    expect((await runCli(['apply', '--help'])).stdout).toContain(
      'Usage: platform-sync apply [options] <paths...|plan.json>',
    );
    expect((await runCli(['emulator', '--help'])).stdout).not.toContain('atomically after every change');
  });

  it('refuses a bad --max-manifest-bytes or --lock-timeout by name, reading nothing and creating nothing', async () => {
    const validate = await runCli(['validate', ACME, '--max-manifest-bytes', '12kb']);
    expect(validate.code).toBe(1);
    expect(validate.stderr).toContain('--max-manifest-bytes must be a whole number of bytes, got "12kb"');
    const cwd = join(temp.dir, 'bad-timeout');
    const { mkdirSync, existsSync } = await import('node:fs');
    mkdirSync(cwd);
    const plan = await runCli(
      ['apply', ACME, '--emulator', '--bootstrap', '--auto-approve', '--lock-timeout', 'soon'],
      { cwd },
    );
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('--lock-timeout must be a number of seconds from 0 to 86400, got "soon"');
    expect(existsSync(join(cwd, '.platform-sync'))).toBe(false);
  });

  it('the saved-plan hint keeps --emulator', async () => {
    const out = join(temp.dir, 'plan.json');
    const run = await runCli(['plan', ACME, '--emulator', '--bootstrap', '--out', out], { cwd: temp.dir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `apply exactly this plan with: platform-sync apply ${out} --manifests ${ACME} --emulator`,
    );
  });

  it('validate of a file that is no manifest says so once', async () => {
    const run = await runCli(['validate', join(REPO_ROOT, 'README.md')]);
    expect(run.code).toBe(1);
    expect(run.stdout.trim().split('\n')).toHaveLength(2);
    expect(run.stdout).toContain('README.md: not a manifest');
  });

  it('a misspelt identity of another group gets its path from the org root suggested', () => {
    const text =
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities: [{name: release-bot}]\n  groups:\n    - name: eng\n      roleBindings: [{identity: releas-bot, role: viewer}]\n';
    const messages = validateManifestTexts([{ file: 'm.yaml', text }]).diagnostics.map((d) => d.message);
    expect(messages.join('\n')).toContain('did you mean "/release-bot"?');
    writeFileSync(join(temp.dir, 'x.yaml'), text);
  });
});
