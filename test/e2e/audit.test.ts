/**
 * `platform-sync audit` end to end (DESIGN.md §7): an emulator seeded with an identity last seen
 * long ago and end-of-life tags, manifests with a pattern that admits pull requests, the CLI run
 * in-process through a recording proxy. It reads only (the request log shows no write), exits by
 * --fail-on, renders text, markdown, JSON and SARIF 2.1.0 — which validates against the SARIF
 * schema as @microsoft/jest-sarif publishes it — and never prints the token.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useRecordedEmulator } from '../support/recorded-emulator.js';
import { makeTempDir, runCli } from './cli-harness.js';

const TOKEN = 'audit-e2e-owner-token-31f7';
const require = createRequire(import.meta.url);

const MANIFEST = `apiVersion: platform-sync/v1
org:
  name: acme
  identities:
    - name: preview-deployer
      claimMatch:
        issuer: https://token.actions.githubusercontent.com
        subjectPattern: "repo:acme/app:.*"
    - name: legacy-ci
      claimMatch:
        issuer: https://token.actions.githubusercontent.com
        subject: repo:acme/legacy:ref:refs/heads/main
  roleBindings:
    - {identity: preview-deployer, role: registry.push}
  repos:
    - name: nginx
`;

describe('platform-sync audit', () => {
  const api = useRecordedEmulator({
    token: TOKEN,
    seed: {
      orgs: [
        {
          name: 'acme',
          identities: [
            {
              name: 'preview-deployer',
              claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subjectPattern: 'repo:acme/app:.*' },
            },
            {
              name: 'legacy-ci',
              lastSeenTime: '2025-01-15T08:00:00Z',
              claimMatch: {
                issuer: 'https://token.actions.githubusercontent.com',
                subject: 'repo:acme/legacy:ref:refs/heads/main',
              },
            },
            { name: 'human-ann', claimMatch: { issuer: 'https://accounts.google.com', subject: 'ann' } },
          ],
          roleBindings: [
            { identity: 'preview-deployer', role: 'registry.push' },
            { identity: 'human-ann', role: 'owner' },
          ],
          repos: [
            {
              name: 'nginx',
              tags: [
                { name: '1.27', digest: `sha256:${'1'.repeat(64)}` },
                { name: '1.25', digest: `sha256:${'2'.repeat(64)}`, deprecated: true },
              ],
            },
          ],
        },
      ],
    },
  });
  const temp = makeTempDir('audit');
  const dir = join(temp.dir, 'manifests');
  const run = (args: string[], extra: Record<string, string> = {}) =>
    runCli(args, { env: { ...api.env, ...extra }, cwd: temp.dir });

  beforeAll(() => {
    mkdirSync(dir);
    // human-ann is a person the platform team leaves to the IdP: ignored, so not pruned.
    writeFileSync(join(dir, 'org.yaml'), `${MANIFEST}settings:\n  ignore: ["identity:human-*"]\n`);
  });
  afterAll(() => temp.remove());

  it('finds what is real: a pattern pull requests match (high: it can push), an old identity, end-of-life tags, an unmanaged owner; reads only', async () => {
    const before = api.proxy.seen.length;
    const result = await run(['audit', dir]);
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stdout.split('\n');
    expect(lines.find((l) => l.includes('pattern-pull-request'))).toMatch(
      /^HIGH\s+pattern-pull-request {2}identity:preview-deployer: subjectPattern "repo:acme\/app:\.\*" matches repo:acme\/app:pull_request: .*registry\.push {2}\(.*org\.yaml:5:7\)$/,
    );
    expect(result.stdout).toMatch(
      /MEDIUM stale-identity {2}identity:legacy-ci: last seen \d+ days ago \(2025-01-15T08:00:00\.000Z\)/,
    );
    expect(result.stdout).toMatch(/MEDIUM eol-tags {2}repo:nginx: 1 end-of-life tag: 1\.25/);
    expect(result.stdout).toMatch(/MEDIUM unmanaged-write-access {2}roleBinding:human-ann=owner/);
    expect(result.stdout).toContain('How to fix:');
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    const requests = api.proxy.seen.slice(before);
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter((e) => e.method !== 'GET')).toEqual([]);
    // Tags are listed client-side at the API's largest page, as the spec says.
    expect(requests.some((e) => e.path.startsWith('/registry/v2/tags?') && e.path.includes('page_size=200'))).toBe(
      true,
    );
  });

  it('--fail-on: exit 2 exactly when a finding is at or above the level', async () => {
    expect((await run(['audit', dir, '--fail-on', 'high'])).code).toBe(2);
    const noPattern = join(temp.dir, 'safe');
    mkdirSync(noPattern);
    writeFileSync(
      join(noPattern, 'org.yaml'),
      `${MANIFEST.replace('subjectPattern: "repo:acme/app:.*"', 'subject: repo:acme/app:ref:refs/heads/main')}settings:\n  ignore: ["identity:human-*"]\n`,
    );
    expect((await run(['audit', noPattern, '--fail-on', 'high'])).code).toBe(0);
    expect((await run(['audit', noPattern, '--fail-on', 'medium'])).code).toBe(2);
    expect((await run(['audit', noPattern, '--fail-on', 'low'])).code).toBe(2);
    expect(
      (await run(['audit', noPattern, '--stale-days', '3650', '--fail-on', 'medium', '--format', 'json'])).code,
    ).toBe(2); // the unmanaged owner and the tags remain
  });

  it('bad options and a missing org are errors (exit 1), naming them', async () => {
    const bad = await run(['audit', dir, '--stale-days', '-3']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--stale-days must be a whole number of days');
    const other = join(temp.dir, 'other');
    mkdirSync(other);
    writeFileSync(join(other, 'org.yaml'), 'apiVersion: platform-sync/v1\norg:\n  name: globex\n');
    const missing = await run(['audit', other]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('org "globex" is not visible');
  });

  it('--format json: formatVersion, org, summary and findings with manifest locations', async () => {
    const result = await run(['audit', dir, '--format', 'json']);
    const report = JSON.parse(result.stdout) as {
      formatVersion: number;
      org: { name: string; uid: string };
      summary: Record<string, number>;
      findings: { rule: string; location?: { file: string; line: number } }[];
    };
    expect(report.formatVersion).toBe(1);
    expect(report.org.name).toBe('acme');
    expect(report.org.uid).toMatch(/^[0-9a-f]{40}$/);
    expect(report.summary.high).toBe(1);
    expect(report.findings.find((f) => f.rule === 'stale-identity')!.location).toMatchObject({ line: 9 });
  });

  it('--format markdown: a table a job summary shows, written to $GITHUB_STEP_SUMMARY too', async () => {
    const summary = join(temp.dir, 'summary.md');
    const result = await run(['audit', dir, '--format', 'markdown'], { GITHUB_STEP_SUMMARY: summary });
    expect(result.stdout).toContain('### platform-sync access review of `acme`');
    expect(result.stdout).toContain('| high | `pattern-pull-request` | `identity:preview-deployer` |');
    expect(result.stdout).toContain('#### How to fix');
    expect(readFileSync(summary, 'utf8')).toContain('| high | `pattern-pull-request` |');
  });

  it('--format sarif: SARIF 2.1.0 that the published schema accepts, results at their manifest lines, relative paths', async () => {
    const result = await run(['audit', dir, '--format', 'sarif']);
    const sarif = JSON.parse(result.stdout) as import('sarif').Log;
    const Ajv = require('ajv-draft-04') as new (
      o: object,
    ) => { compile(s: object): ((d: unknown) => boolean) & { errors?: unknown } };
    const schema = require('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json') as object;
    const validate = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false, validateFormats: false }).compile(
      schema,
    );
    expect(validate(sarif), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ version: '2.1.0', runs: [{ tool: {} }] })).toBe(false); // the check can fail
    const run0 = sarif.runs[0]!;
    expect(run0.tool.driver.rules!.map((x) => x.id)).toContain('pattern-pull-request');
    expect(run0.tool.driver.rules!.every((x) => (x.help?.text ?? '').length > 20)).toBe(true);
    const pr = run0.results!.find((x) => x.ruleId === 'pattern-pull-request')!;
    expect(pr.level).toBe('error');
    expect(pr.locations![0]!.physicalLocation).toEqual({
      artifactLocation: { uri: 'manifests/org.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 5, startColumn: 7 },
    });
    // A finding on what the manifests leave out points at the org's declaration, and says so.
    const unmanaged = run0.results!.find((x) => x.ruleId === 'unmanaged-write-access')!;
    expect(unmanaged.locations![0]!.physicalLocation!.region!.startLine).toBe(3);
    expect(unmanaged.message.text).toContain('not declared in the manifests');
  });
});
