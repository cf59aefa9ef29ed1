/**
 * The GitHub Action (action.yml) and the example workflow that uses it
 * (examples/github-actions/platform-sync.yml): the workflow's steps run through the action's
 * own runner against an embedded emulator, the pull-request comment goes to a stand-in for the
 * GitHub API on loopback, and no doc or example runs a bare `npx`.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDoc } from '../support/docs.js';
import { parse } from 'yaml';
import { COMMENT_MARKER } from '../../src/action/github-api.js';
import { splitArgs } from '../../src/action/run.js';
import { FakeGitHub, runStep, useActionSuite } from '../support/action-step.js';
import { ACME, applyManifests, makeTempDir, openClient, REPO_ROOT, runCli } from './cli-harness.js';

type Step = {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
  if?: string;
};
type Job = {
  if?: string;
  permissions?: Record<string, string>;
  concurrency?: { group: string; 'cancel-in-progress': boolean };
  environment?: string;
  steps: Step[];
};
const workflowText = readFileSync(join(REPO_ROOT, 'examples', 'github-actions', 'platform-sync.yml'), 'utf8');
const workflow = parse(workflowText) as {
  on: Record<string, unknown>;
  env: Record<string, string>;
  jobs: Record<string, Job>;
};
const action = parse(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
};
/** Our action in the example: the one that ships in the package `npm ci` installed (issue 60). */
const OURS = /^\.\/node_modules\/platform-sync$/;

describe('action.yml', () => {
  it('is a composite action that runs the installed package as it is, or installs platform-sync from its own checkout with npm ci, and runs the built runner', () => {
    expect(action.runs.using).toBe('composite');
    expect(Object.keys(action.inputs)).toEqual(expect.arrayContaining(['command', 'paths', 'args', 'comment']));
    expect(action.inputs.command!.required).toBe(true);
    for (const output of ['exitcode', 'has-changes', 'plan-json'])
      expect(action.outputs[output]!.value).toBe(`\${{ steps.run.outputs.${output} }}`);
    const runs = action.runs.steps.map((s) => s.run ?? '').join('\n');
    expect(runs).toContain('npm ci --prefix "$GITHUB_ACTION_PATH"');
    // Installed as a package (no sources beside the built runner): nothing installed or built (test/e2e/installed-package.test.ts runs it).
    expect(runs).toContain(
      'if [ ! -d "$GITHUB_ACTION_PATH/src" ] && [ -f "$GITHUB_ACTION_PATH/dist/src/action/main.js" ]; then',
    );
    expect(runs).toContain('node "$GITHUB_ACTION_PATH/dist/src/action/main.js"');
    expect(existsSync(join(REPO_ROOT, 'dist', 'src', 'action', 'main.js'))).toBe(true);
    expect(action.runs.steps.find((s) => s.id === 'run')!.env).toMatchObject({
      PS_COMMAND: '${{ inputs.command }}',
      PS_ARGS: '${{ inputs.args }}',
    });
  });

  it('gives the platform token to the platform-sync step alone, installs and builds once per job, and pins what it uses by SHA', () => {
    const [setup, install, run] = action.runs.steps;
    // The steps before platform-sync's own see no token, even one set in the env of the `uses:` step.
    expect(setup!.env).toEqual({ PLATFORM_TOKEN: '' });
    expect(install!.env).toEqual({ PLATFORM_TOKEN: '' });
    expect(setup!.uses).toMatch(/^actions\/setup-node@[0-9a-f]{40}$/);
    expect(run!.env!.PS_PLATFORM_TOKEN).toBe('${{ inputs.platform-token }}');
    expect(run!.run).toContain('export PLATFORM_TOKEN="$PS_PLATFORM_TOKEN"');
    expect(install!.run).toContain('node_modules/.platform-sync-installed');
    // The package has no install script (npm 11 warns of them): the action builds explicitly.
    expect(install!.run).toContain('npm run build --prefix "$GITHUB_ACTION_PATH"');
    const scripts = (
      JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(scripts[hook], hook).toBeUndefined();
    expect(install!.run).toMatch(/if \[ -f "\$stamp" \]/);
    expect(Object.keys(action.inputs)).toEqual(
      expect.arrayContaining(['platform-token', 'comment-author', 'node-version']),
    );
    const readme = readDoc('github-action.md');
    for (const input of Object.keys(action.inputs))
      expect(readme, `README input table: ${input}`).toContain(`| \`${input}\``);
    // Every output and every command the action takes is in the README too.
    for (const output of Object.keys((action as unknown as { outputs: Record<string, unknown> }).outputs))
      expect(readme, `README outputs: ${output}`).toContain(`\`${output}\``);
    const commandRow = readme.split('\n').find((l) => l.startsWith('| `command` |'))!;
    for (const command of ['plan', 'apply', 'drift', 'audit']) expect(commandRow).toContain(`\`${command}\``);
  });

  it('splits args like a shell: words and quotes', () => {
    expect(splitArgs(`--target 'repo:*' "identity:a b" --allow-mass-delete`)).toEqual([
      '--target',
      'repo:*',
      'identity:a b',
      '--allow-mass-delete',
    ]);
  });

  it('no doc or example runs a bare npx (it would fetch the name from a registry into a job holding the token)', () => {
    const files = [
      join(REPO_ROOT, 'README.md'),
      ...readdirSync(join(REPO_ROOT, 'docs')).map((f) => join(REPO_ROOT, 'docs', f)),
      join(REPO_ROOT, 'action.yml'),
      ...readdirSync(join(REPO_ROOT, 'examples'), { recursive: true, encoding: 'utf8' })
        .map((f) => join(REPO_ROOT, 'examples', f))
        .filter((f) => /\.(ya?ml|md)$/.test(f)),
    ];
    // The README's warning names it ("never a bare `npx platform-sync`"); nothing runs it.
    // `npx --no-install` runs only the installed copy (the starter's README uses it too).
    for (const file of files)
      expect(readFileSync(file, 'utf8').replace(/bare `npx platform-sync`/g, ''), file).not.toMatch(
        /(^|[\s`($])npx (?!--no-install\b)/m,
      );
  });
});

describe('the example workflow', () => {
  const jobs = workflow.jobs;

  it('plans on pull requests, applies on main one at a time, checks drift nightly, each with least privilege, through the action', () => {
    expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push', 'schedule', 'workflow_dispatch']);
    expect(jobs.plan!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write' });
    expect(jobs.apply!.permissions).toEqual({ contents: 'read', 'pull-requests': 'write', actions: 'read' });
    expect(jobs.drift!.permissions).toEqual({ contents: 'read' });
    // Only the nightly adopt job may write to the repository (its own branch) and open a pull request.
    expect(jobs.adopt!.permissions).toEqual({ contents: 'write', 'pull-requests': 'write' });
    for (const [name, job] of Object.entries(jobs))
      if (name !== 'adopt') expect(job.permissions?.contents, name).toBe('read');
    expect(jobs.apply!.concurrency).toEqual({ group: 'platform-sync-apply', 'cancel-in-progress': false });
    expect(jobs.plan!.concurrency!['cancel-in-progress']).toBe(true);
    expect(jobs.apply!.environment).toBe('platform');
    // Every action pinned by commit SHA, its tag in a comment (GitHub's hardening guide).
    const uses = Object.values(jobs).flatMap((j) => j.steps.flatMap((s) => (s.uses ? [s.uses] : [])));
    const pinned =
      /^actions\/(checkout|setup-node|upload-artifact|download-artifact)@[0-9a-f]{40}$|^\.\/node_modules\/platform-sync$/;
    for (const u of uses) expect(u).toMatch(pinned);
    for (const line of workflowText.split('\n').filter((l) => /^\s*(- )?uses: (?!\.\/)/.test(l)))
      expect(line).toMatch(/@[0-9a-f]{40} # v\d/);
    // No separate validate step: invalid manifests reach the plan comment like everything else.
    expect(workflowText).not.toMatch(/platform-sync validate/);
    expect(jobs.plan!.steps.find((s) => OURS.test(s.uses ?? ''))!.with).toMatchObject({
      command: 'plan',
      comment: true,
    });
  });

  it('hands tokens over only through the platform-token input: the write token to the apply step alone, the read-only one everywhere else; identity-provider secrets to the apply step alone', () => {
    for (const [name, job] of Object.entries(jobs)) {
      for (const step of job.steps) {
        expect(step.run ?? '', `${name}: ${step.name}`).not.toMatch(/secrets\./);
        const writes = OURS.test(step.uses ?? '') && (step.with?.command as string) === 'apply';
        for (const [key, value] of Object.entries(step.env ?? {})) {
          if (!String(value).includes('secrets.')) continue;
          // A secret a manifest may name reaches the apply step only: plan never reads one.
          expect(key, `${name}: ${step.name}`).toMatch(/^PLATFORM_SYNC_SECRET_/);
          expect(writes, `${name}: ${step.name}`).toBe(true);
        }
        // Secrets the manifests name go through the secrets-env input, to the apply step alone.
        for (const line of String(step.with?.['secrets-env'] ?? '')
          .split('\n')
          .filter((l) => l.trim() !== '')) {
          expect(line.trim(), `${name}: ${step.name}`).toMatch(
            /^PLATFORM_SYNC_SECRET_[A-Z0-9_]+=\$\{\{ secrets\.PLATFORM_SYNC_SECRET_[A-Z0-9_]+ \}\}$/,
          );
          expect(writes, `${name}: ${step.name}`).toBe(true);
        }
        const token = step.with?.['platform-token'];
        if (token === undefined) continue;
        expect(OURS.test(step.uses ?? ''), `${name}: ${step.name}`).toBe(true);
        {
          const secret = String(token).match(/secrets\.(\w+)/)![1];
          expect(secret, `${name}: ${step.name}`).toBe(writes ? 'PLATFORM_TOKEN' : 'PLATFORM_TOKEN_READONLY');
        }
      }
    }
  });

  it("hands invite codes over encrypted by platform-sync: every apply passes the inviter's key, keeps the file on every outcome (issue 60)", () => {
    // No gpg in the workflow: the product encrypts (apply --invite-codes-recipient); test/e2e/starter-workflow.test.ts runs it.
    expect(workflowText).not.toMatch(/\bgpg (--batch|--import|--encrypt)|shred /);
    for (const name of ['apply', 'apply-replanned']) {
      const steps = jobs[name]!.steps;
      const apply = steps.find((s) => (s.with?.command as string) === 'apply')!;
      expect(apply.with).toMatchObject({
        'invite-codes': '${{ steps.invites.outputs.file }}',
        args: '${{ steps.invites.outputs.args }}',
      });
      expect(steps.find((s) => s.id === 'invites')!.run).toContain('--invite-codes-recipient');
      const keep = steps.find((s) => /upload-artifact/.test(s.uses ?? '') && /invite/.test(s.name ?? ''))!;
      expect(keep.if).toBe("always() && hashFiles('invites.jsonl') != ''");
      expect(steps.indexOf(keep)).toBeGreaterThan(steps.indexOf(apply));
    }
  });

  it('a mass-delete label on the pull request adds --allow-mass-delete to its plan, which the merge applies as reviewed', () => {
    const plan = jobs.plan!.steps.find((s) => OURS.test(s.uses ?? ''))!;
    expect(String(plan.with!.args)).toBe(
      "${{ contains(github.event.pull_request.labels.*.name, 'platform-sync:allow-mass-delete') && '--allow-mass-delete' || '' }}",
    );
    expect(workflow.env.MASS_DELETE_LABEL).toBe('platform-sync:allow-mass-delete');
    // The saved plan records --allow-mass-delete: the apply passes no planning option of its own.
    const apply = jobs.apply!.steps.find((s) => (s.with?.command as string) === 'apply')!;
    expect(apply.with!.args).toBe('${{ steps.invites.outputs.args }}'); // the inviter's key only
  });

  it('applies what was reviewed: the plan job keeps its plan for the head commit, the merge fetches and applies exactly it', () => {
    const keep = jobs.plan!.steps.find((s) => /upload-artifact/.test(s.uses ?? ''))!;
    expect(keep.if).toBe("steps.plan.outputs.plan-json != ''");
    expect(keep.with).toMatchObject({
      name: 'platform-sync-plan-${{ github.event.pull_request.head.sha }}',
      path: '${{ steps.plan.outputs.plan-json }}',
    });
    const find = jobs.apply!.steps.find((s) => s.id === 'reviewed')!;
    expect(find.run).toContain('commits/$GITHUB_SHA/pulls');
    expect(find.run).toContain('exit 1'); // no reviewed plan, no apply
    const fetch = jobs.apply!.steps.find((s) => /download-artifact/.test(s.uses ?? ''))!;
    expect(fetch.with).toMatchObject({
      name: 'platform-sync-plan-${{ steps.reviewed.outputs.head }}',
      'run-id': '${{ steps.reviewed.outputs.run }}',
    });
    const apply = jobs.apply!.steps.find((s) => (s.with?.command as string) === 'apply')!;
    expect(apply.with!['reviewed-plan']).toBe('${{ runner.temp }}/reviewed/platform-sync-plan.json');
  });

  it("runs: each job's platform-sync steps, through the action's runner, against an embedded emulator", async () => {
    const temp = makeTempDir('workflow');
    const github = new FakeGitHub();
    await github.start();
    try {
      // The org exists (created once with `apply --bootstrap`): an empty root group, so the PR's plan has everything else to create.
      const bootstrap = join(temp.dir, 'bootstrap.yaml');
      writeFileSync(bootstrap, 'apiVersion: platform-sync/v1\norg:\n  name: acme\nsettings:\n  prune: false\n');
      expect(
        (await runCli(['apply', bootstrap, '--bootstrap', '--auto-approve', '--emulator'], { cwd: temp.dir })).code,
      ).toBe(0);
      const event = join(temp.dir, 'event.json');
      writeFileSync(event, JSON.stringify({ pull_request: { number: 7, head: { sha: 'abcdef1234567' } } }));
      const runnerTemp = join(temp.dir, 'runner-temp');
      mkdirSync(runnerTemp);
      let reviewedPlan = '';
      const expected: Record<string, { exitcode: number; hasChanges: string }[]> = {
        plan: [{ exitcode: 2, hasChanges: 'true' }],
        apply: [
          { exitcode: 0, hasChanges: 'true' },
          { exitcode: 0, hasChanges: 'false' },
        ],
        drift: [{ exitcode: 0, hasChanges: 'false' }],
        // Run by hand (plan-and-apply): main planned now, then exactly that plan applied after approval.
        replan: [{ exitcode: 0, hasChanges: 'false' }],
        'apply-replanned': [{ exitcode: 0, hasChanges: 'false' }],
      };
      for (const name of ['plan', 'apply', 'drift', 'replan', 'apply-replanned']) {
        const steps = jobs[name]!.steps.filter((s) => OURS.test(s.uses ?? ''));
        expect(steps.length, name).toBe(expected[name]!.length);
        for (const [i, step] of steps.entries()) {
          // `${{ env.MANIFESTS }}` is the example org; every other expression is empty here.
          const inputs = Object.fromEntries(
            Object.entries(step.with ?? {}).map(([k, v]) => [
              k,
              String(v)
                .replace('${{ env.MANIFESTS }}', ACME)
                .replace(/\$\{\{.*\}\}/, ''),
            ]),
          );
          inputs.args = `${inputs.args ?? ''} --emulator`.trim();
          // The merge's job fetches the plan the pull request's job kept: here, the file it wrote.
          if (step.with?.['reviewed-plan'] !== undefined) inputs['reviewed-plan'] = reviewedPlan;
          // The merge's job runs for the head of main (a re-run of an older one would be refused).
          github.heads.main = 'abcdef1abcdef1abcdef1abcdef1abcdef1abcd';
          const run = await runStep(
            inputs,
            {
              GITHUB_EVENT_PATH: event,
              GITHUB_REPOSITORY: 'acme/manifests',
              GITHUB_API_URL: github.url,
              RUNNER_TEMP: runnerTemp,
              GITHUB_SHA: github.heads.main,
              GITHUB_REF_NAME: 'main',
            },
            temp.dir,
          );
          if (name === 'plan' || name === 'replan') reviewedPlan = run.outputs['plan-json']!;
          expect(run.exitcode, `${name}: ${step.name}\n${run.stderr}`).toBe(expected[name]![i]!.exitcode);
          expect(run.outputs['has-changes'], `${name}: ${step.name}`).toBe(expected[name]![i]!.hasChanges);
          expect(run.outputs.exitcode).toBe(String(run.exitcode));
          if (name === 'plan' || name === 'replan')
            expect(run.outputs['plan-json']).toMatch(/platform-sync-plan\.json$/);
        }
      }
      // The plan's comment, and the apply's result on the merged pull request.
      expect(github.comments).toHaveLength(2);
      expect(github.comments[1]!.body.startsWith('<!-- platform-sync-apply -->\n')).toBe(true);
      expect(github.comments[0]!.body.startsWith(`${COMMENT_MARKER}\n`)).toBe(true);
      expect(github.comments[0]!.body).toContain('**Plan: 40 to create, 1 to update, 0 to delete.**');
      expect(github.comments[0]!.body).toContain('_Plan of abcdef1; applied when merged._');
      expect(github.requests.every((r) => r.endsWith(' auth'))).toBe(true);
    } finally {
      await github.close();
      temp.remove();
    }
  });
});

describe('the plan comment', () => {
  const TOKEN = 'action-comment-owner-token-77e1';
  const suite = useActionSuite(TOKEN, 'comment', { number: 12, sha: '1234567890' }, (emulator) =>
    applyManifests(suite.emulator.url, TOKEN, [ACME]),
  );
  const temp = suite.temp;

  it('is one comment, updated in place: a refused plan (with the steps it refused) and then invalid manifests both reach it, and the step fails', async () => {
    // A repo made by hand, and a manifest that protects every repo: the plan would delete it, and is refused.
    const client = openClient(suite.emulator.url, TOKEN);
    const org = (await client.list('group', { name: 'acme' })).items[0]!.uid;
    await client.create('repo', org, { name: 'hand-made' });
    await client.close();
    const dir = join(temp.dir, 'manifests');
    cpSync(ACME, dir, { recursive: true });
    writeFileSync(
      join(dir, 'protect.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\nsettings:\n  protect: ["repo:*"]\n',
    );
    const refused = await runStep({ command: 'plan', paths: dir, comment: 'true' }, suite.env, temp.dir);
    expect(refused.exitcode).toBe(1);
    expect(refused.stepExit).toBe(1);
    expect(refused.outputs['plan-json']).toBe('');
    expect(suite.github.comments).toHaveLength(1);
    const first = suite.github.comments[0]!.body;
    expect(first).toContain('### platform-sync plan failed');
    expect(first).toContain('repo:hand-made');
    expect(first).toMatch(/CAUTION/);
    expect(first).not.toContain(TOKEN);
    // The footer says what merging does (issue 49): a refused plan is not applied.
    expect(first).toMatch(/_Plan of \w+: refused — not applied when merged; fix what it names and push again\._$/);

    writeFileSync(
      join(dir, 'broken.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - description: no name\n',
    );
    const invalid = await runStep({ command: 'plan', paths: dir, comment: 'true' }, suite.env, temp.dir);
    expect(invalid.exitcode).toBe(1);
    expect(suite.github.comments).toHaveLength(1); // updated, not a second comment
    const second = suite.github.comments[0]!.body;
    expect(second).toContain('### platform-sync plan failed');
    expect(second).toMatch(/broken\.yaml:5:\d+: /);
    expect(second).toMatch(
      /_Plan of \w+: no plan \(the manifests are invalid or planning failed\) — nothing is applied when merged\._$/,
    );
    expect(suite.github.requests.filter((r) => r.startsWith('PATCH'))).toHaveLength(1);
  });
});
