/**
 * Repo `bundles` and `syncConfig` end to end (DESIGN.md §2, §3; issue 38): created with the repo,
 * bundles compared as a set, a changed entitlement leaf is one PATCH whose mask names the leaf
 * (`syncConfig.expiration`), export writes both and plans back to nothing.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator, type SuiteEmulator } from './cli-harness.js';

const TOKEN = 'repo-bundles-e2e-token-77c1';
const SOURCE = '0123456789abcdef0123456789abcdef01234567/89abcdef01234567';
const manifest = (bundles: string, expiration: string, syncApks = true) =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  repos:',
    '    - name: nginx',
    `      bundles: ${bundles}`,
    `      syncConfig: {source: "${SOURCE}", expiration: "${expiration}", syncApks: ${syncApks}, uniqueTags: false}`,
    '',
  ].join('\n');

/** Applies the manifests in `dir`, shows that a re-plan is empty, and gives each write's method and update mask. */
async function appliedWrites(suite: SuiteEmulator, dir: string): Promise<string[]> {
  suite.emulator.clearRequestLog();
  expect((await runCli(['apply', dir, '--auto-approve'], { env: suite.env })).code).toBe(0);
  const writes = suite.emulator.requestLog
    .filter((e) => e.method !== 'GET')
    .map((e) => `${e.method} ${e.query.updateMask}`);
  expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  return writes;
}

/** Exports the suite's org, shows that the export plans back to nothing, and gives its org.yaml. */
async function exportedAndPlannedBack(suite: SuiteEmulator): Promise<string> {
  const out = join(suite.dir, 'exported');
  expect((await runCli(['export', '--org', 'acme', '--out', out], { env: suite.env })).code).toBe(0);
  expect((await runCli(['plan', out, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  return readFileSync(join(out, 'org.yaml'), 'utf8');
}

describe('repo bundles and syncConfig', () => {
  const suite = useSuiteEmulator(TOKEN, 'bundles', () => mkdirSync(dir));
  const dir = join(suite.dir, 'm');
  const writes = () => suite.emulator.requestLog.filter((e) => e.method !== 'GET');
  const liveRepo = async (): Promise<Record<string, unknown>> => {
    const res = await fetch(`${suite.emulator.url}/registry/v2/repos?name=nginx`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    return ((await res.json()) as { repos: Record<string, unknown>[] }).repos[0]!;
  };

  it('creates the repo with its bundles and entitlement; a re-plan is empty', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('[featured, fips]', '2027-06-30T00:00:00Z'));
    const apply = await runCli(['apply', dir, '--bootstrap', '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stderr).toBe(0);
    // The service answers every time with milliseconds and Z (issue 48): the same instant, so a re-plan is empty.
    expect(await liveRepo()).toMatchObject({
      name: 'nginx',
      bundles: ['featured', 'fips'],
      syncConfig: { source: SOURCE, expiration: '2027-06-30T00:00:00.000Z', syncApks: true, uniqueTags: false },
    });
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
    expect((await runCli(['drift', dir], { env: suite.env })).code).toBe(0);
  });

  it('compares bundles as a set: another order is no change', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('[fips, featured]', '2027-06-30T00:00:00Z'));
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('updates a changed leaf of the entitlement by one PATCH naming the leaf', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('[fips, featured]', '2027-12-31T00:00:00Z'));
    const plan = await runCli(['plan', dir], { env: suite.env });
    expect(plan.stdout).toContain('~ update repo:nginx');
    expect(plan.stdout).toContain('syncConfig.expiration: "2027-06-30T00:00:00.000Z" → "2027-12-31T00:00:00.000Z"');
    suite.emulator.clearRequestLog();
    expect((await runCli(['apply', dir, '--auto-approve'], { env: suite.env })).code).toBe(0);
    expect(writes().map((e) => `${e.method} ${e.query.updateMask}`)).toEqual(['PATCH syncConfig.expiration']);
    expect((await liveRepo()).syncConfig).toEqual({
      source: SOURCE,
      expiration: '2027-12-31T00:00:00.000Z',
      syncApks: true,
      uniqueTags: false,
      gracePeriod: false,
      amazon: '',
      google: '',
      azure: '',
      apkoOverlay: '',
    });
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('sends two leaves and a bundle change in one PATCH', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('[featured]', '2028-01-31T00:00:00Z', false));
    expect(await appliedWrites(suite, dir)).toEqual(['PATCH bundles,syncConfig.expiration,syncConfig.syncApks']);
  });

  it('is exported and plans back to nothing', async () => {
    const text = await exportedAndPlannedBack(suite);
    expect(text).toContain('bundles: [ featured ]');
    expect(text).toContain('syncConfig:');
  });

  it('refuses a bundle keyword the service refuses, with its position', async () => {
    writeFileSync(join(dir, 'org.yaml'), manifest('[Featured, featured, featured]', '2028-01-31T00:00:00Z'));
    const validate = await runCli(['validate', dir], { env: suite.env });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(/org\.yaml:6:\d+: invalid .*"Featured" for bundles of repo "nginx"/);
    expect(validate.stdout).toContain('"featured" is listed twice in bundles');
  });
});

/**
 * The provider's repo fields in the service's shapes (issue 48, issue 57; DESIGN.md §2 rev 6):
 * `tier` (the API's catalogTier enum, sent in full), `aliases` (image references with a tag),
 * `activeTags` and syncConfig's `gracePeriod`, `amazon`, `google`, `azure` (the mirrors'
 * repositories, strings), `apkoOverlay`: absent = unmanaged, declared = compared and PATCHed by
 * leaf, exported when set.
 */
describe("the provider's repo fields", () => {
  const suite = useSuiteEmulator('repo-provider-fields-token-3d9a', 'provider', () => mkdirSync(dir));
  const dir = join(suite.dir, 'm');
  const OVERLAY = '{"contents":{"packages":["curl"]}}';
  const ECR = '123456789012.dkr.ecr.us-east-1.amazonaws.com/acme-mirror';
  const GAR = 'us-docker.pkg.dev/acme-prod/mirror';
  const repo = (extra: string[]) =>
    [
      'apiVersion: platform-sync/v1',
      'org:',
      '  name: acme',
      '  repos:',
      '    - name: app',
      ...extra.map((l) => `      ${l}`),
      '',
    ].join('\n');
  const FULL = [
    'tier: FIPS',
    'aliases: ["app:fips", "docker.io/acme/app:1.27"]',
    'activeTags: [latest, "1.27"]',
    `syncConfig: {source: "${SOURCE}", expiration: "2027-06-30T00:00:00Z", gracePeriod: true, amazon: "${ECR}", google: "", apkoOverlay: '${OVERLAY}'}`,
  ];

  it('are created with the repo, read back, and a re-plan is empty', async () => {
    writeFileSync(join(dir, 'org.yaml'), repo(FULL));
    const apply = await runCli(['apply', dir, '--bootstrap', '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stderr).toBe(0);
    const res = await fetch(`${suite.emulator.url}/registry/v2/repos?name=app`, {
      headers: { authorization: `Bearer ${suite.env.PLATFORM_TOKEN}` },
    });
    const live = ((await res.json()) as { repos: Record<string, unknown>[] }).repos[0]!;
    // Sent exactly: the tier in full, every member of the entitlement (a member left out is its zero value).
    expect(live).toMatchObject({
      catalogTier: 'CATALOG_TIER_FIPS',
      aliases: ['app:fips', 'docker.io/acme/app:1.27'],
      activeTags: ['latest', '1.27'],
      syncConfig: { gracePeriod: true, amazon: ECR, google: '', azure: '', apkoOverlay: OVERLAY },
    });
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('an overlay compares as JSON: another spelling of the same JSON is no change', async () => {
    const spelled = FULL.map((l) =>
      l.replace(`apkoOverlay: '${OVERLAY}'`, `apkoOverlay: '{ "contents": { "packages": [ "curl" ] } }'`),
    );
    expect(spelled).not.toEqual(FULL);
    writeFileSync(join(dir, 'org.yaml'), repo(spelled));
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('left out, are not managed: the live values stay', async () => {
    writeFileSync(join(dir, 'org.yaml'), repo([]));
    expect((await runCli(['plan', dir, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('a change is one PATCH whose mask names only what changed; sets compare without order', async () => {
    writeFileSync(
      join(dir, 'org.yaml'),
      repo([
        'tier: CATALOG_TIER_BASE',
        'aliases: ["docker.io/acme/app:1.27", "app:fips"]',
        'activeTags: [latest]',
        `syncConfig: {source: "${SOURCE}", expiration: "2027-06-30T00:00:00.000Z", gracePeriod: true, amazon: "", google: "${GAR}", apkoOverlay: '${OVERLAY}'}`,
      ]),
    );
    const plan = await runCli(['plan', dir], { env: suite.env });
    // The plan shows what is sent: the tier in full, read from either spelling.
    expect(plan.stdout).toMatch(/tier: +"CATALOG_TIER_FIPS" → "CATALOG_TIER_BASE"/);
    expect(await appliedWrites(suite, dir)).toEqual([
      'PATCH catalogTier,activeTags,syncConfig.amazon,syncConfig.google',
    ]);
  });

  it('are exported and plan back to nothing', async () => {
    const text = await exportedAndPlannedBack(suite);
    // Written as a manifest spells them: the tier short, the entitlement without its zero members.
    expect(text).toContain('tier: BASE');
    expect(text).toContain('aliases: [ app:fips, docker.io/acme/app:1.27 ]');
    expect(text).toContain(`google: ${GAR}`);
    expect(text).toContain('apkoOverlay');
    expect(text).not.toMatch(/amazon|azure|syncApks/);
  });

  it('refuses a tier outside the enum and an overlay that is not JSON, with their positions', async () => {
    writeFileSync(
      join(dir, 'org.yaml'),
      repo([
        'tier: GOLD',
        `syncConfig: {source: "${SOURCE}", expiration: "2027-06-30T00:00:00Z", apkoOverlay: "{contents"}`,
      ]),
    );
    const validate = await runCli(['validate', dir], { env: suite.env });
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(
      /org\.yaml:6:\d+: .*"GOLD" for tier of repo "app"; expected one of APPLICATION, BASE, FIPS, AI, DEVTOOLS, COMMERCIAL/,
    );
    expect(validate.stdout).toMatch(
      /org\.yaml:7:\d+: syncConfig\.apkoOverlay of repo "app" is not JSON text of an object/,
    );
    // Refused before any request: apply changes nothing.
    suite.emulator.clearRequestLog();
    const apply = await runCli(['apply', dir, '--auto-approve'], { env: suite.env });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(/org\.yaml:6:\d+: .*"GOLD" for tier of repo "app"/);
    expect(suite.emulator.requestLog).toEqual([]);
  });
});
