/**
 * The package installed, then run through its bin — the README's npm path (`init`, `validate`,
 * `plan --emulator`) from the bundle, a member's invite encrypted with openpgp — and the GitHub
 * Action as it comes with the package: its steps run from `./node_modules/platform-sync` as a
 * runner runs them, with no npm to call.
 *
 * Installed two ways (test/support/install-package.ts), the same tests on each:
 * - `npm test`: the files `npm pack` would ship, as npm's own packlist lists them (no tarball),
 *   copied into the project's node_modules with their modes; the bin linked in node_modules/.bin
 *   as npm links it; package.json's `dependencies`, exactly those, linked to this repository's
 *   copies. So it fails when a file the CLI needs at run time is left out of `files` (the bundle's
 *   lazy file, say: `plan --emulator` cannot load the emulator), when a package the code requires
 *   at run time on a path these tests take is only a devDependency (what the bundle inlines is not
 *   required at run time; a path no test here takes — access rules' `refa` — is not checked, nor
 *   the library entry), when the bin loses its shebang — or its executable bit, which `npm pack`
 *   and npm's install set again: stricter than npm there.
 * - `npm run test:deep` (PACKAGE_INSTALL=npm): `npm pack` to a tarball and `npm ci --offline` from
 *   it into an empty project, as users install it (≈7 s of CPU, hence not in `npm test`). Only it
 *   checks what npm does beyond listing the files: the tarball itself (written, gzipped, unpacked
 *   by tar), the production dependencies as npm lays out the lockfile's entries in a project of
 *   its own (hoisted, with their own dependencies — not this repository's tree), and npm's own
 *   linking of the bin.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_CACHE_ENV, makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';
import { parse } from 'yaml';
import { splitArgs } from '../../src/action/run.js';
import { installFiles, installWithNpm } from '../support/install-package.js';
import { decryptWith, makeKeyPair } from '../support/openpgp-keys.js';

// PACKAGE_INSTALL=npm (test:deep): installed as users install it; else its files as npm lists them.
const withNpm = process.env.PACKAGE_INSTALL === 'npm';

describe(`the installed package (${withNpm ? 'npm pack, npm ci --offline' : 'the files npm packs'})`, () => {
  const temp = makeTempDir('installed');
  const project = join(temp.dir, 'project');
  const installed = join(project, 'node_modules', 'platform-sync');
  afterAll(() => temp.remove());

  beforeAll(async () => {
    if (withNpm) installWithNpm(REPO_ROOT, project, temp.dir);
    else await installFiles(REPO_ROOT, project);
  }, 120_000);

  /** How the installed bin would load: the bundle or the modules. */
  function loading(): string {
    const script = `const { loadBundle } = await import(${JSON.stringify(join(installed, 'dist/src/cli/launch.js'))});
      const b = loadBundle(${JSON.stringify(join(installed, 'dist/platform-sync.cjs'))}, ${JSON.stringify(join(installed, 'dist/src/cli/main.js'))});
      process.stdout.write(b ? 'bundle' : 'modules');`;
    return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  }

  function bin(args: string[]): { code: number | null; stdout: string; stderr: string } {
    const r = spawnSync(join(project, 'node_modules', '.bin', 'platform-sync'), args, {
      cwd: project,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        NO_COLOR: '1',
        PLATFORM_SYNC_SECRET_ACME_OKTA: 'acme-okta-secret-made-up-for-tests',
        ...CODE_CACHE_ENV,
      },
    });
    // A bin that cannot be run at all (not executable, no such file) has no stderr: the error says why.
    return { code: r.status, stdout: r.stdout, stderr: r.stderr + (r.error?.message ?? '') };
  }

  // It runs from the bundle: validate and plan --emulator from the bundle are the README's path below (they
  // were a case of their own, which spawned the same two commands again).
  it("runs the README's npm path as written, from the installed package, from the bundle: init, validate, plan on an emulator; the example it names is shipped (issue 50)", () => {
    expect(loading()).toBe('bundle');
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((b) => b.includes('npm install --save-dev'))!;
    const commands = block
      .split('\n')
      .map((l) => /^npx --no-install platform-sync (.*?)(?:\s+#.*)?$/.exec(l.trim())?.[1])
      .filter((c): c is string => c !== undefined);
    expect(commands.length).toBeGreaterThanOrEqual(3);
    for (const command of commands) {
      const run = bin(splitArgs(command));
      expect(run.code, `${command}\n${run.stdout}${run.stderr}`).toBe(0);
    }
    const example = /`(node_modules\/platform-sync\/examples\/acme)`/.exec(readme)![1]!;
    const validate = bin(['validate', example]);
    expect(validate.code, validate.stderr).toBe(0);
    expect(existsSync(join(project, 'node_modules', 'platform-sync', 'docs', 'manifests.md'))).toBe(true);
  });

  // One member's whole way, from the bundle, with the code encrypted to the inviter's key (they were
  // two cases, each applying from a cold process: issue 63).
  it("the bundled CLI takes a member through invite, accept-invite and present on the embedded emulator, the code encrypted to the inviter's key with openpgp from the installed dependencies (issue 60)", async () => {
    const dir = join(project, 'members-lifecycle');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: bundled\n  members:\n    - {email: alice@acme.dev, role: viewer}\n',
    );
    const inviter = await makeKeyPair();
    writeFileSync(join(dir, 'inviter.asc'), inviter.publicKey);
    const inDir = (args: string[]) =>
      spawnSync(join(project, 'node_modules', '.bin', 'platform-sync'), args, {
        cwd: dir,
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...CODE_CACHE_ENV },
      });
    const applied = inDir([
      'apply',
      'org.yaml',
      '--emulator',
      '--bootstrap',
      '--auto-approve',
      '--invite-codes',
      'invites.jsonl',
      '--invite-codes-recipient',
      'inviter.asc',
    ]);
    expect(applied.status, applied.stderr).toBe(0);
    const line = JSON.parse(readFileSync(join(dir, 'invites.jsonl'), 'utf8')) as {
      email: string;
      code: string;
      encryptedTo: string;
    };
    expect(line.encryptedTo).toBe(inviter.fingerprint);
    const code = await decryptWith(inviter, line.code);
    expect(code).toMatch(/^\S{16,}$/);
    // The inviter hands the opened code over; the person accepts it.
    writeFileSync(join(dir, 'opened.jsonl'), `${JSON.stringify({ email: line.email, code })}\n`);
    const accepted = inDir(['accept-invite', '--emulator', '--code-file', 'opened.jsonl', '--email', 'alice@acme.dev']);
    expect(accepted.status, accepted.stderr).toBe(0);
    // The state the bundle's processes left, planned by this process's CLI (a third cold process
    // proved nothing more: issue 63): alice is present (no longer pending), nothing to do.
    const plan = await runCli(
      ['plan', join(dir, 'org.yaml'), '--emulator', '--detailed-exitcode', '--format', 'json'],
      {
        cwd: dir,
      },
    );
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).members).toEqual([expect.objectContaining({ state: 'present' })]);
  });

  it('holds its LICENSE, source maps that carry their sources (src/ is not shipped), and exports its CLI as platform-sync/cli', () => {
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toContain('MIT License');
    // What `platform-sync demo` and `init` start from ships with it (issue 40).
    expect(existsSync(join(installed, 'examples', 'acme', 'org.yaml'))).toBe(true);
    expect(existsSync(join(installed, 'examples', 'github-actions', 'platform-sync.yml'))).toBe(true);
    expect(existsSync(join(installed, 'src'))).toBe(false);
    // No code cache of the build's Node: V8 refuses it on any other (issue 61).
    expect(existsSync(join(installed, 'dist', 'platform-sync.cjs.cache'))).toBe(false);
    const maps = readdirSync(join(installed, 'dist', 'src'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.js.map'),
    );
    expect(maps.length).toBeGreaterThan(50);
    for (const map of maps) {
      const parsed = JSON.parse(readFileSync(join(installed, 'dist', 'src', map), 'utf8')) as {
        sources: string[];
        sourcesContent?: unknown[];
      };
      expect(parsed.sourcesContent?.length, map).toBe(parsed.sources.length);
    }
    const script = "const m = await import('platform-sync/cli'); process.stdout.write(typeof m.main);";
    expect(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' }),
    ).toBe('function');
  });

  it('is a GitHub Action as installed: `uses: ./node_modules/platform-sync` runs the installed CLI, with nothing installed or built (issue 60)', () => {
    type Step = { uses?: string; run?: string; shell?: string; env?: Record<string, string> };
    type Action = { inputs: Record<string, { default?: string }>; runs: { using: string; steps: Step[] } };
    const action = parse(readFileSync(join(installed, 'action.yml'), 'utf8')) as Action;
    expect(action.runs.using).toBe('composite');
    // The workspace: the repository with its manifests (the package installed by the step before).
    mkdirSync(join(project, 'manifests'), { recursive: true });
    writeFileSync(
      join(project, 'manifests', 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: packaged\n  repos:\n    - {name: one}\n',
    );
    // No npm or npx on the PATH of these steps: one that runs them leaves a mark and fails.
    const noNpm = join(temp.dir, 'no-npm');
    mkdirSync(noNpm, { recursive: true });
    const mark = join(temp.dir, 'npm-was-run');
    for (const tool of ['npm', 'npx']) {
      writeFileSync(join(noNpm, tool), `#!/bin/sh\necho "${tool} $*" >> '${mark}'\nexit 1\n`);
      chmodSync(join(noNpm, tool), 0o755);
    }
    const runner = join(temp.dir, 'runner-temp');
    mkdirSync(runner, { recursive: true });
    const files = { GITHUB_OUTPUT: join(runner, 'output'), GITHUB_STEP_SUMMARY: join(runner, 'summary.md') };
    for (const file of Object.values(files)) writeFileSync(file, '');
    const inputs: Record<string, string> = { command: 'plan', paths: 'manifests/', args: '--emulator --bootstrap' };
    // `${{ inputs.NAME }}` as the runner fills it in: the input given, or its default.
    const evaluate = (text: string): string =>
      text.replace(/\$\{\{\s*(inputs\.([\w-]+)|github\.token)\s*\}\}/g, (_m, _e, name?: string) =>
        name === undefined ? '' : (inputs[name] ?? evaluate(action.inputs[name]?.default ?? '')),
      );
    const log: string[] = [];
    for (const [i, step] of action.runs.steps.entries()) {
      // setup-node puts the node-version input's Node on the PATH: this test's Node is there already.
      if (step.uses !== undefined) continue;
      expect(step.shell).toBe('bash');
      const script = join(runner, `step-${i}.sh`);
      writeFileSync(script, step.run!);
      const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(v)]));
      const runnerEnv = {
        NO_COLOR: '1',
        ...CODE_CACHE_ENV,
        GITHUB_WORKSPACE: project,
        GITHUB_ACTION_PATH: installed,
        RUNNER_TEMP: runner,
        ...files,
      };
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
        cwd: project,
        encoding: 'utf8',
        env: { PATH: `${noNpm}:${process.env.PATH ?? ''}`, ...runnerEnv, ...env },
      });
      log.push(r.stdout, r.stderr);
      expect(r.status, `step ${i}: ${r.stdout}${r.stderr}`).toBe(0);
    }
    expect(existsSync(mark) ? readFileSync(mark, 'utf8') : '').toBe('');
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    expect(log.join('')).toContain('platform-sync is installed as a package: running its installed CLI');
    const outputs = readFileSync(files.GITHUB_OUTPUT, 'utf8');
    expect(outputs).toContain('exitcode=2\n');
    expect(outputs).toContain('has-changes=true\n');
    expect(outputs).toMatch(/^plan-json=.+platform-sync-plan\.json$/m);
    expect(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')).toContain('### platform-sync plan for `packaged`');
  });
});
