/**
 * The GitHub Action's runner (src/action/run.ts) against an embedded emulator and a stand-in
 * for the GitHub API: --deny-new-access, the secrets it passes, invite codes.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRewritingProxy } from '../support/rewriting-proxy.js';
import { runStep, useActionSuite } from '../support/action-step.js';

describe('the action runner: gates, secrets and invite codes', () => {
  const TOKEN = 'action-runner-owner-token-31c8';
  const suite = useActionSuite(TOKEN, 'runner', { number: 3, sha: 'feedbeef00' });
  const temp = suite.temp;
  const scratch = suite.scratch;

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
      'line 1 of secrets-env: what comes before its first "=" is not a name PLATFORM_SYNC_SECRET_<NAME> (capital letters, digits and _): expected PLATFORM_SYNC_SECRET_<NAME>=value, one a line (the only variables a manifest can name); the line is not shown, as it may hold a secret',
    );
    expect(refused.stderr).not.toContain('stolen-token-value');
  });

  it('secrets-env: a line that is not NAME=value is named by its number, and nothing of it is printed (found by the review)', async () => {
    const { dir } = scratch('secrets-env-pasted', 'apiVersion: platform-sync/v1\norg:\n  name: pasted\n');
    const before = suite.emulator.requestLog.length;
    // A base64 value pasted without its name: what precedes its first "=" is all of it but the padding,
    // which the runner's masking of the whole secret would miss. And a value that looks like a name.
    for (const [given, secret, why] of [
      [
        'PLATFORM_SYNC_SECRET_A=one\nc2VjcmV0dmFsdWUxMjM0NTY3OA==\n',
        'c2VjcmV0dmFsdWUxMjM0NTY3OA',
        'line 2 of secrets-env: what comes before',
      ],
      [
        '# pasted\nOkta_Client_Secret_9f8e7d6c5b4a\n',
        'Okta_Client_Secret_9f8e7d6c5b4a',
        'line 2 of secrets-env has no "="',
      ],
    ]) {
      const refused = await runStep(
        { command: 'apply', paths: dir },
        { ...suite.env, PS_SECRETS_ENV: given! },
        temp.dir,
      );
      expect(refused.exitcode).toBe(1);
      expect(refused.stdout + refused.stderr).not.toContain(secret!.slice(0, 12));
      expect(refused.stderr).toContain(why);
      expect(refused.stderr).toContain('expected PLATFORM_SYNC_SECRET_<NAME>=value');
    }
    // Refused before anything was read or sent.
    expect(suite.emulator.requestLog.length).toBe(before);
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
});
