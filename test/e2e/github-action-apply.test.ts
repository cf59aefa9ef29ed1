/**
 * The GitHub Action's runner (src/action/run.ts) against an embedded emulator and a stand-in
 * for the GitHub API: apply and its outputs, reviewed plans, the pull-request comment, audit.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMENT_MARKER } from '../../src/action/github-api.js';
import { runStep, useActionSuite } from '../support/action-step.js';
import { ACME } from './cli-harness.js';

describe('the action runner: apply, reviewed plans, comments and audit', () => {
  const TOKEN = 'action-runner-owner-token-31c8';
  const suite = useActionSuite(TOKEN, 'runner', { number: 3, sha: 'feedbeef00' });
  const temp = suite.temp;
  const scratch = suite.scratch;

  it('apply: has-changes comes from the JSON result, FORCE_COLOR or not, and the result goes to the job summary', async () => {
    const summary = join(temp.dir, 'summary.md');
    writeFileSync(summary, '');
    const first = await runStep(
      { command: 'apply', paths: ACME, args: '--bootstrap' },
      { ...suite.env, FORCE_COLOR: '1', GITHUB_STEP_SUMMARY: summary },
      temp.dir,
    );
    expect(first.exitcode, first.stderr).toBe(0);
    expect(first.outputs['has-changes']).toBe('true');
    // The log reads as people read it (issue 49): lines, not apply's JSON events, which are kept in a file.
    expect(first.stdout).toMatch(/^Plan: \d+ to create, \d+ to update, 0 to delete/m);
    expect(first.stdout).toMatch(/^✓ create group:engineering \(\d+ ms\)$/m);
    expect(first.stdout).toMatch(/^Apply complete: \d+ done\.$/m);
    expect(first.stdout).not.toContain('{"type"');
    const written = readFileSync(summary, 'utf8');
    expect(written).toContain('### platform-sync apply');
    expect(written).toMatch(/\*\*Apply complete: (\d+) of \1 steps done\*\*/);
    const again = await runStep(
      { command: 'apply', paths: ACME },
      { ...suite.env, FORCE_COLOR: '1', GITHUB_STEP_SUMMARY: summary },
      temp.dir,
    );
    expect(again.outputs['has-changes']).toBe('false');
    expect(readFileSync(summary, 'utf8')).toContain('**No changes**: the org already matched the manifests.');
  });

  it('apply: outputs come from the JSON events even when args ask for --format text (issue 40)', async () => {
    const { dir, summary } = scratch(
      'format-text',
      'apiVersion: platform-sync/v1\norg:\n  name: formatted\n  repos:\n    - {name: one}\n    - {name: two}\n',
    );
    const created = await runStep(
      { command: 'apply', paths: dir, args: '--bootstrap --format text' },
      { ...suite.env, GITHUB_STEP_SUMMARY: summary },
      temp.dir,
    );
    expect(created.exitcode, created.stderr).toBe(0);
    expect(created.outputs['has-changes']).toBe('true');
    expect(readFileSync(summary, 'utf8')).not.toContain('**No changes**');
  });

  it('reviewed-plan: the merge applies exactly the plan the pull request saved, and refuses one its manifests no longer match', async () => {
    const dir = join(temp.dir, 'reviewed');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: reviewed\n  repos:\n    - {name: one}\n',
    );
    // The plan job's runner temp outlives the step here, as an artifact would.
    const runner = join(temp.dir, 'runner-temp');
    mkdirSync(runner, { recursive: true });
    const planned = await runStep(
      { command: 'plan', paths: dir, args: '--bootstrap' },
      { ...suite.env, RUNNER_TEMP: runner },
      temp.dir,
    );
    expect(planned.exitcode, planned.stderr).toBe(2);
    const saved = planned.outputs['plan-json']!;
    expect(saved).not.toBe('');
    // The merge changed nothing the plan did not show: applied, exactly that plan.
    suite.github.heads.main = 'feedbeef00feedbeef00feedbeef00feedbeef00';
    const merge = {
      GITHUB_SHA: suite.github.heads.main,
      GITHUB_REF_NAME: 'main',
      PS_GITHUB_TOKEN: 'gh-token-for-test',
    };
    const applied = await runStep(
      { command: 'apply', paths: dir },
      { ...suite.env, ...merge, PS_REVIEWED_PLAN: saved },
      temp.dir,
    );
    expect(applied.exitcode, applied.stderr).toBe(0);
    expect(applied.outputs['has-changes']).toBe('true');
    // A merge with more than was reviewed: refused, naming why.
    writeFileSync(
      join(dir, 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: reviewed\n  repos:\n    - {name: one}\n    - {name: three}\n',
    );
    const reviewed = await runStep({ command: 'plan', paths: dir }, { ...suite.env, RUNNER_TEMP: runner }, temp.dir);
    expect(reviewed.exitcode, reviewed.stderr).toBe(2);
    writeFileSync(
      join(dir, 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: reviewed\n  repos:\n    - {name: one}\n    - {name: three}\n    - {name: unreviewed}\n',
    );
    const refused = await runStep(
      { command: 'apply', paths: dir },
      { ...suite.env, ...merge, PS_REVIEWED_PLAN: reviewed.outputs['plan-json']! },
      temp.dir,
    );
    expect(refused.exitcode).toBe(1);
    expect(refused.stderr).toContain('not the ones this plan was made from');
    expect(refused.outputs['has-changes']).toBe('false');
  });

  it('reviewed-plan: a re-run of an old apply job (its commit no longer the head of the branch) is refused before anything is read or sent (issue 49)', async () => {
    const { dir } = scratch(
      'rerun',
      'apiVersion: platform-sync/v1\norg:\n  name: rerun\n  repos:\n    - {name: one}\n',
    );
    const runner = join(temp.dir, 'runner-temp-rerun');
    mkdirSync(runner, { recursive: true });
    const planned = await runStep(
      { command: 'plan', paths: dir, args: '--bootstrap' },
      { ...suite.env, RUNNER_TEMP: runner },
      temp.dir,
    );
    expect(planned.exitcode, planned.stderr).toBe(2);
    // A later merge moved main on; the old job's commit is not its head any more.
    suite.github.heads.main = '2222222222222222222222222222222222222222';
    suite.emulator.clearRequestLog();
    const rerun = await runStep(
      { command: 'apply', paths: dir },
      {
        ...suite.env,
        GITHUB_SHA: '1111111111111111111111111111111111111111',
        GITHUB_REF_NAME: 'main',
        PS_REVIEWED_PLAN: planned.outputs['plan-json']!,
      },
      temp.dir,
    );
    expect(rerun.exitcode).toBe(1);
    expect(rerun.stderr).toContain(
      'this apply runs for commit 1111111111111111111111111111111111111111, but the head of main is now 2222222222222222222222222222222222222222',
    );
    expect(rerun.outputs['has-changes']).toBe('false');
    expect(suite.emulator.requestLog).toEqual([]);
    // Where the commit is the head, the same plan applies.
    suite.github.heads.main = '1111111111111111111111111111111111111111';
    const fresh = await runStep(
      { command: 'apply', paths: dir },
      {
        ...suite.env,
        GITHUB_SHA: suite.github.heads.main,
        GITHUB_REF_NAME: 'main',
        PS_REVIEWED_PLAN: planned.outputs['plan-json']!,
      },
      temp.dir,
    );
    expect(fresh.exitcode, fresh.stderr).toBe(0);
  });

  it('apply with comment: the result goes back to the merged pull request as one comment, updated in place (issue 49)', async () => {
    const { dir } = scratch(
      'apply-comment',
      'apiVersion: platform-sync/v1\norg:\n  name: commented\n  repos:\n    - {name: one}\n',
    );
    suite.github.comments = [];
    const merge = { GITHUB_SHA: 'c0ffee0c0ffee0c0ffee0c0ffee0c0ffee0c0ffe', PS_GITHUB_TOKEN: 'gh-token-for-test' };
    const first = await runStep(
      { command: 'apply', paths: dir, args: '--bootstrap', comment: 'true' },
      { ...suite.env, ...merge },
      temp.dir,
    );
    expect(first.exitcode, first.stderr).toBe(0);
    expect(first.stdout).toContain('Apply comment created on pull request #7.');
    expect(suite.github.comments).toHaveLength(1);
    expect(suite.github.comments[0]!.body).toMatch(
      /^<!-- platform-sync-apply -->\n### platform-sync apply\n\n\*\*Apply complete: 2 of 2 steps done\*\*/,
    );
    expect(suite.github.comments[0]!.body).toContain('_Apply of c0ffee0._');
    const again = await runStep(
      { command: 'apply', paths: dir, comment: 'true' },
      { ...suite.env, ...merge },
      temp.dir,
    );
    expect(again.stdout).toContain('Apply comment updated on pull request #7.');
    expect(suite.github.comments).toHaveLength(1);
    expect(suite.github.comments[0]!.body).toContain('**No changes**');
    suite.github.comments = [];
  });

  it('the pipeline end to end (issue 49): a member invited by a merge and accepted; a refused reviewed apply, then the dispatched plan-and-apply; nightly drift says both', async () => {
    const dir = join(temp.dir, 'pipeline');
    mkdirSync(dir, { recursive: true });
    const runner = join(temp.dir, 'runner-temp-pipeline');
    mkdirSync(runner, { recursive: true });
    const org = (repos: string[]) =>
      `apiVersion: platform-sync/v1\norg:\n  name: pipeline\n  members:\n    - {email: erin@acme.dev, role: viewer}\n  repos:\n${repos.map((r) => `    - {name: ${r}}`).join('\n')}\n`;
    const main = (sha: string) => ({
      ...suite.env,
      RUNNER_TEMP: runner,
      GITHUB_SHA: sha,
      GITHUB_REF_NAME: 'main',
      PS_GITHUB_TOKEN: 'gh-token-for-test',
    });
    // 1. The pull request adds a member: its plan shows the invite; the merge applies it, keeping the code.
    writeFileSync(join(dir, 'org.yaml'), org(['app']));
    const pr = await runStep(
      { command: 'plan', paths: dir, args: '--bootstrap' },
      { ...suite.env, RUNNER_TEMP: runner },
      temp.dir,
    );
    expect(pr.exitcode, pr.stderr).toBe(2);
    suite.github.heads.main = '1'.repeat(40);
    const codes = join(runner, 'invite-codes.jsonl');
    const merged = await runStep(
      { command: 'apply', paths: dir },
      { ...main(suite.github.heads.main), PS_REVIEWED_PLAN: pr.outputs['plan-json']!, PS_INVITE_CODES: codes },
      temp.dir,
    );
    expect(merged.exitcode, merged.stderr).toBe(0);
    const { code } = JSON.parse(readFileSync(codes, 'utf8').trim()) as { code: string };
    const accepted = await fetch(`${suite.emulator.url}/_emulator/groupInvites:accept`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, email: 'erin@acme.dev', issuer: 'https://accounts.google.com', subject: 'erin' }),
    });
    expect(accepted.status).toBe(200);
    const present = await runStep({ command: 'plan', paths: dir }, { ...suite.env, RUNNER_TEMP: runner }, temp.dir);
    expect(present.exitcode, present.stdout).toBe(0);
    // 2. The next pull request adds a repo; before it merges, someone adds one by hand: the reviewed apply is refused.
    writeFileSync(join(dir, 'org.yaml'), org(['app', 'web']));
    const pr2 = await runStep({ command: 'plan', paths: dir }, { ...suite.env, RUNNER_TEMP: runner }, temp.dir);
    expect(pr2.exitcode).toBe(2);
    const orgUid = (
      (await (
        await fetch(`${suite.emulator.url}/iam/v2/groups?name=pipeline`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        })
      ).json()) as { groups: { uid: string }[] }
    ).groups[0]!.uid;
    expect(
      (
        await fetch(`${suite.emulator.url}/registry/v2/repos/${orgUid}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'hand-made' }),
        })
      ).status,
    ).toBe(200);
    suite.github.heads.main = '2'.repeat(40);
    const refused = await runStep(
      { command: 'apply', paths: dir },
      { ...main(suite.github.heads.main), PS_REVIEWED_PLAN: pr2.outputs['plan-json']! },
      temp.dir,
    );
    expect(refused.exitcode).toBe(1);
    // 3. The way forward: run by hand, plan-and-apply — main planned now, applied once approved.
    const replan = await runStep({ command: 'plan', paths: dir }, { ...suite.env, RUNNER_TEMP: runner }, temp.dir);
    expect(replan.exitcode, replan.stderr).toBe(2);
    const approved = await runStep(
      { command: 'apply', paths: dir },
      { ...main(suite.github.heads.main), PS_REVIEWED_PLAN: replan.outputs['plan-json']! },
      temp.dir,
    );
    expect(approved.exitcode, approved.stderr).toBe(0);
    expect(approved.outputs['has-changes']).toBe('true');
    // 4. A change by hand after that: the nightly drift says it may be a hand edit or a merge not applied yet.
    expect(
      (
        await fetch(`${suite.emulator.url}/registry/v2/repos/${orgUid}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'another' }),
        })
      ).status,
    ).toBe(200);
    const drift = await runStep({ command: 'drift', paths: dir }, { ...suite.env, RUNNER_TEMP: runner }, temp.dir);
    expect(drift.exitcode).toBe(2);
    expect(drift.stdout).toContain('created by hand, or its removal not applied yet');
  });

  it('invalid manifests appear as GitHub annotations on their lines', async () => {
    const dir = join(temp.dir, 'invalid');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - {name: Bad Name}\n',
    );
    const run = await runStep({ command: 'plan', paths: dir }, suite.env, temp.dir);
    expect(run.exitcode).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`::error file=${join(dir, 'org.yaml').replaceAll('/', '\\/')},line=5,col=\\d+::`),
    );
  });

  it('a plan whose comment cannot reach GitHub (unreachable) warns and does not fail the step', async () => {
    const run = await runStep(
      { command: 'plan', paths: ACME, comment: 'true', args: '--bootstrap' },
      { ...suite.env, GITHUB_API_URL: 'http://127.0.0.1:9' },
      temp.dir,
    );
    expect(run.stepExit, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stderr).toMatch(/::warning::the plan comment could not be posted on pull request #\d+: fetch failed/);
  });

  it('audit: text in the log, the review in the job summary, SARIF at the sarif-file output; a finding at --fail-on fails the step', async () => {
    const summary = join(temp.dir, 'audit-summary.md');
    writeFileSync(summary, '');
    const strict = await runStep(
      { command: 'audit', paths: ACME },
      { ...suite.env, FORCE_COLOR: '1', GITHUB_STEP_SUMMARY: summary, RUNNER_TEMP: temp.dir },
      temp.dir,
    );
    expect([strict.exitcode, strict.stepExit, strict.outputs['has-changes']]).toEqual([2, 2, 'true']);
    expect(strict.stdout).toContain('pattern-pull-request');
    expect(readFileSync(summary, 'utf8')).toContain('### platform-sync access review of `acme`');
    const sarif = JSON.parse(readFileSync(strict.outputs['sarif-file']!, 'utf8')) as {
      version: string;
      runs: { results: { ruleId: string }[] }[];
    };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]!.results.map((r) => r.ruleId)).toContain('pattern-pull-request');
    const lenient = await runStep({ command: 'audit', paths: ACME, 'fail-on-drift': 'false' }, suite.env, temp.dir);
    expect([lenient.exitcode, lenient.stepExit]).toEqual([2, 0]);
  });

  it("edits only the bot's own comment: one that anyone else starts with the marker is left alone", async () => {
    suite.github.comments.push({ id: 1, body: `${COMMENT_MARKER}\nplanted by someone`, user: { login: 'mallory' } });
    const run = await runStep({ command: 'plan', paths: ACME, comment: 'true' }, suite.env, temp.dir);
    expect(run.stdout).toContain('Plan comment created on pull request #3.');
    expect(suite.github.comments[0]!.body).toBe(`${COMMENT_MARKER}\nplanted by someone`);
    expect(suite.github.comments).toHaveLength(2);
    const again = await runStep({ command: 'plan', paths: ACME, comment: 'true' }, suite.env, temp.dir);
    expect(again.stdout).toContain('Plan comment updated on pull request #3.');
    expect(suite.github.comments).toHaveLength(2);
  });

  it('without pull-requests: write, names the missing permission and what to add', async () => {
    suite.github.status = 403;
    try {
      const error = await runStep({ command: 'plan', paths: ACME, comment: 'true' }, suite.env, temp.dir).then(
        () => undefined,
        (e: Error) => e.message,
      );
      expect(error).toContain('HTTP 403');
      expect(error).toContain('lacks the "pull-requests: write" permission');
      expect(error).toContain('permissions: { contents: read, pull-requests: write }');
    } finally {
      suite.github.status = 200;
    }
  });
});
