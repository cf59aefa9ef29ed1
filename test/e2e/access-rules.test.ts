/**
 * Access rules and escalation (issue 59, DESIGN.md §3 `org.accessRules`, §4 rev 6, §7), end to end
 * through the CLI in process against the emulator: each rule form refuses a plan that would break
 * it and passes one that holds to it; a bot bound to a custom role holding only roles.update and
 * roles.list can obtain role_bindings.create (the refusal names roles.update); `audit` on a live
 * org that breaks a newly added rule reports access-rule and escalation-path naming that bot;
 * `apply plan.json` judges the rules again.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REPO_ROOT, runCli, useSuiteEmulator } from './cli-harness.js';
import { runStep, useActionSuite } from '../support/action-step.js';

const ajv = new Ajv2020({ allErrors: true, strict: false });
const validatePlan = ajv.compile(
  JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'plan.schema.json'), 'utf8')) as object,
);
const validateDrift = ajv.compile(
  JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'drift.schema.json'), 'utf8')) as object,
);
const validateAccess = ajv.compile(
  JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'access.schema.json'), 'utf8')) as object,
);

const TOKEN = 'access-rules-e2e-owner-token-5a1f';
const GH = 'https://token.actions.githubusercontent.com';

interface Shape {
  /** Extra bindings of the org, as YAML flow maps. */
  bindings?: string[];
  /** The accessRules list, as YAML lines (indented for the org). */
  rules?: string[];
  prPattern?: string;
}

const manifest = (shape: Shape): string =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  identities:',
    '    - {name: release-bot, servicePrincipal: COSIGNED}',
    `    - {name: role-bot, claimMatch: {issuer: "${GH}", subject: "repo:acme/roles:ref:refs/heads/main"}}`,
    `    - {name: pr-bot, claimMatch: {issuer: "${GH}", subjectPattern: "${shape.prPattern ?? 'repo:acme/app:ref:refs/heads/.*'}"}}`,
    '  roles:',
    '    - {name: role-editor, capabilities: [roles.update, roles.list]}',
    '  roleBindings:',
    '    - {identity: release-bot, role: owner}',
    ...(shape.bindings ?? []).map((b) => `    - ${b}`),
    ...(shape.rules ? ['  accessRules:', ...shape.rules] : []),
    '  groups:',
    '    - name: engineering',
  ].join('\n');

const ONLY_RELEASE_BOT = [
  '    - name: only-release-bot-binds',
  '      capabilities: [role_bindings.create]',
  '      onlyPrincipals: ["identity:release-bot"]',
];
const ONE_OWNER = ['    - name: one-owner', '      role: owner', '      count: {min: 1, max: 1}'];
const PR_NEVER_WRITES = [
  '    - name: pull-requests-never-write',
  '      scope: engineering',
  `      token: {iss: "${GH}", sub: "repo:acme/app:pull_request"}`,
  '      capabilities: [repo.update]',
  '      never: true',
];

describe('access rules on every plan', () => {
  const suite = useSuiteEmulator(TOKEN, 'access-rules');
  const file = () => join(suite.dir, 'org.yaml');
  const plan = async (shape: Shape, ...args: string[]) => {
    writeFileSync(file(), manifest(shape));
    return runCli(['plan', file(), ...args], { env: suite.env });
  };

  it('starts from an org with one owner (release-bot)', async () => {
    writeFileSync(file(), manifest({}));
    const applied = await runCli(['apply', file(), '--bootstrap', '--auto-approve'], { env: suite.env });
    expect(applied.code, applied.stderr).toBe(0);
  });

  it('onlyPrincipals: passes while only release-bot can bind; a bot with a custom role of roles.update and roles.list breaks it, and the refusal names roles.update', async () => {
    const ok = await plan({ rules: ONLY_RELEASE_BOT });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('✓ only-release-bot-binds: holds');
    const bad = await plan({ rules: ONLY_RELEASE_BOT, bindings: ['{identity: role-bot, role: role-editor}'] });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('✗ only-release-bot-binds: BROKEN');
    expect(bad.stderr).toContain('access rule "only-release-bot-binds"');
    expect(bad.stderr).toMatch(
      /identity:role-bot can obtain role_bindings\.create on org \(obtainable: holds roles\.update there through role:role-editor \(roleBinding:role-bot=role-editor\)\)/,
    );
    // Rule results come above the steps, in text and in markdown; JSON carries them.
    expect(bad.stdout.indexOf('Access rules:')).toBeLessThan(bad.stdout.indexOf('+ create roleBinding'));
    const md = await plan(
      { rules: ONLY_RELEASE_BOT, bindings: ['{identity: role-bot, role: role-editor}'] },
      '--format',
      'markdown',
    );
    expect(md.stdout.indexOf('#### Access rules')).toBeGreaterThan(0);
    expect(md.stdout).toContain('| `only-release-bot-binds` | `org` | ❌ **broken**');
    const json = JSON.parse(
      (
        await plan(
          { rules: ONLY_RELEASE_BOT, bindings: ['{identity: role-bot, role: role-editor}'] },
          '--format',
          'json',
        )
      ).stdout,
    ) as {
      accessRules: {
        rule: string;
        passed: boolean;
        violations: { principal: string; capabilities: string[]; scope: string; causes: string[]; grants: string[] }[];
      }[];
      refusals: { rule: string }[];
    };
    expect(json.accessRules[0]).toMatchObject({
      rule: 'only-release-bot-binds',
      test: 'onlyPrincipals',
      scope: 'org',
      passed: false,
    });
    expect(json.accessRules[0]!.violations).toEqual([
      expect.objectContaining({
        principal: 'identity:role-bot',
        capabilities: ['role_bindings.create'],
        scope: 'org',
        grants: ['roleBinding:role-bot=role-editor'],
      }),
    ]);
    expect(json.refusals.map((r) => r.rule)).toContain('access-rule');
    expect(validatePlan(json), JSON.stringify(validatePlan.errors)).toBe(true);
    // The access change says what the gained roles.update can obtain, and how.
    expect(bad.stdout).toContain(
      'can obtain all of owner on org: holds roles.update there through role:role-editor (roleBinding:role-bot=role-editor)',
    );
    // access marks what role-bot can obtain without holding it, with the path; JSON holds to its schema.
    const access = await runCli(['access', file(), '--identity', 'role-bot'], { env: suite.env });
    expect(access.code, access.stderr).toBe(0);
    expect(access.stdout).toContain(
      'org and 1 group below: roles.list, roles.update  (roleBinding:role-bot=role-editor, role:role-editor)',
    );
    expect(access.stdout).toMatch(
      /org and 1 group below: can obtain 151 capabilities \(account_associations\.create, [^\n]*\(holds roles\.update there through role:role-editor \(roleBinding:role-bot=role-editor\)\)/,
    );
    const accessJson = JSON.parse(
      (
        await runCli(
          ['access', file(), '--identity', 'role-bot', '--capability', 'role_bindings.create', '--format', 'json'],
          { env: suite.env },
        )
      ).stdout,
    ) as { grants: unknown[] };
    expect(accessJson.grants).toEqual([
      {
        principal: 'identity:role-bot',
        identity: 'identity:role-bot',
        scope: 'org',
        groups: 2,
        capabilities: ['role_bindings.create'],
        grant: 'roleBinding:role-bot=role-editor',
        role: 'role:role-editor',
        obtainable: 'holds roles.update there through role:role-editor (roleBinding:role-bot=role-editor)',
      },
    ]);
    expect(validateAccess(accessJson), JSON.stringify(validateAccess.errors)).toBe(true);
    // apply <paths> stops before any write.
    suite.emulator.clearRequestLog();
    const applied = await runCli(['apply', file(), '--auto-approve'], { env: suite.env });
    expect(applied.code).toBe(1);
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('count: one owner passes, two owners break it (naming both)', async () => {
    const ok = await plan({ rules: ONE_OWNER });
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await plan({ rules: ONE_OWNER, bindings: ['{identity: role-bot, role: owner}'] });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('access rule "one-owner"');
    expect(bad.stderr).toContain('2 principals hold all of owner on org (expected 1 to 1)');
    expect(bad.stderr).toContain('identity:role-bot holds');
    expect(bad.stderr).toContain('identity:release-bot holds');
  });

  it('token + never: a pull-request token that no identity accepts passes; a pattern that accepts it, bound to editor on engineering, breaks it', async () => {
    const ok = await plan({ rules: PR_NEVER_WRITES, bindings: ['{identity: pr-bot, role: editor}'] });
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await plan({
      rules: PR_NEVER_WRITES,
      prPattern: 'repo:acme/app:.*',
      bindings: ['{identity: pr-bot, role: editor}'],
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('access rule "pull-requests-never-write"');
    expect(bad.stderr).toContain(
      'identity:pr-bot can obtain repo.update on group:engineering (held through role editor (roleBinding:pr-bot=editor))',
    );
  });

  it('audit on a live org that breaks a newly added rule reports access-rule and escalation-path naming the bot', async () => {
    writeFileSync(file(), manifest({ bindings: ['{identity: role-bot, role: role-editor}'] }));
    const applied = await runCli(['apply', file(), '--auto-approve'], { env: suite.env });
    expect(applied.code, applied.stderr).toBe(0);
    writeFileSync(file(), manifest({ rules: ONLY_RELEASE_BOT, bindings: ['{identity: role-bot, role: role-editor}'] }));
    const audited = await runCli(['audit', file(), '--format', 'json'], { env: suite.env });
    const report = JSON.parse(audited.stdout) as {
      findings: { rule: string; severity: string; address: string; message: string; location?: { line: number } }[];
    };
    const rule = report.findings.filter((f) => f.rule === 'access-rule');
    expect(rule).toEqual([expect.objectContaining({ severity: 'high', address: 'identity:role-bot' })]);
    expect(rule[0]!.message).toContain('only-release-bot-binds');
    expect(rule[0]!.message).toContain('roles.update');
    expect(rule[0]!.location?.line).toBe(14);
    const escalation = report.findings.filter((f) => f.rule === 'escalation-path');
    expect(escalation).toEqual([expect.objectContaining({ severity: 'high', address: 'identity:role-bot' })]);
    expect(escalation[0]!.message).toContain(
      'identity:role-bot can obtain all of owner on org without holding it: holds roles.update there through role:role-editor',
    );
    // drift judges live too: in sync (nothing was changed by hand), and the broken rule reported.
    const drift = await runCli(['drift', file()], { env: suite.env });
    expect(drift.stdout).toContain('Live breaks access rules of the manifests:');
    expect(drift.stdout).toContain(
      'identity:role-bot can obtain role_bindings.create on org (obtainable: holds roles.update there',
    );
    const driftJson = JSON.parse((await runCli(['drift', file(), '--format', 'json'], { env: suite.env })).stdout) as {
      inSync: boolean;
      accessRules: { rule: string; passed: boolean }[];
    };
    expect(driftJson.inSync).toBe(true);
    expect(validateDrift(driftJson), JSON.stringify(validateDrift.errors)).toBe(true);
    expect(driftJson.accessRules).toEqual([expect.objectContaining({ rule: 'only-release-bot-binds', passed: false })]);
    // release-bot holds owner: no escalation to report for it.
    expect(report.findings.some((f) => f.rule === 'escalation-path' && f.address === 'identity:release-bot')).toBe(
      false,
    );
  });

  it('apply plan.json judges the rules again on the state its steps lead to from live now', async () => {
    const planFile = join(suite.dir, 'plan.json');
    writeFileSync(file(), manifest({ rules: ONE_OWNER, bindings: ['{identity: pr-bot, role: viewer}'] }));
    const saved = await runCli(['plan', file(), '--out', planFile], { env: suite.env });
    expect(saved.code, saved.stderr).toBe(0);
    // The plan file is untrusted: results written into it count for nothing, and a rule in its basis is judged now.
    const doc = JSON.parse(readFileSync(planFile, 'utf8')) as {
      basis: { desired: { accessRules: { count: { min?: number; max?: number } }[] } };
      accessRules?: unknown;
    };
    doc.basis.desired.accessRules[0]!.count = { min: 2 };
    writeFileSync(planFile, JSON.stringify(doc));
    suite.emulator.clearRequestLog();
    const applied = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('access rule "one-owner"');
    expect(applied.stderr).toContain('1 principal holds all of owner on org (expected at least 2)');
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });
});

describe('access rules in the Action', () => {
  const suite = useActionSuite('access-rules-action-token-77c2', 'access-rules-action', {
    number: 9,
    sha: 'abcdef0123',
  });
  const dir = () => join(suite.temp.dir, 'manifests');

  it('the pull-request comment shows the rules above the steps; a plan that breaks one fails the step, and the comment names the rule and roles.update', async () => {
    mkdirSync(dir(), { recursive: true });
    writeFileSync(join(dir(), 'org.yaml'), manifest({}));
    expect(
      (await runStep({ command: 'apply', paths: dir(), args: '--bootstrap' }, suite.env, suite.temp.dir)).exitcode,
    ).toBe(0);
    writeFileSync(
      join(dir(), 'org.yaml'),
      manifest({ rules: ONLY_RELEASE_BOT, bindings: ['{identity: pr-bot, role: viewer}'] }),
    );
    const ok = await runStep({ command: 'plan', paths: dir(), comment: 'true' }, suite.env, suite.temp.dir);
    expect(ok.exitcode).toBe(2);
    const body = suite.github.comments[0]!.body;
    expect(body).toContain('| `only-release-bot-binds` | `org` | ✅ holds');
    expect(body.indexOf('#### Access rules')).toBeLessThan(body.indexOf('roleBinding:pr-bot=viewer'));
    writeFileSync(
      join(dir(), 'org.yaml'),
      manifest({ rules: ONLY_RELEASE_BOT, bindings: ['{identity: role-bot, role: role-editor}'] }),
    );
    const refused = await runStep({ command: 'plan', paths: dir(), comment: 'true' }, suite.env, suite.temp.dir);
    expect(refused.exitcode).toBe(1);
    const second = suite.github.comments[0]!.body;
    expect(second).toContain('access rule \\"only-release-bot-binds\\"'.replaceAll('\\', ''));
    expect(second).toContain('holds roles.update there through role:role-editor');
  });
});
