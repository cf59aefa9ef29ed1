/**
 * What the Action writes where GitHub reads it (DESIGN.md §8 rev 6, issue 60): text from a pull
 * request (file names, names and descriptions in manifests) never starts a workflow command in
 * the log, the job summary or a comment — each line checked as the runner parses it; and the
 * apply's summary and result comment carry its access changes and every refusal.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { FakeGitHub, runnerCommands, runStep, useActionSuite } from '../support/action-step.js';
import { makeTempDir } from './cli-harness.js';

/** File names that would forge commands if written raw: LF, CR, `%0A` and the old `##[` form. */
const HOSTILE_NAMES = [
  'x\n::warning title=INJECTED::x\n::stop-commands::pwn\n.yaml',
  'a%0A::warning title=INJECTED::b.yaml',
  'c\r::warning title=INJECTED::d.yaml',
  'e ##[warning]INJECTED.yaml',
];
/** A description with the same in it, shown by the plan. */
const HOSTILE_TEXT =
  'one\\n::error title=INJECTED::x\\r::stop-commands::pwn\\n  ::warning::INJECTED%0A##[error]INJECTED';

describe('the Action and text from a pull request', () => {
  const TOKEN = 'action-log-owner-token-7d21';
  const suite = useActionSuite(TOKEN, 'action-log', { number: 3, sha: 'feedbeef00' });
  const temp = suite.temp;

  /** Every place a run wrote to: its log (stdout and stderr), its job summary, the comments. */
  function written(run: { stdout: string; stderr: string }, summary: string): Record<string, string> {
    return {
      stdout: run.stdout,
      stderr: run.stderr,
      summary: readFileSync(summary, 'utf8'),
      comments: suite.github.comments.map((c) => c.body).join('\n'),
    };
  }

  it('file names and manifest text holding LF, CR, %0A or ##[ start no workflow command in the log, summary or comment', async () => {
    const bad = join(temp.dir, 'invalid');
    mkdirSync(bad);
    const invalid = 'apiVersion: platform-sync/v1\norg:\n  name: hostile\n  repos:\n    - {name: one, bogus: 1}\n';
    for (const name of HOSTILE_NAMES) writeFileSync(join(bad, name), invalid);
    const good = join(temp.dir, 'valid');
    mkdirSync(good);
    const valid = `apiVersion: platform-sync/v1\norg:\n  name: hostile\n  repos:\n    - {name: one, description: "${HOSTILE_TEXT}"}\n`;
    writeFileSync(join(good, HOSTILE_NAMES[0]!), valid);
    const runs: Record<string, string>[] = [];
    const steps = [
      ['plan', bad, ''],
      ['apply', bad, ''],
      ['plan', good, '--bootstrap'],
      ['apply', good, '--bootstrap'],
      ['drift', good, ''],
      ['audit', bad, ''],
      ['drift', bad, ''],
    ] as const;
    for (const [command, dir, args] of steps) {
      suite.github.comments = [];
      const summary = join(temp.dir, `${command}-summary.md`);
      writeFileSync(summary, '');
      const merge = { GITHUB_STEP_SUMMARY: summary, GITHUB_SHA: 'c0ffee0c0ffee0c0ffee0c0ffee0c0ffee0c0ffe' };
      const run = await runStep({ command, paths: dir, args, comment: 'true' }, { ...suite.env, ...merge }, temp.dir);
      expect(run.exitcode, run.stderr).toBe(dir === bad ? 1 : command === 'plan' ? 2 : 0);
      if (dir === bad) expect(run.stderr).toContain('INJECTED');
      runs.push(written(run, summary));
    }
    // The names did reach every place (escaped), so the check below is not vacuous.
    expect(runs[0]!.stderr).toContain('INJECTED');
    expect(runs[0]!.summary).toContain('INJECTED');
    expect(runs[1]!.comments).toContain('INJECTED');
    expect(runs[2]!.comments).toContain('INJECTED');
    for (const [i, run] of runs.entries()) {
      for (const [where, text] of Object.entries(run)) {
        const commands = runnerCommands(text);
        // The log holds the Action's own annotations of the invalid manifests (one line each, their data escaped), nothing else.
        const annotation = expect.stringMatching(/^::error file=[^:,]*,line=\d+,col=\d+::[^\r\n]*$/);
        for (const c of commands) expect([c.name, c.line], `run ${i}, ${where}`).toEqual(['error', annotation]);
        if (where !== 'stdout') expect(commands, `run ${i}, ${where}`).toEqual([]);
      }
    }
  });
});

describe("the apply's job summary and result comment", () => {
  let emulator: Emulator;
  let github: FakeGitHub;
  let env: Record<string, string>;
  const temp = makeTempDir('apply-report');
  const TOKEN = 'apply-report-owner-token-5e90';
  const HEAD = 'abcdef0abcdef0abcdef0abcdef0abcdef0abcd';
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    github = new FakeGitHub();
    await github.start();
    github.heads.main = HEAD;
    env = {
      PLATFORM_API_URL: emulator.url,
      PLATFORM_TOKEN: TOKEN,
      GITHUB_REPOSITORY: 'acme/manifests',
      GITHUB_API_URL: github.url,
    };
    Object.assign(env, { GITHUB_SHA: HEAD, GITHUB_REF_NAME: 'main' });
  });
  afterAll(async () => {
    await github?.close();
    await emulator?.close();
    temp.remove();
  });

  const org = (name: string, extra = '') =>
    `apiVersion: platform-sync/v1\norg:\n  name: ${name}\n  identities:\n    - {name: bot, servicePrincipal: COSIGNED}\n` +
    `  roleBindings:\n    - {identity: bot, role: registry.push}\n${extra}`;
  /** A manifest directory (written fresh), and a fresh summary file and runner temp beside it. */
  function place(name: string, yaml: string): { dir: string; summary: string; runner: string } {
    const dir = join(temp.dir, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'org.yaml'), yaml);
    const summary = join(temp.dir, `${name}-summary.md`);
    writeFileSync(summary, '');
    const runner = join(temp.dir, `${name}-runner`);
    mkdirSync(runner, { recursive: true });
    return { dir, summary, runner };
  }
  /** Runs the apply with comment: true; its summary and the one comment it left on the merged pull request. */
  type Applied = { exitcode: number; stdout: string; stderr: string; summary: string; comment: string };
  async function apply(
    p: { dir: string; summary: string; runner: string },
    more: Record<string, string>,
    args = '',
  ): Promise<Applied> {
    github.comments = [];
    const stepEnv = { ...env, RUNNER_TEMP: p.runner, GITHUB_STEP_SUMMARY: p.summary, ...more };
    const run = await runStep({ command: 'apply', paths: p.dir, args, comment: 'true' }, stepEnv, temp.dir);
    expect(github.comments, run.stderr).toHaveLength(1);
    return {
      exitcode: run.exitcode,
      stdout: run.stdout,
      stderr: run.stderr,
      summary: readFileSync(p.summary, 'utf8'),
      comment: github.comments[0]!.body,
    };
  }
  async function plan(p: { dir: string; runner: string }, args = ''): Promise<string> {
    const run = await runStep({ command: 'plan', paths: p.dir, args }, { ...env, RUNNER_TEMP: p.runner }, temp.dir);
    expect(run.exitcode, run.stderr).toBe(2);
    return run.outputs['plan-json']!;
  }

  it('the apply of a reviewed plan carries its access changes to the summary and the comment, as the log says', async () => {
    const p = place('access', org('granted'));
    const saved = await plan(p, '--bootstrap');
    const run = await apply(p, { PS_REVIEWED_PLAN: saved });
    expect(run.exitcode, run.stderr).toBe(0);
    expect(run.stdout).toContain('(1 access change: see the job summary)');
    for (const text of [run.summary, run.comment]) {
      expect(text).toContain('**Apply complete: 3 of 3 steps done**');
      expect(text).toContain('#### Access changes');
      expect(text).toMatch(/\| `identity:bot` \| `org` \| 1 group \| ➕ \S[^|]* \|/);
    }
  });

  it('an old apply job re-run (its commit not the head of the branch) writes the refusal to the summary and the comment', async () => {
    const p = place('rerun', org('rerun'));
    const saved = await plan(p, '--bootstrap');
    emulator.clearRequestLog();
    const run = await apply(p, { PS_REVIEWED_PLAN: saved, GITHUB_SHA: '1111111111111111111111111111111111111111' });
    expect(run.exitcode).toBe(1);
    expect(emulator.requestLog).toEqual([]);
    for (const text of [run.summary, run.comment]) {
      expect(text).toContain('**Nothing was applied**: this apply was refused before anything was read or sent');
      expect(text).toContain(
        `this apply runs for commit 1111111111111111111111111111111111111111, but the head of main is now ${HEAD}`,
      );
    }
  });

  it('every other refusal reaches the summary and the comment too: manifests that differ, a stale plan, new access denied, invalid manifests', async () => {
    // The merged manifests are not the ones the plan was made from.
    const differ = place('differ', org('differ'));
    const saved = await plan(differ, '--bootstrap');
    writeFileSync(join(differ.dir, 'org.yaml'), org('differ', '  repos:\n    - {name: unreviewed}\n'));
    const differs = await apply(differ, { PS_REVIEWED_PLAN: saved });
    expect(differs.exitcode).toBe(1);
    for (const text of [differs.summary, differs.comment])
      expect(text).toContain('not the ones this plan was made from');
    // Live changed since the plan was made: the same reviewed plan applied twice.
    const stale = place('stale', org('stale'));
    const once = await plan(stale, '--bootstrap');
    expect((await apply(stale, { PS_REVIEWED_PLAN: once })).exitcode).toBe(0);
    const twice = await apply(stale, { PS_REVIEWED_PLAN: once });
    expect(twice.exitcode).toBe(1);
    for (const text of [twice.summary, twice.comment])
      expect(text).toMatch(/\*\*Nothing was applied\*\*[\s\S]*<pre>\nError: [\s\S]*changed/);
    // deny-new-access: the refusal and the access changes it refused.
    const denied = await apply(place('denied', org('denied')), { PS_DENY_NEW_ACCESS: 'true' }, '--bootstrap');
    expect(denied.exitcode).toBe(1);
    for (const text of [denied.summary, denied.comment]) {
      expect(text).toContain('The plan it refused would make these access changes');
      expect(text).toContain('the plan gives new access (--deny-new-access)');
    }
    // Invalid manifests.
    const invalid = await apply(
      place('invalid', 'apiVersion: platform-sync/v1\norg:\n  name: invalid\n  bogus: 1\n'),
      {},
    );
    expect(invalid.exitcode).toBe(1);
    for (const text of [invalid.summary, invalid.comment]) expect(text).toContain('unknown field "bogus"');
  });
});
