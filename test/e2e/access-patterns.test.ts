/**
 * Changed patterns compared as languages (issue 58, DESIGN.md §4 "A changed pattern (rev 6)"), end
 * to end through the CLI in process against the emulator: widenings that keep the old literal
 * prefix — a quantifier on the prefix's last character, a top-level alternation, a flag — are new
 * principals the gate refuses on every path (plan, apply, apply plan.json), while `access --as`
 * agrees that the outsider's token acts as the bot; narrowings pass the gate.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'access-patterns-owner-token-58a1';
const GH = 'https://token.actions.githubusercontent.com';
const outsider = (sub: string) => JSON.stringify({ iss: GH, sub });

/** The org: owner-bot is owner, accepting `relationship`. */
function manifest(relationship: string): string {
  return [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  identities:',
    `    - {name: owner-bot, ${relationship}}`,
    '  roleBindings:',
    '    - {identity: owner-bot, role: owner}',
    '',
  ].join('\n');
}
const subject = (pattern: string) => `claimMatch: {issuer: "${GH}", subjectPattern: ${JSON.stringify(pattern)}}`;
const claim = (pattern: string) =>
  `claimMatch: {issuer: "${GH}", subject: "repo:acme/app:ref:refs/heads/main", claimPatterns: {repository_owner: ${JSON.stringify(pattern)}}}`;
const arn = (pattern: string) => `awsIdentity: {awsAccount: "123456789012", arnPattern: ${JSON.stringify(pattern)}}`;

describe('a changed pattern is a new principal unless its language is within the old one', () => {
  const suite = useSuiteEmulator(TOKEN, 'access-patterns');
  const file = () => join(suite.dir, 'org.yaml');
  const cli = (args: string[]) => runCli(args, { env: suite.env });
  const writes = () => suite.emulator.requestLog.filter((e) => e.method !== 'GET');
  const from = async (base: string, variant: string) => {
    writeFileSync(file(), manifest(base));
    const applied = await cli(['apply', file(), '--bootstrap', '--auto-approve']);
    expect(applied.code, applied.stderr).toBe(0);
    writeFileSync(file(), manifest(variant));
    suite.emulator.clearRequestLog();
  };

  const evil = 'repo:acme-evil/x:ref:refs/heads/main';
  /** What widens `repo:acme/.*`, and a subject the wider pattern admits that the old one did not. */
  /** …and what the plan then says the bot admits (access/admits.ts: the words audit judges by). */
  const many = 'GitHub workflows of more than one owner';
  const wider: [string, string, string, string][] = [
    ["a quantifier on the prefix's last character (?)", subject('repo:acme/?.*'), evil, many],
    ["a quantifier on the prefix's last character (*)", subject('repo:acme/*.*'), evil, many],
    ["a quantifier on the prefix's last character ({0})", subject('repo:acme/{0}.*'), evil, many],
    ['a top-level alternation (x|.*)', subject('repo:acme/x|.*'), evil, 'any GitHub workflow'],
    [
      'a top-level alternation (another owner)',
      subject('repo:acme/.*|repo:evil/.*'),
      'repo:evil/x:ref:refs/heads/main',
      many,
    ],
    [
      'a flag ((?i))',
      subject('(?i)repo:acme/.*'),
      'REPO:ACME/x:ref:refs/heads/main',
      'pull-request workflows of any repository of acme',
    ],
  ];
  for (const [what, variant, sub, admits] of wider) {
    it(`subjectPattern widened by ${what}: the gate refuses it on plan and apply, and access --as agrees`, async () => {
      await from(subject('repo:acme/.*'), variant);
      const plan = await cli(['plan', file()]);
      expect(plan.code, plan.stderr).toBe(0);
      expect(plan.stdout).toMatch(/\+ identity:owner-bot \(subjectPattern "[^\n]*"\) gains all of owner/);
      expect(plan.stdout).toMatch(
        new RegExp(`\\n {6}identity:owner-bot now also accepts subjectPattern "[^\\n]*" — ${admits}\\n`),
      );
      const denied = await cli(['plan', file(), '--deny-new-access']);
      expect(denied.code, denied.stdout).toBe(1);
      expect(denied.stderr).toContain('the plan gives new access (--deny-new-access)');
      const apply = await cli(['apply', file(), '--deny-new-access', '--auto-approve']);
      expect(apply.code).toBe(1);
      expect(writes()).toEqual([]);
      // What the gate calls new is what access says: with the variant applied, the outsider acts as the owner bot.
      expect((await cli(['apply', file(), '--auto-approve'])).code).toBe(0);
      const before = await cli(['access', file(), '--as', outsider(sub), '--format', 'json']);
      expect(JSON.parse(before.stdout)).toMatchObject({ actingAs: ['identity:owner-bot'] });
      writeFileSync(file(), manifest(subject('repo:acme/.*')));
      expect((await cli(['apply', file(), '--auto-approve'])).code).toBe(0);
      const as = await cli(['access', file(), '--as', outsider(sub), '--format', 'json']);
      expect(as.code, as.stderr).toBe(0);
      expect(JSON.parse(as.stdout)).toMatchObject({ actingAs: [] });
    });
  }

  it('a widened claim pattern and a widened ARN pattern are new principals; apply plan.json --deny-new-access refuses them', async () => {
    for (const [base, variant] of [
      [claim('acme'), claim('acme|evil')],
      [claim('acme.*'), claim('acme?.*')],
      [
        arn('arn:aws:sts::123456789012:assumed-role/deploy/.*'),
        arn('arn:aws:sts::123456789012:assumed-role/deploy/?.*'),
      ],
    ] as const) {
      await from(base, variant);
      const saved = join(suite.dir, 'plan.json');
      const plan = await cli(['plan', file(), '--out', saved]);
      expect(plan.stdout, variant).toMatch(/\+ identity:owner-bot \([^\n]*\) gains all of owner/);
      suite.emulator.clearRequestLog();
      const denied = await cli(['apply', saved, '--deny-new-access', '--auto-approve']);
      expect(denied.code, variant).toBe(1);
      expect(writes()).toEqual([]);
    }
  });

  it("an identity provider's groupsClaim is part of who its groups are: groups → name with platform-admins → owner is a gain", async () => {
    const idp = (claim: string) =>
      [
        '  identityProviders:',
        '    - name: okta',
        '      defaultRole: viewer',
        `      oidc: {issuer: "https://acme.okta.com", clientId: "0oa1b2c3d4", clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}, groupsClaim: ${claim}}`,
        '      groupMappings:',
        '        - {externalGroup: platform-admins, role: owner}',
        '',
      ].join('\n');
    const env = { ...suite.env, PLATFORM_SYNC_SECRET_OKTA: 'okta-client-secret-for-the-test-0058' };
    writeFileSync(file(), manifest(subject('repo:acme/.*')) + idp('groups'));
    const applied = await runCli(['apply', file(), '--bootstrap', '--auto-approve'], { env });
    expect(applied.code, applied.stderr + applied.stdout).toBe(0);
    writeFileSync(file(), manifest(subject('repo:acme/.*')) + idp('name'));
    const plan = await cli(['plan', file()]);
    expect(plan.stdout).toMatch(/\+ idp:okta\/group:platform-admins gains all of owner/);
    const denied = await cli(['plan', file(), '--deny-new-access']);
    expect(denied.code, denied.stdout).toBe(1);
    writeFileSync(file(), manifest(subject('repo:acme/.*')) + idp('groups'));
    const same = await cli(['plan', file(), '--deny-new-access']);
    expect(same.code, same.stderr).toBe(0);
  });

  it('access --as answers, never crashes, when a manifest claim is named toString (or valueOf, hasOwnProperty) and the token lacks it', async () => {
    for (const name of ['toString', 'valueOf', 'hasOwnProperty']) {
      await from(subject('repo:acme/.*'), subject('repo:acme/.*'));
      writeFileSync(
        file(),
        manifest(
          `claimMatch: {issuer: "${GH}", subject: "repo:acme/app:ref:refs/heads/main", claims: {${JSON.stringify(name)}: x}}`,
        ),
      );
      const as = await cli([
        'access',
        file(),
        '--as',
        outsider('repo:acme/app:ref:refs/heads/main'),
        '--format',
        'json',
      ]);
      expect(as.code, `${name}: ${as.stderr}`).toBe(0);
      expect(JSON.parse(as.stdout)).toMatchObject({ actingAs: [] });
      const holds = await cli([
        'access',
        file(),
        '--as',
        JSON.stringify({ iss: GH, sub: 'repo:acme/app:ref:refs/heads/main', [name]: 'x' }),
        '--format',
        'json',
      ]);
      expect(holds.code, `${name}: ${holds.stderr}`).toBe(0);
      expect(JSON.parse(holds.stdout)).toMatchObject({ actingAs: ['identity:owner-bot'] });
    }
  });

  it('narrowings are no gain: a longer prefix, an alternation of repositories, an exact subject', async () => {
    for (const variant of [
      subject('repo:acme/app:.*'),
      subject('repo:acme/(app|web):.*'),
      `claimMatch: {issuer: "${GH}", subject: "repo:acme/app:ref:refs/heads/main"}`,
    ]) {
      await from(subject('repo:acme/.*'), variant);
      const plan = await cli(['plan', file(), '--deny-new-access']);
      expect(plan.code, `${variant}\n${plan.stderr}`).toBe(0);
      expect(plan.stdout).not.toContain(' gains ');
    }
  });
});
