/**
 * Account associations end to end (DESIGN.md §2, §3): one per group, the org's included (its
 * uid is the org's, so it is read by uid beside the listings); a changed block is one PATCH
 * naming it; exported as a single object and planned back to nothing; deleted before its group.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'account-assoc-e2e-token-19ad';
const manifest = (projectId: string, withEng = true) =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  accountAssociation:',
    '    name: acme-cloud',
    '    amazon: {account: "123456789012"}',
    `    google: {projectId: ${projectId}, projectNumber: "123456789"}`,
    ...(withEng
      ? [
          '  groups:',
          '    - name: eng',
          '      accountAssociation:',
          '        name: eng-code',
          '        github: {installations: [{installationId: "42", name: acme}]}',
        ]
      : []),
    '',
  ].join('\n');

describe('account associations', () => {
  const suite = useSuiteEmulator(TOKEN, 'assoc', () => mkdirSync(dir));
  const dir = join(suite.dir, 'm');
  const writes = () => suite.emulator.requestLog.filter((e) => e.method !== 'GET');

  it("creates the org's and a group's association, with their groups' uids; a re-plan is empty", async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('acme-prod'));
    const apply = await runCli(['apply', dir, '--bootstrap', '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toContain('✓ create accountAssociation:/');
    expect(apply.stdout).toContain('✓ create accountAssociation:eng');
    const posts = writes().filter((e) => e.path.startsWith('/iam/v2/accountAssociations/'));
    const groups = writes().filter((e) => e.path.startsWith('/iam/v2/groups'));
    expect(posts).toHaveLength(2);
    expect(groups).toHaveLength(2);
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('updates a changed block by one PATCH naming it', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('acme-staging'));
    const plan = await runCli(['plan', dir], { env: suite.env });
    expect(plan.stdout).toContain('~ update accountAssociation:/');
    expect(plan.stdout).toContain('google.projectId: "acme-prod" → "acme-staging"');
    suite.emulator.clearRequestLog();
    expect((await runCli(['apply', dir, '--auto-approve'], { env: suite.env })).code).toBe(0);
    expect(writes().map((e) => `${e.method} ${e.query.updateMask}`)).toEqual(['PATCH google']);
  });

  it('is exported as a single object and plans back to nothing', async () => {
    const out = join(suite.dir, 'exported');
    expect((await runCli(['export', '--org', 'acme', '--out', out], { env: suite.env })).code).toBe(0);
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toContain('accountAssociation:\n    name: acme-cloud');
    expect(readFileSync(join(out, 'eng.yaml'), 'utf8')).toContain(
      'github: { installations: [ { installationId: "42", name: acme } ] }',
    );
    expect((await runCli(['plan', out, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('is deleted before its group', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('acme-staging', false));
    suite.emulator.clearRequestLog();
    const apply = await runCli(['apply', dir, '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stdout).toBe(0);
    expect(writes().map((e) => `${e.method} ${e.path.split('/')[3]}`)).toEqual([
      'DELETE accountAssociations',
      'DELETE groups',
    ]);
  });
});
