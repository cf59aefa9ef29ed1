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
import { startRewritingProxy } from '../support/rewriting-proxy.js';
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
  }, 30_000);
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

describe('the action runner', () => {
  const TOKEN = 'action-runner-owner-token-31c8';
  const suite = useActionSuite(TOKEN, 'runner', { number: 3, sha: 'feedbeef00' });
  const temp = suite.temp;
  /** A manifest directory holding one org.yaml, and an empty job summary beside it. */
  const scratch = (name: string, orgYaml: string): { dir: string; summary: string } => {
    const dir = join(temp.dir, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'org.yaml'), orgYaml);
    const summary = join(temp.dir, `${name}-summary.md`);
    writeFileSync(summary, '');
    return { dir, summary };
  };

  it('deny-new-access: a plan that gains access fails the step naming the gain; the same plan without it passes', async () => {
    const dir = join(temp.dir, 'deny');
    mkdirSync(dir, { recursive: true });
    const org = (bound: boolean) =>
      `apiVersion: platform-sync/v1\norg:\n  name: gated\n  identities:\n    - {name: bot, servicePrincipal: COSIGNED}\n${bound ? '  roleBindings:\n    - {identity: bot, role: registry.push}\n' : ''}`;
    writeFileSync(join(dir, 'org.yaml'), org(false));
    expect((await runStep({ command: 'apply', paths: dir, args: '--bootstrap' }, suite.env, temp.dir)).exitcode).toBe(
      0,
    );
    writeFileSync(join(dir, 'org.yaml'), org(true));
    const denied = await runStep(
      { command: 'plan', paths: dir },
      { ...suite.env, PS_DENY_NEW_ACCESS: 'true' },
      temp.dir,
    );
    expect(denied.exitcode).toBe(1);
    expect(denied.stderr).toContain('the plan gives new access (--deny-new-access): identity:bot gains');
    const allowed = await runStep({ command: 'plan', paths: dir }, suite.env, temp.dir);
    expect(allowed.exitcode).toBe(2);
  });

  it('deny-new-access with reviewed-plan: the merge re-checks the reviewed plan and refuses a gain before any write (issue 46)', async () => {
    const dir = join(temp.dir, 'deny-reviewed');
    mkdirSync(dir, { recursive: true });
    const org = (bound: boolean) =>
      `apiVersion: platform-sync/v1\norg:\n  name: gated-reviewed\n  identities:\n    - {name: bot, servicePrincipal: COSIGNED}\n${bound ? '  roleBindings:\n    - {identity: bot, role: owner}\n' : ''}`;
    writeFileSync(join(dir, 'org.yaml'), org(false));
    expect((await runStep({ command: 'apply', paths: dir, args: '--bootstrap' }, suite.env, temp.dir)).exitcode).toBe(
      0,
    );
    writeFileSync(join(dir, 'org.yaml'), org(true));
    const runner = join(temp.dir, 'runner-temp-deny');
    mkdirSync(runner, { recursive: true });
    // The pull request's plan job ran without the gate; the merge's apply job has it.
    const planned = await runStep({ command: 'plan', paths: dir }, { ...suite.env, RUNNER_TEMP: runner }, temp.dir);
    expect(planned.exitcode, planned.stderr).toBe(2);
    suite.emulator.clearRequestLog();
    suite.github.heads.main = 'abc0000000000000000000000000000000000def';
    const applied = await runStep(
      { command: 'apply', paths: dir },
      {
        ...suite.env,
        GITHUB_SHA: suite.github.heads.main,
        GITHUB_REF_NAME: 'main',
        PS_REVIEWED_PLAN: planned.outputs['plan-json']!,
        PS_DENY_NEW_ACCESS: 'true',
      },
      temp.dir,
    );
    expect(applied.exitcode).toBe(1);
    expect(applied.stderr).toContain('the plan gives new access (--deny-new-access): identity:bot gains all of owner');
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('secrets-env: the secrets the manifests name reach the platform-sync step alone, redacted; a name no manifest can use is refused (issue 49)', async () => {
    const secret = 'okta-client-secret-through-secrets-env-01';
    const { dir, summary } = scratch(
      'secrets-env',
      'apiVersion: platform-sync/v1\norg:\n  name: sso\n  identityProviders:\n    - name: okta\n      defaultRole: viewer\n      oidc: {issuer: "https://acme.okta.com", clientId: "c1", clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}}\n',
    );
    const applied = await runStep(
      { command: 'apply', paths: dir, args: '--bootstrap' },
      {
        ...suite.env,
        GITHUB_STEP_SUMMARY: summary,
        PS_SECRETS_ENV: `# the provider's\nPLATFORM_SYNC_SECRET_OKTA=${secret}\n`,
      },
      temp.dir,
    );
    expect(applied.exitcode, applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr + readFileSync(summary, 'utf8')).not.toContain(secret);
    expect(process.env.PLATFORM_SYNC_SECRET_OKTA).toBeUndefined(); // never set in the process for anyone else
    const refused = await runStep(
      { command: 'plan', paths: dir },
      { ...suite.env, PS_SECRETS_ENV: 'PLATFORM_TOKEN=stolen-token-value' },
      temp.dir,
    );
    expect(refused.exitcode).toBe(1);
    expect(refused.stderr).toContain(
      'secrets-env line 1: expected PLATFORM_SYNC_SECRET_<NAME>=value (the only variables a manifest can name), got PLATFORM_TOKEN',
    );
    expect(refused.stderr).not.toContain('stolen-token-value');
  });

  it('invite-codes: apply keeps each code in the named file, masks it in the log before anything else, and shows it nowhere', async () => {
    const { dir, summary } = scratch(
      'invites',
      'apiVersion: platform-sync/v1\norg:\n  name: invited\n  members:\n    - {email: erin@acme.dev, role: viewer}\n',
    );
    const refused = await runStep({ command: 'apply', paths: dir, args: '--bootstrap' }, suite.env, temp.dir);
    expect(refused.exitcode).toBe(1);
    expect(refused.stderr).toContain('apply with --invite-codes FILE');
    const codes = join(temp.dir, 'invite-codes.jsonl');
    const applied = await runStep(
      { command: 'apply', paths: dir, args: '--bootstrap' },
      { ...suite.env, PS_INVITE_CODES: codes, GITHUB_STEP_SUMMARY: summary },
      temp.dir,
    );
    expect(applied.exitcode, applied.stderr).toBe(0);
    const { code } = JSON.parse(readFileSync(codes, 'utf8').trim()) as { code: string };
    // The one line that carries it is GitHub's mask command; nothing else does.
    expect(applied.stdout.split('\n').filter((l) => l.includes(code))).toEqual([`::add-mask::${code}`]);
    expect(applied.stderr).not.toContain(code);
    expect(readFileSync(summary, 'utf8')).not.toContain(code);
    expect(Object.values(applied.outputs).join('\n')).not.toContain(code);
  });

  it('invite-codes: a server-chosen code holding a newline never reaches a workflow command; the invite is deleted again (issue 49)', async () => {
    const { dir } = scratch(
      'hostile-code',
      'apiVersion: platform-sync/v1\norg:\n  name: hostile\n  members:\n    - {email: erin@acme.dev, role: viewer}\n',
    );
    const proxy = await startRewritingProxy(suite.emulator.url, (request, body) =>
      request.method === 'POST' &&
      request.path.startsWith('/iam/v2/groupInvites/') &&
      body !== null &&
      typeof body === 'object'
        ? { ...(body as object), code: 'abc\n::stop-commands::pwned\n::warning::fake' }
        : body,
    );
    try {
      const codes = join(temp.dir, 'hostile-codes.jsonl');
      const applied = await runStep(
        { command: 'apply', paths: dir, args: '--bootstrap' },
        { ...suite.env, PLATFORM_API_URL: proxy.url, PS_INVITE_CODES: codes },
        temp.dir,
      );
      expect(applied.exitcode).toBe(1);
      expect(applied.stdout).not.toMatch(/^::(stop-commands|warning|add-mask)::/m);
      expect(applied.stdout + applied.stderr).toContain(
        'its code could not be kept (the service answered a code that is not printable ASCII without %, CR or LF',
      );
      const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
      const orgs = (
        (await (await fetch(`${suite.emulator.url}/iam/v2/groups?name=hostile`, auth)).json()) as {
          groups: { uid: string }[];
        }
      ).groups;
      expect(orgs).toHaveLength(1);
      const live = await fetch(`${suite.emulator.url}/iam/v2/groupInvites?uidp.descendants_of=${orgs[0]!.uid}`, auth);
      expect(((await live.json()) as { groupInvites: unknown[] }).groupInvites).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

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
