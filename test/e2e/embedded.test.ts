import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ACME, makeTempDir, runCli, runCliProcess } from './cli-harness.js';

describe('--emulator: an embedded emulator whose state persists across processes', () => {
  const temp = makeTempDir('embedded');
  afterAll(() => temp.remove());

  // The state crosses processes: an apply in one process writes it, a plan in another reads it. The
  // plan before and the drift after run in this process (issue 63: a process costs a cold start and
  // a cold planner, seconds on a loaded machine); they read the same state file the processes did.
  // The two processes are the build's own check of the bundle (scripts/build-cli-bundle.ts), which
  // `npm test` skips (`--no-check`) for this case.
  it('plan → apply → plan, the apply and the last plan in processes of their own: the last plan is empty', async () => {
    const cwd = temp.dir;
    const first = await runCli(['plan', ACME, '--bootstrap', '--emulator', '--detailed-exitcode'], { cwd });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(2);

    const applied = await runCliProcess(['apply', ACME, '--bootstrap', '--emulator', '--auto-approve'], { cwd });
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const statePath = join(cwd, '.platform-sync', 'emulator.json');
    expect(existsSync(statePath)).toBe(true);
    expect(readFileSync(statePath, 'utf8')).toContain('release-bot');

    // Global options are accepted before the command name too.
    const last = await runCliProcess(
      ['--emulator', '--no-color', 'plan', ACME, '--bootstrap', '--detailed-exitcode', '--format', 'json'],
      { cwd },
    );
    expect(last.stderr).toBe('');
    expect(last.code).toBe(0);
    expect(JSON.parse(last.stdout).summary).toEqual({ create: 0, update: 0, delete: 0 });

    const drift = await runCli(['drift', ACME, '--emulator'], { cwd });
    expect(drift.code, drift.stderr).toBe(0);
    // Two cold processes in a row: on a loaded 2-core machine each takes seconds, past the default 30 s.
  }, 120_000);

  it('an apply --emulator that writes nothing leaves no state behind (issue 40)', async () => {
    const fresh = makeTempDir('embedded-nothing');
    try {
      const refused = await runCli(['apply', ACME, '--emulator', '--auto-approve'], { cwd: fresh.dir });
      expect(refused.code).toBe(1); // the org is not visible without --bootstrap: nothing was written
      expect(existsSync(join(fresh.dir, '.platform-sync'))).toBe(false);
      const made = await runCli(['apply', ACME, '--emulator', '--bootstrap', '--auto-approve'], { cwd: fresh.dir });
      expect(made.code, made.stderr).toBe(0);
      expect(existsSync(join(fresh.dir, '.platform-sync', 'emulator.json'))).toBe(true);
    } finally {
      fresh.remove();
    }
  });

  it('never writes a token to the state file or the output', async () => {
    const cwd = temp.dir;
    const run = await runCli(['plan', ACME, '--bootstrap', '--emulator', '--verbose'], { cwd });
    expect(run.code).toBe(0);
    // --verbose shows requests against the embedded emulator…
    expect(run.stderr).toMatch(/GET \/iam\/v2\/groups/);
    // …and the generated token nowhere, nor in the state file.
    const state = readFileSync(join(cwd, '.platform-sync', 'emulator.json'), 'utf8');
    expect(`${run.stdout}${run.stderr}${state}`).not.toMatch(/embedded-[0-9a-f]{48}/);
    expect(state).not.toMatch(/"tokens?"\s*:/);
  });
});

describe('--verbose never shows the token', () => {
  const TOKEN = 'tok-VERBOSE-e2e-7d3f09c1b2';
  let emulator: Emulator;
  const temp = makeTempDir('verbose');
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  it('logs requests and timings on stderr for plan, apply, drift and export, token redacted', async () => {
    const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: TOKEN };
    const runs = [
      await runCli(['plan', ACME, '--bootstrap', '--verbose'], { env }),
      await runCli(['apply', ACME, '--bootstrap', '--auto-approve', '--verbose'], { env }),
      await runCli(['drift', ACME, '--verbose'], { env }),
      await runCli(['export', '--org', 'acme', '--verbose', '--out', join(temp.dir, 'out')], { env }),
    ];
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(/GET \/iam\/v2\/groups\S* → 200 \(\d+ ms/);
      expect(run.stdout + run.stderr).not.toContain(TOKEN);
    }
    expect(runs[1]!.stderr).toMatch(/POST \/iam\/v2\/identities\/\S+ → 20\d \(\d+ ms/);
  });

  it('keeps the token out of errors, also from --token-file and with a rejected token', async () => {
    const tokenFile = join(temp.dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}-wrong\n`);
    const rejected = await runCli(['drift', ACME, '--verbose', '--token-file', tokenFile], {
      env: { PLATFORM_API_URL: emulator.url },
    });
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/401|UNAUTHENTICATED/);
    expect(rejected.stdout + rejected.stderr).not.toContain(TOKEN);

    // A token given as an argument is refused, saying where a token goes, and never repeated:
    // not as `--token T`, `--token=T`, before the command, nor under a mistyped option name.
    emulator.clearRequestLog();
    for (const args of [
      ['plan', ACME, '--bootstrap', '--token', TOKEN],
      ['apply', ACME, '--bootstrap', `--token=${TOKEN}`],
      ['drift', ACME, '--token', TOKEN],
      ['export', '--org', 'acme', `--token=${TOKEN}`],
    ]) {
      const asArgument = await runCli(args, { env: { PLATFORM_API_URL: emulator.url } });
      expect(asArgument.code, args.join(' ')).toBe(1);
      expect(asArgument.stderr).toBe(
        'Error: a token is never taken as a command-line argument (shell history and process listings keep it): set PLATFORM_TOKEN or pass --token-file FILE\n',
      );
      expect(emulator.requestLog).toEqual([]); // refused before connecting
    }
    for (const args of [
      [`--token=${TOKEN}`, 'plan', ACME],
      ['plan', ACME, '--bootstrap', `--tokn=${TOKEN}`],
    ]) {
      const mistyped = await runCli(args, { env: { PLATFORM_API_URL: emulator.url } });
      expect(mistyped.code, args.join(' ')).toBe(1);
      expect(mistyped.stderr).toMatch(/^Error: unknown option '--toke?n=…'\nRun 'platform-sync (plan )?--help' for/);
      expect(mistyped.stdout + mistyped.stderr).not.toContain(TOKEN);
    }
  });

  it('answers a usage error with one line and where the help is, not the whole help', async () => {
    const run = await runCli(['plan', ACME, '--bootstrap', '--format', 'yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      "Error: option '--format <format>' argument 'yaml' is invalid. Allowed choices are text, json, markdown.\n" +
        "Run 'platform-sync plan --help' for its options and examples.\n",
    );
    const unknown = await runCli(['bogus']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      "Error: unknown command 'bogus'\nRun 'platform-sync --help' for the commands and examples.\n",
    );
  });

  it('has help with examples on every command', async () => {
    for (const command of ['plan', 'apply', 'drift', 'export', 'validate']) {
      const help = await runCli([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toContain('Examples:');
    }
    const top = await runCli(['--help']);
    expect(top.stdout).toContain('--verbose');
    expect(top.stdout).toContain('--no-color');
    // Every example is a command an installed package runs: no npm script of this repository
    // (a user's project has no `npm run demo`; issue 40).
    const examples = top.stdout
      .slice(top.stdout.indexOf('Examples:'))
      .split('\n')
      .slice(1)
      .filter((l) => l.trim() !== '');
    for (const line of examples) expect(line.trim(), line).toMatch(/^(PLATFORM_TOKEN=\S+ )?platform-sync /);
    expect(top.stdout).toMatch(/platform-sync demo /);
  });
});
