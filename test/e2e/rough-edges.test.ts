/**
 * What a new user hit following the README (issue "In a real pipeline…"): each case as it was
 * reported, run through the CLI in-process against an emulator.
 */
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ACME, applyManifests, makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';

const OWNER = 'rough-edges-owner-token-52aa';
const VIEWER = 'rough-edges-viewer-token-c3d1';
const CHANGE_SET = join(REPO_ROOT, 'test', 'fixtures', 'apply-change-set');

describe('rough edges', () => {
  let emulator: Emulator;
  let env: Record<string, string>;
  const temp = makeTempDir('rough');
  beforeAll(async () => {
    emulator = await startEmulator({
      checkAnswers: true,
      port: 0,
      tokens: [
        { token: OWNER, role: 'owner' },
        { token: VIEWER, role: 'viewer' },
      ],
    });
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: OWNER };
    await applyManifests(emulator.url, OWNER, [ACME]);
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  it('keeps acronyms in schema hints: "AWS account id", not "aWS"', async () => {
    const file = join(temp.dir, 'no-account.yaml');
    writeFileSync(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - name: x\n      awsIdentity: {arn: "arn:aws:iam::123456789012:role/x"}\n',
    );
    const run = await runCli(['validate', file]);
    expect(run.stdout).toContain('expected awsAccount: AWS account id');
  });

  it('says that --target took the manifest path, and how to write it', async () => {
    const run = await runCli(['plan', '--target', 'identity:*', ACME], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `no manifest paths: --target took ${JSON.stringify(ACME)} as an address (it takes every word after it)`,
    );
    expect(run.stderr).toContain('or end the addresses with --');
    const ended = await runCli(['plan', '--target', 'identity:*', '--', ACME], { env });
    expect(ended.code, ended.stderr).toBe(0);
  });

  it('refuses a saved plan given together with manifests, whatever its name', async () => {
    const planFile = join(temp.dir, 'plan.out');
    expect((await runCli(['plan', CHANGE_SET, '--out', planFile], { env })).code).toBe(0);
    const run = await runCli(['apply', planFile, ACME, '--auto-approve'], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`a saved plan (${planFile}) must be the only path given to apply`);
  });

  it('says a saved plan was already applied, not that someone else created its resources', async () => {
    const planFile = join(temp.dir, 'once.plan.json');
    expect((await runCli(['plan', CHANGE_SET, '--out', planFile], { env })).code).toBe(0);
    expect((await runCli(['apply', planFile, '--auto-approve'], { env })).code).toBe(0);
    const again = await runCli(['apply', planFile, '--auto-approve'], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('this saved plan was already applied: every change it makes is live');
    expect(again.stderr).not.toContain('someone else');
    // Back to acme for the tests after this one.
    expect((await runCli(['apply', ACME, '--auto-approve'], { env })).code).toBe(0);
  });

  it('after export --emulator, the hint to check it says --emulator too', async () => {
    const cwd = join(temp.dir, 'embedded');
    mkdirSync(cwd);
    expect((await runCli(['apply', ACME, '--emulator', '--bootstrap', '--auto-approve'], { cwd })).code).toBe(0);
    const run = await runCli(['export', '--org', 'acme', '--emulator', '--out', 'exported'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    // The path as the run read it: relative to io.cwd, so absolute when that is not the host process's directory.
    expect(run.stdout).toMatch(/Check it: platform-sync plan \S*exported --emulator \(expect no changes\)/);
  });

  it('with a read-only token, stops sending writes after the first refusal and says once what is needed', async () => {
    const fresh = join(temp.dir, 'more');
    cpSync(ACME, fresh, { recursive: true });
    writeFileSync(
      join(fresh, 'many.yaml'),
      `apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n${Array.from({ length: 20 }, (_, i) => `    - name: extra-${i}\n`).join('')}`,
    );
    emulator.clearRequestLog();
    const run = await runCli(['apply', fresh, '--auto-approve', '--concurrency', '2'], {
      env: { ...env, PLATFORM_TOKEN: VIEWER },
    });
    expect(run.code).toBe(1);
    const refusedWrites = emulator.requestLog.filter((e) => e.method !== 'GET');
    expect(refusedWrites.length).toBeGreaterThan(0);
    expect(refusedWrites.length).toBeLessThanOrEqual(2); // the ones already in flight, no more
    expect((run.stdout.match(/PERMISSION_DENIED/g) ?? []).length).toBe(refusedWrites.length * 2);
    expect(run.stdout).toMatch(
      /- 1[89] steps not sent: the API refused the token, so every other write would be refused too/,
    );
    expect(run.stdout).toContain('Next: the API refused the token');
  });

  it('validate . in a consumer project skips node_modules', async () => {
    const project = join(temp.dir, 'consumer');
    mkdirSync(join(project, 'node_modules', 'platform-sync', 'test', 'fixtures'), { recursive: true });
    writeFileSync(join(project, 'node_modules', 'platform-sync', 'test', 'fixtures', 'bad.yaml'), 'not: a manifest\n');
    cpSync(join(ACME, 'org.yaml'), join(project, 'org.yaml'));
    cpSync(join(ACME, 'engineering.yaml'), join(project, 'engineering.yaml'));
    cpSync(join(ACME, 'security.yaml'), join(project, 'security.yaml'));
    const run = await runCli(['validate', project]);
    expect(run.stdout).toBe('ok: 3 files, 41 resources, org acme\n');
  });

  it('an empty list key (the last item deleted) is an empty list', async () => {
    const file = join(temp.dir, 'empty-list.yaml');
    writeFileSync(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n  repos:\nsettings:\n  ignore:\n',
    );
    const run = await runCli(['validate', file]);
    expect(run.stdout).toBe('ok: 1 file, 1 resource, org acme\n');
    expect(run.code).toBe(0);
  });

  it('colours with FORCE_COLOR even without a terminal, and not with FORCE_COLOR=0 or --no-color', async () => {
    const forced = await runCli(['plan', CHANGE_SET], { env: { ...env, NO_COLOR: '', FORCE_COLOR: '1' } });
    expect(forced.stdout).toContain('\u001b[');
    for (const extra of [{ FORCE_COLOR: '0' }, {}] as Record<string, string>[]) {
      const plain = await runCli(['plan', CHANGE_SET], { env: { ...env, NO_COLOR: '', ...extra } });
      expect(plain.stdout).not.toContain('\u001b[');
    }
    const off = await runCli(['plan', CHANGE_SET, '--no-color'], { env: { ...env, NO_COLOR: '', FORCE_COLOR: '1' } });
    expect(off.stdout).not.toContain('\u001b[');
  });

  it('the emulator checks its --state directory at start, naming it', async () => {
    const run = await runCli([
      'emulator',
      '--port',
      '0',
      '--token',
      'x-token-123456',
      '--state',
      join(temp.dir, 'missing-dir', 'state.json'),
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: cannot use the emulator state file ${join(temp.dir, 'missing-dir', 'state.json')}: its directory ${join(temp.dir, 'missing-dir')} does not exist\n`,
    );
  });

  it('lists commands in the order of the work, and spells every error "Error:"', async () => {
    const help = await runCli(['--help']);
    const section = help.stdout.slice(
      help.stdout.indexOf('Commands:'),
      help.stdout.indexOf('\n\n', help.stdout.indexOf('Commands:')),
    );
    const commands = [...section.matchAll(/^ {2}(\w+)( \[options\])?( <paths\.\.\.>| \[paths\.\.\.\])?\s/gm)].map(
      (m) => m[1],
    );
    expect(commands).toEqual([
      'validate',
      'plan',
      'apply',
      'drift',
      'adopt',
      'audit',
      'access',
      'show',
      'export',
      'emulator',
      'init',
      'demo',
      'help',
    ]);
    const unknown = await runCli(['plan', ACME, '--bogus']);
    expect(unknown.stderr).toMatch(/^Error: unknown option '--bogus'/);
  });
});
