/**
 * The one door out (DESIGN.md §8 rev 4, issue 35), end to end through the CLI in process: what a
 * hostile server, live data or a user's path may make the product print or write. Each test is
 * a named regression of the attack it stops.
 */
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretForms } from '../../src/io/redact.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { renderMarkdownAudit } from '../../src/views/audit.js';
import type { AuditReport } from '../../src/audit/index.js';
import { sealExportFile } from '../../src/export/write-export.js';
import { answerWith, startRewritingProxy, type RewritingProxy } from '../support/rewriting-proxy.js';
import { makeTempDir, openClient, runCli, type CliRun } from './cli-harness.js';

const TOKEN = 'one-door-out-owner-token-8e1b';
/** A client secret with a quote, a backslash and a tab: each escapes differently in JSON, markdown and the terminal. */
const SECRET = 'Quote"Secret\\back\tslash-7c1f0e2d';

function expectNoForm(run: CliRun | string, secret: string): void {
  const text = typeof run === 'string' ? run : run.stdout + run.stderr;
  for (const form of secretForms(secret)) expect(text).not.toContain(form);
}

const idp = (description = 'app', name = 'okta') =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  repos:',
    `    - {name: app, description: ${description}}`,
    '  identityProviders:',
    `    - name: ${name}`,
    '      defaultRole: viewer',
    '      oidc: {issuer: "https://okta.example", clientId: c, clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}}',
  ].join('\n');

describe('one door out: secrets in every form', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  let echo = false;
  const temp = makeTempDir('door-out');
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme' }] });
    // A server that echoes the request in its 400 error, as some do.
    proxy = await startRewritingProxy(emulator.url, (request, body) => {
      if (!echo || request.method !== 'POST' || !request.path.includes('identityProviders')) return body;
      const sent = proxy.seen.filter((e) => e.method === 'POST' && e.path === request.path).at(-1)!.body;
      return answerWith(400, {
        code: 3,
        message: `Invalid argument: cannot accept ${sent}`,
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [{ field: 'oidc', description: `got ${sent}` }],
          },
        ],
      });
    });
  });
  afterAll(async () => {
    await proxy.close();
    await emulator.close();
    temp.remove();
  });
  const env = () => ({ PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: TOKEN, PLATFORM_SYNC_SECRET_OKTA: SECRET });

  it('regression 3: a server echoing the request in its error never shows the secret, JSON-escaped or not (text and JSON)', async () => {
    const file = join(temp.dir, 'org.yaml');
    echo = true;
    try {
      for (const format of ['text', 'json']) {
        // The emulator behind the echo made the first one: the JSON run creates another.
        writeFileSync(file, idp('app', format === 'text' ? 'okta' : 'okta-json'));
        const run = await runCli(['apply', file, '--auto-approve', '--format', format], { env: env() });
        expect(run.code).toBe(1);
        expect(run.stdout + run.stderr).toContain('[REDACTED]');
        expectNoForm(run, SECRET);
      }
    } finally {
      echo = false;
    }
  });

  it('regression 4: a secret pasted into live data is redacted by apply even when the plan sends no secret', async () => {
    const file = join(temp.dir, 'org.yaml');
    writeFileSync(file, idp('app', 'okta-json'));
    expect((await runCli(['apply', file, '--auto-approve'], { env: env() })).code).toBe(0);
    // Someone pastes the secret into the repo's description by hand.
    const client = openClient(emulator.url, TOKEN);
    try {
      const repo = (await client.list('repo')).items.find((r) => r.name === 'app')!;
      await client.update('repo', repo.uid, { description: `see ${SECRET}` }, ['description']);
    } finally {
      await client.close();
    }
    writeFileSync(file, idp('clean', 'okta-json'));
    for (const format of ['text', 'json']) {
      const run = await runCli(['apply', file, '--auto-approve', '--format', format], { env: env() });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('[REDACTED]');
      expectNoForm(run, SECRET);
      writeFileSync(file, idp(format === 'text' ? 'again' : 'clean', 'okta-json'));
      const c = openClient(emulator.url, TOKEN);
      const repo = (await c.list('repo')).items.find((r) => r.name === 'app')!;
      await c.update('repo', repo.uid, { description: `see ${SECRET}` }, ['description']);
      await c.close();
    }
  });
});

describe('one door out: what a user path or a big report may do', () => {
  const temp = makeTempDir('door-paths');
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme', identities: [{ name: 'ci-bot' }] }] });
  });
  afterAll(async () => {
    await emulator.close();
    temp.remove();
  });
  const env = () => ({ PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: TOKEN });
  const org = () => {
    const file = join(temp.dir, 'org.yaml');
    writeFileSync(file, 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - name: ci-bot\n');
    return file;
  };

  it('regression 12: audit --sarif at a directory or under a missing directory is a clear error, not a stack trace', async () => {
    const file = org();
    for (const target of [temp.dir, join(temp.dir, 'missing', 'x.sarif')]) {
      const run = await runCli(['audit', file, '--sarif', target], { env: env() });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^Error: cannot write the SARIF report to .*: (.* is a directory; name a file|its directory .* does not exist)\n$/,
      );
      expect(run.stderr).not.toContain('internal error');
    }
  });

  it('regression 12: apply --emulator with .platform-sync a plain file is a clear error, not a stack trace', async () => {
    const dir = join(temp.dir, 'embedded');
    mkdirSync(dir);
    writeFileSync(join(dir, '.platform-sync'), 'not a directory');
    writeFileSync(join(dir, 'org.yaml'), 'apiVersion: platform-sync/v1\norg:\n  name: acme\n');
    const run = await runCli(['apply', 'org.yaml', '--emulator', '--bootstrap', '--auto-approve'], {
      cwd: dir,
      env: {},
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: .*\.platform-sync/);
    expect(run.stderr).not.toContain('internal error');
  });

  it('regression 14: SARIF URIs are relative to the repository root, from a subdirectory too, and never ../ (outside it: an absolute file: URI)', async () => {
    const repo = join(temp.dir, 'repo');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(join(repo, 'manifests'));
    mkdirSync(join(temp.dir, 'outside'));
    writeFileSync(
      join(repo, 'manifests', 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - name: ci-bot\n      claimMatch: {issuer: "https://token.actions.githubusercontent.com", subjectPattern: "repo:.*"}\n',
    );
    writeFileSync(join(temp.dir, 'outside', 'org.yaml'), readFileSync(join(repo, 'manifests', 'org.yaml')));
    const inside = await runCli(['audit', join(repo, 'manifests', 'org.yaml'), '--format', 'sarif'], {
      cwd: join(repo, 'manifests'),
      env: env(),
    });
    expect(inside.code, inside.stderr).not.toBe(1);
    const uris = [...inside.stdout.matchAll(/"uri": "([^"]*)"/g)].map((m) => m[1]);
    expect(uris.length).toBeGreaterThan(0);
    expect(new Set(uris)).toEqual(new Set(['manifests/org.yaml']));
    const outside = await runCli(['audit', join(temp.dir, 'outside', 'org.yaml'), '--format', 'sarif'], {
      cwd: join(repo, 'manifests'),
      env: env(),
    });
    expect(outside.code, outside.stderr).not.toBe(1);
    // Outside the repository: an absolute file: URI (DESIGN.md §7), never ../
    expect(outside.stdout).toContain(`"uri": "file://${join(temp.dir, 'outside', 'org.yaml')}"`);
    expect(outside.stdout).not.toContain('../');
  });

  it('regression 13: the audit markdown of 8,000 findings is bounded and says how many it left out', () => {
    const findings = Array.from({ length: 8000 }, (_, i) => ({
      rule: 'pattern-any-owner',
      severity: 'high' as const,
      address: `identity:team-${i}/bot`,
      message: `subject pattern admits any owner (${'x'.repeat(120)})`,
    }));
    const report = {
      org: { name: 'acme', uid: 'u' },
      findings,
      summary: { high: 8000, medium: 0, low: 0 },
    } as unknown as AuditReport;
    const markdown = renderMarkdownAudit(report);
    expect(markdown.length).toBeLessThanOrEqual(60_000);
    expect(markdown).toMatch(/_[\d,]+ more findings are not shown/);
    expect(markdown).toContain('#### How to fix');
  });

  it('regression 8: export --force --out LINK replaces the export in the directory the link leads to whole: no stale file stays', async () => {
    const real = join(temp.dir, 'real-export');
    mkdirSync(real);
    // An earlier export: its files carry the export's mark and seal (what --force may replace, DESIGN.md §8 rev 6).
    const mark = '# Written by `platform-sync export`\n';
    writeFileSync(
      join(real, 'org.yaml'),
      sealExportFile('org.yaml', `${mark}apiVersion: platform-sync/v1\norg:\n  name: acme\n`),
    );
    const stale = `${mark}apiVersion: platform-sync/v1\norg:\n  name: acme\n  groups:\n    - name: stale-team\n`;
    writeFileSync(join(real, 'stale-team.yaml'), sealExportFile('stale-team.yaml', stale));
    const link = join(temp.dir, 'export-link');
    symlinkSync(real, link);
    const run = await runCli(['export', '--org', 'acme', '--out', link, '--force'], { env: env() });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(real)).toEqual(['org.yaml']);
    const plan = await runCli(['plan', link, '--detailed-exitcode'], { env: env() });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  });
});

describe('one door out: an export from a non-conforming server (regression 16)', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  const temp = makeTempDir('door-export');
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({ orgs: [{ name: 'acme', groups: [{ name: 'team' }, { name: 'other' }, { name: 'third' }] }] });
    const rename: Record<string, string> = { team: 'a/b', other: '../../x', third: 'Upper Case' };
    proxy = await startRewritingProxy(emulator.url, (request, body) => {
      const groups = (body as { groups?: { name: string }[] }).groups;
      if (request.method === 'GET' && groups) for (const g of groups) g.name = rename[g.name] ?? g.name;
      return body;
    });
  });
  afterAll(async () => {
    await proxy.close();
    await emulator.close();
    temp.remove();
  });

  it('fails naming the names manifests cannot hold, and writes nothing', async () => {
    const out = join(temp.dir, 'exported');
    const run = await runCli(['export', '--org', 'acme', '--out', out], {
      env: { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: TOKEN },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('cannot export org acme');
    expect(run.stderr).toContain('nothing was written');
    expect(run.stderr).toMatch(/a\/b|\.\.\/\.\.\/x|Upper Case/);
    expect(readdirSync(temp.dir)).toEqual([]);
  });
});

describe('one door out: a hostile server name holding newlines (regression 5, the live side)', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  const temp = makeTempDir('door-newline');
  const FORGED = 'admins\n\n## ✅ Reviewed by security: no changes\n\n';
  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({
      orgs: [
        {
          name: 'acme',
          identityProviders: [
            {
              name: 'okta',
              defaultRole: 'viewer',
              oidc: { issuer: 'https://okta.example', clientId: 'c', clientSecret: 'seeded-secret-0123456789' },
              groupMappings: [{ externalGroup: 'admins', role: 'viewer' }],
            },
          ],
        },
      ],
    });
    proxy = await startRewritingProxy(emulator.url, (request, body) => {
      const mappings = (body as { externalGroupRoleMappings?: { externalGroupId: string }[] })
        .externalGroupRoleMappings;
      if (request.method === 'GET' && mappings) for (const m of mappings) m.externalGroupId = FORGED;
      return body;
    });
  });
  afterAll(async () => {
    await proxy.close();
    await emulator.close();
    temp.remove();
  });

  it('the delete of a live mapping named with newlines is one escaped line in the PR comment and the terminal', async () => {
    const file = join(temp.dir, 'org.yaml');
    writeFileSync(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identityProviders:\n    - name: okta\n      defaultRole: viewer\n      oidc: {issuer: "https://okta.example", clientId: c, clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}}\n',
    );
    const env = { PLATFORM_API_URL: proxy.url, PLATFORM_TOKEN: TOKEN };
    for (const format of ['markdown', 'text']) {
      const run = await runCli(['plan', file, '--format', format], { env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('admins\\u{a}\\u{a}## ✅');
      expect(run.stdout).not.toMatch(/^#+ ✅/m);
      expect(run.stdout).not.toContain('admins\n');
    }
  });
});
