/**
 * The README and `--help` agree (issue 40 item 6): every option of every command is in the
 * README, every command's help has examples, a command's paths read the same in the top-level
 * help as in its own, and the README cites nothing a user does not have (DESIGN.md is ours).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { REPO_ROOT, runCli } from './cli-harness.js';
import { allDocs } from '../support/docs.js';

const readme = allDocs();
const COMMANDS = [
  'validate',
  'plan',
  'apply',
  'drift',
  'audit',
  'access',
  'show',
  'export',
  'emulator',
  'init',
  'demo',
  'accept-invite',
];

/** The long options a help text lists. */
function optionsOf(help: string): string[] {
  return [...new Set([...help.matchAll(/^\s+(?:-\w, )?(--[a-z][a-z-]*)/gm)].map((m) => m[1]!))].filter(
    (o) => o !== '--help',
  );
}

describe('README and --help', () => {
  it('name every option of every command in the README', async () => {
    const missing: string[] = [];
    for (const command of COMMANDS) {
      const help = (await runCli([command, '--help'])).stdout;
      for (const option of optionsOf(help))
        if (!readme.includes(`\`${option}`) && !readme.includes(` ${option}`)) missing.push(`${command} ${option}`);
    }
    expect(missing).toEqual([]);
  });

  it("give every command's help examples", async () => {
    const without: string[] = [];
    for (const command of COMMANDS)
      if (!/Examples?:/.test((await runCli([command, '--help'])).stdout)) without.push(command);
    expect(without).toEqual([]);
  });

  it("show a command's arguments the same in the top-level help as in its own", async () => {
    const top = (await runCli(['--help'])).stdout;
    for (const command of COMMANDS) {
      const usage = /^Usage: platform-sync (\S+) (.*)$/m.exec((await runCli([command, '--help'])).stdout)!;
      const args = usage[2]!.replace('[options]', '').trim();
      const line = top.split('\n').find((l) => l.trim().startsWith(`${command} `) || l.trim() === command);
      expect(line, `${command} in the top-level help`).toBeDefined();
      if (args !== '') expect(line!, command).toContain(args);
    }
  });

  it('list the commands that take the global options the same way: the help names them, and so does every README list of them', async () => {
    const help = (await runCli(['--help'])).stdout;
    const list = /Options of ([a-z, ]+) \(before or after/.exec(help)![1]!.replace(' and ', ', ').split(', ');
    expect(list).toEqual(expect.arrayContaining(['plan', 'apply', 'drift', 'audit', 'access', 'export', 'show']));
    for (const line of readme
      .split('\n')
      .filter((l) => /`plan`, `apply`, `drift`, /.test(l) && !l.startsWith('| `command`')))
      for (const command of list) expect(line, line).toContain(`\`${command}\``);
  });

  it('cite no DESIGN.md: users have the README, the schemas and --help', () => {
    expect(readme.match(/DESIGN\.md[^\n]{0,30}/g) ?? []).toEqual([]);
  });
});

describe('an internal error', () => {
  it("names the package's own files, not the directory it is installed or built in, with the version", async () => {
    const { internalErrorText } = await import('../../src/cli/main.js');
    const err = new Error('boom');
    err.stack = `Error: boom\n    at plan (${join(REPO_ROOT, 'dist', 'src', 'plan', 'index.js')}:10:5)\n    at file://${join(REPO_ROOT, 'dist', 'platform-sync.cjs')}:1:1`;
    const text = internalErrorText(err);
    expect(text).toMatch(/^platform-sync \d+\.\d+\.\d+: internal error/);
    expect(text).toContain('at plan (platform-sync/dist/src/plan/index.js:10:5)');
    expect(text).toContain('at platform-sync/dist/platform-sync.cjs:1:1');
    expect(text).not.toContain(REPO_ROOT);
  });
});
