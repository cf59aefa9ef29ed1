/**
 * Members against an org that already has invites and people (DESIGN.md §4, §6; issue 38): a
 * seeded expired invite of a declared member is replaced in one apply; a seeded person with the
 * member's e-mail and binding is present; invites no member declares are pruned; export writes
 * the open invites as members and leaves the rest alone, and plans back to nothing.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'members-seeded-token-71c4';
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('members against seeded invites', () => {
  const suite = useSuiteEmulator(TOKEN, 'members-seeded', (emulator) => {
    mkdirSync(dir);
    emulator.seed({
      orgs: [
        {
          name: 'acme',
          identities: [
            {
              name: 'carol',
              email: 'Carol@acme.dev',
              claimMatch: { issuer: 'https://accounts.acme.dev', subject: 'carol' },
            },
          ],
          roleBindings: [{ identity: 'carol', role: 'editor' }],
          groupInvites: [
            { role: 'viewer', email: 'alice@acme.dev', expirationTime: iso(Date.now() - 2 * DAY) },
            { role: 'viewer', email: 'dave@acme.dev', expirationTime: iso(Date.now() + 5 * DAY) },
            { role: 'owner', expirationTime: iso(Date.now() + 5 * DAY), code: 'seeded-open-invite-code-0001' },
          ],
        },
      ],
    });
  });
  const dir = join(suite.dir, 'm');
  const codesFile = join(suite.dir, 'codes.jsonl');
  const org = (members: string[]) =>
    [
      'apiVersion: platform-sync/v1',
      'org:',
      '  name: acme',
      '  identities:',
      '    - name: carol',
      ...(members.length > 0 ? ['  members:', ...members.map((m) => `    - ${m}`)] : []),
      '',
    ].join('\n');

  it('exports the open invite with an e-mail and the person present as members and ignores the others, planning back to nothing', async () => {
    const out = join(suite.dir, 'exported');
    const exported = await runCli(['export', '--org', 'acme', '--out', out], { env: suite.env });
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(join(out, 'org.yaml'), 'utf8');
    // Carol is present (an identity with her e-mail, bound editor): a members line, not an identity and a binding (issue 50).
    expect(text).toContain(
      'members:\n    - { email: Carol@acme.dev, role: editor }\n    - { email: dave@acme.dev, role: viewer }',
    );
    expect(text).not.toMatch(/name: carol/);
    expect(text).toMatch(/ignore:\n( {4}- groupInvite:\S+\n){2}/);
    expect(text).toMatch(/\n {4}- groupInvite:[0-9a-f]{16}=owner\n/);
    expect(text).toContain('\n    - groupInvite:alice@acme.dev=viewer\n');
    expect(text).not.toContain('seeded-open-invite-code-0001');
    const plan = await runCli(['plan', out, '--detailed-exitcode'], { env: suite.env });
    expect(plan.code, plan.stdout).toBe(0);
  });

  it('audit finds the expired invite (low) and the open owner invite (high)', async () => {
    writeFileSync(join(dir, 'org.yaml'), org([]));
    const audit = await runCli(['audit', dir, '--format', 'json', '--fail-on', 'high'], { env: suite.env });
    expect(audit.code, audit.stderr).toBe(2);
    const findings = (
      JSON.parse(audit.stdout) as { findings: { rule: string; severity: string; address: string }[] }
    ).findings.filter((f) => f.rule.includes('invite'));
    expect(findings.map((f) => [f.rule, f.severity, f.address.replace(/[0-9a-f]{16}/, '<uid>')]).sort()).toEqual([
      ['invite-expired', 'low', 'groupInvite:alice@acme.dev=viewer'],
      ['open-invite', 'high', 'groupInvite:<uid>=owner'],
    ]);
  });

  it('replaces the expired invite of a declared member, keeps a present one, prunes the undeclared', async () => {
    writeFileSync(
      join(dir, 'org.yaml'),
      org(['{email: alice@acme.dev, role: viewer}', '{email: carol@ACME.dev, role: editor}']),
    );
    const plan = await runCli(['plan', dir, '--format', 'json'], { env: suite.env });
    const json = JSON.parse(plan.stdout) as {
      steps: { action: string; address: string }[];
      members: { email: string; state: string; replaces?: string }[];
    };
    expect(json.members.map((m) => [m.email, m.state])).toEqual([
      ['alice@acme.dev', 'invited'],
      ['carol@ACME.dev', 'present'],
    ]);
    const deletes = json.steps.filter((s) => s.action === 'delete').map((s) => s.address);
    expect(deletes).toHaveLength(3); // alice's expired invite, dave's and the open one: no member declares them
    expect(deletes).toContain(json.members[0]!.replaces);
    expect(json.steps.filter((s) => s.action === 'create').map((s) => s.address)).toEqual([
      'groupInvite:alice@acme.dev=viewer',
    ]);
    const apply = await runCli(['apply', dir, '--auto-approve', '--invite-codes', codesFile], { env: suite.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(readFileSync(codesFile, 'utf8').trim().split('\n')).toHaveLength(1);
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });
});
