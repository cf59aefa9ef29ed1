/**
 * Where features meet, end to end (CLI in process, the emulator over loopback, its request log):
 * a saved plan overtaken by a hand edit is stale, not "already applied"; a server that lists a
 * group's own association under it does not make one association two; `plan --rotate-secrets`
 * is shown, saved and applied.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startRewritingProxy } from '../support/rewriting-proxy.js';
import { ACME, openClient, runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'features-meet-owner-token-4b1e';

const manifest = (description: string) =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  repos:',
    `    - {name: app, description: ${description}}`,
    '',
  ].join('\n');

describe('a saved plan overtaken by a hand edit (defect 2)', () => {
  const suite = useSuiteEmulator(TOKEN, 'meet-saved');

  it('is refused as stale, naming the resource, never called "already applied"', async () => {
    const file = join(suite.dir, 'org.yaml');
    writeFileSync(file, manifest('v1'));
    expect((await runCli(['apply', file, '--bootstrap', '--auto-approve'], { env: suite.env })).code).toBe(0);
    writeFileSync(file, manifest('v2'));
    const planFile = join(suite.dir, 'plan.json');
    expect((await runCli(['plan', file, '--out', planFile], { env: suite.env })).code).toBe(0);
    // By hand, to a third value.
    const client = openClient(suite.env.PLATFORM_API_URL!, TOKEN);
    try {
      const repo = (await client.list('repo', { name: 'app' })).items[0]!;
      await client.update('repo', repo.uid, { description: 'v3' }, ['description']);
    } finally {
      await client.close();
    }
    suite.emulator.clearRequestLog();
    const run = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('already applied');
    expect(run.stderr).toContain('repo:app');
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('is "already applied" when live holds exactly what its steps set', async () => {
    const file = join(suite.dir, 'org.yaml');
    writeFileSync(file, manifest('v4'));
    const planFile = join(suite.dir, 'plan4.json');
    expect((await runCli(['plan', file, '--out', planFile], { env: suite.env })).code).toBe(0);
    expect((await runCli(['apply', planFile, '--auto-approve'], { env: suite.env })).code).toBe(0);
    const again = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('this saved plan was already applied');
  });
});

describe("a server whose descendants listing includes the org's own association (defect 3)", () => {
  const suite = useSuiteEmulator(TOKEN, 'meet-assoc');

  it('reads it once: plan is empty and export works', async () => {
    const file = join(suite.dir, 'org.yaml');
    writeFileSync(
      file,
      [
        'apiVersion: platform-sync/v1',
        'org:',
        '  name: acme',
        '  accountAssociation:',
        '    name: acme-cloud',
        '    amazon: {account: "123456789012"}',
        '',
      ].join('\n'),
    );
    expect((await runCli(['apply', file, '--bootstrap', '--auto-approve'], { env: suite.env })).code).toBe(0);
    const upstream = suite.emulator.url;
    // The org's association, as the server lists it by uid: added to every listing of associations.
    const orgAssociation = await (async () => {
      const client = openClient(upstream, TOKEN);
      try {
        const org = (await client.list('group', { name: 'acme' })).items[0]!;
        return await client.get('accountAssociation', org.uid);
      } finally {
        await client.close();
      }
    })();
    const proxy = await startRewritingProxy(upstream, (request, body) => {
      if (!request.path.startsWith('/iam/v2/accountAssociations?')) return body;
      const page = body as { accountAssociations: unknown[]; totalCount: string };
      return {
        ...page,
        accountAssociations: [orgAssociation, ...page.accountAssociations],
        totalCount: String(Number(page.totalCount) + 1),
      };
    });
    try {
      const env = { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: TOKEN };
      const plan = await runCli(['plan', file, '--detailed-exitcode'], { env });
      expect(plan.stdout + plan.stderr).not.toContain('matches 2 live resources');
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect(proxy.seen.some((s) => s.path.startsWith('/iam/v2/accountAssociations?'))).toBe(true);
      const exported = await runCli(['export', '--org', 'acme', '--out', join(suite.dir, 'export')], { env });
      expect(exported.code, exported.stderr).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});

describe('plan --rotate-secrets (defect 8)', () => {
  const suite = useSuiteEmulator(TOKEN, 'meet-rotate');

  it('is shown, saved, and applied from the saved plan', async () => {
    expect((await runCli(['apply', ACME, '--bootstrap', '--auto-approve'], { env: suite.env })).code).toBe(0);
    const planFile = join(suite.dir, 'rotate.json');
    const plan = await runCli(['plan', ACME, '--rotate-secrets', '--out', planFile], { env: suite.env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('~ update identityProvider:okta');
    expect(plan.stdout).toContain('--rotate-secrets');
    suite.emulator.clearRequestLog();
    const apply = await runCli(['apply', planFile, '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const writes = suite.emulator.requestLog.filter((e) => e.method !== 'GET');
    expect(writes.map((e) => `${e.method} ${e.query.updateMask}`)).toEqual(['PATCH oidc.clientSecret']);
  });
});
