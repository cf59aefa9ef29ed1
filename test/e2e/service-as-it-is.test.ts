/**
 * The service as it is (issue 57; DESIGN.md §2, §6 rev 6), through the CLI against the emulator:
 * a custom role holds any name of the service's catalog (the ones an access review must see among
 * them); the built-in roles hold the service's sets (editor makes repos but no tags, registry.push
 * makes repos, tags and groups); an org whose repos have no tier (answered
 * CATALOG_TIER_UNSPECIFIED) exports and plans empty; a server that spells the tier short, `UNKNOWN`
 * or "" is read generously; a capability live holds that this version's catalog lacks is carried
 * under its own name; bad input is a clear error and nothing is written.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { makeTempDir, runCli, useSuiteEmulator } from './cli-harness.js';

const GH = 'https://token.actions.githubusercontent.com';
/** The capabilities issue 57 names: refused before rev 6, and exactly the ones a review must see. */
const REVIEW_CAPABILITIES = [
  'roles.create',
  'roles.update',
  'role_bindings.update',
  'group_invites.create',
  'subscriptions.update',
  'tag.update',
  'terms.accept',
  'registry.entitlements.list',
  'identity_providers.scim.manage',
];

const manifest = (extraRepoLines: string[] = []) =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  identities:',
    `    - {name: pusher, claimMatch: {issuer: "${GH}", subject: "repo:acme/app:ref:refs/heads/main"}}`,
    `    - {name: editing, claimMatch: {issuer: "${GH}", subject: "repo:acme/web:ref:refs/heads/main"}}`,
    `    - {name: granting, claimMatch: {issuer: "${GH}", subject: "repo:acme/iam:ref:refs/heads/main"}}`,
    '  roles:',
    `    - {name: access-admin, capabilities: [${REVIEW_CAPABILITIES.join(', ')}]}`,
    '  roleBindings:',
    '    - {identity: pusher, role: registry.push}',
    '    - {identity: editing, role: editor}',
    '    - {identity: granting, role: access-admin}',
    '  repos:',
    '    - name: plain',
    '    - name: nginx',
    '      tier: FIPS',
    '      aliases: ["nginx:latest", "docker.io/library/nginx:1.27"]',
    '      activeTags: [latest, "1.27"]',
    '      syncConfig:',
    '        source: "0123456789abcdef0123456789abcdef01234567/89abcdef01234567"',
    '        expiration: "2027-06-30T00:00:00Z"',
    '        gracePeriod: true',
    '        amazon: 123456789012.dkr.ecr.us-east-1.amazonaws.com/acme-mirror',
    '        google: us-docker.pkg.dev/acme-prod/mirror',
    '        azure: acmeprod.azurecr.io/mirror',
    ...extraRepoLines.map((l) => `    ${l}`),
    '',
  ].join('\n');

describe('the service as it is: its catalog, its built-in roles, its enums and repo fields', () => {
  const suite = useSuiteEmulator('service-as-it-is-token-5e1f', 'service', () => mkdirSync(join(suite.dir, 'm')));
  const dir = () => join(suite.dir, 'm');

  it('a role of the capabilities a review must see validates, applies, plans empty, exports and plans back to nothing', async () => {
    writeFileSync(join(dir(), 'org.yaml'), manifest());
    const validate = await runCli(['validate', dir()]);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    const apply = await runCli(['apply', dir(), '--bootstrap', '--auto-approve'], { env: suite.env });
    expect(apply.code, apply.stderr).toBe(0);
    expect((await runCli(['plan', dir(), '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
    const out = join(suite.dir, 'exported');
    const exported = await runCli(['export', '--org', 'acme', '--out', out], { env: suite.env });
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(join(out, 'org.yaml'), 'utf8');
    for (const c of REVIEW_CAPABILITIES) expect(text).toContain(`- ${c}`);
    // The repo without a tier is answered CATALOG_TIER_UNSPECIFIED: unset, never exported.
    expect(text).not.toContain('UNSPECIFIED');
    expect(text).toContain('tier: FIPS');
    expect(text).toContain('aliases: [ nginx:latest, docker.io/library/nginx:1.27 ]');
    expect(text).toContain('azure: acmeprod.azurecr.io/mirror');
    expect((await runCli(['plan', out, '--detailed-exitcode'], { env: suite.env })).code).toBe(0);
  });

  it('access answers from the service sets: tag.create is registry.push’s and not editor’s; repo.create both; groups.create registry.push’s', async () => {
    const who = async (capability: string) => {
      const run = await runCli(['access', dir(), '--capability', capability], { env: suite.env });
      expect(run.code, run.stderr).toBe(0);
      return run.stdout;
    };
    const tags = await who('tag.create');
    expect(tags).toContain('identity:pusher');
    expect(tags).not.toContain('identity:editing');
    const repos = await who('repo.create');
    expect(repos).toContain('identity:pusher');
    expect(repos).toContain('identity:editing');
    const groups = await who('groups.create');
    expect(groups).toContain('identity:pusher');
    expect(groups).not.toContain('identity:editing');
    // Who can grant roles: the custom role's holder, and nobody bound a built-in short of owner.
    const grants = await who('roles.update');
    expect(grants).toContain('identity:granting');
    expect(grants).not.toContain('identity:pusher');
  });

  it('refuses an unknown capability, an alias without a tag and a mirror that is no repository, naming each; nothing is written', async () => {
    const bad = manifest()
      .replace('roles.create, ', 'roles.crate, ')
      .replace('"nginx:latest"', '"nginx"')
      .replace('azure: acmeprod.azurecr.io/mirror', 'azure: "https://acmeprod.azurecr.io"');
    const badDir = join(suite.dir, 'bad');
    mkdirSync(badDir, { recursive: true });
    writeFileSync(join(badDir, 'org.yaml'), bad);
    const validate = await runCli(['validate', badDir]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toMatch(
      /org\.yaml:9:\d+: unknown capability "roles\.crate" in role "access-admin"; expected one of the service's 153 capabilities \(did you mean "roles\.create"\?\) — the nearest: roles\.create,/,
    );
    expect(validate.stdout).toMatch(
      /org\.yaml:18:\d+: invalid 0 "nginx" for aliases of repo "nginx"; expected another name of the image: an image reference with a tag/,
    );
    expect(validate.stdout).toMatch(/org\.yaml:\d+:\d+: .*"https:\/\/acmeprod\.azurecr\.io".*azure/);
    suite.emulator.clearRequestLog();
    const apply = await runCli(['apply', badDir, '--auto-approve'], { env: suite.env });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('unknown capability "roles.crate"');
    expect(suite.emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });
});

/**
 * A service that answers in its other spellings and knows more than this version's catalog: the
 * tier short, `UNKNOWN` or "" and a service principal's zero value (read generously), and a capability `registry.future.scan` that its
 * owner role and a custom role hold (carried under its own name: compared, planned, exported,
 * shown — never an error, never dropped).
 */
describe('read generously: other spellings of the tier, and a capability the catalog does not know yet', () => {
  const TOKEN = 'service-newer-token-91aa';
  const FUTURE = 'registry.future.scan';
  const temp = makeTempDir('service-newer');
  let emulator: Emulator;
  let proxy: Server;
  const env = () => ({
    PLATFORM_API_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    PLATFORM_TOKEN: TOKEN,
  });
  /** What a newer service answers: the tier spelled otherwise, and the future capability in owner and in "scanner". */
  const newer = (body: unknown): unknown => {
    const rewrite = (item: Record<string, unknown>): Record<string, unknown> => {
      const out = { ...item };
      if (out.catalogTier === 'CATALOG_TIER_FIPS') out.catalogTier = 'FIPS';
      else if (out.catalogTier === 'CATALOG_TIER_UNSPECIFIED') out.catalogTier = out.name === 'blank' ? '' : 'UNKNOWN';
      if (
        (out.name === 'owner' || out.name === 'scanner') &&
        Array.isArray(out.capabilities) &&
        !out.capabilities.includes(FUTURE)
      )
        out.capabilities = [...out.capabilities, FUTURE];
      // An identity of another relationship, with the service principal's zero value sent too.
      if (out.claimMatch !== undefined && out.servicePrincipal === undefined)
        out.servicePrincipal = 'SERVICE_PRINCIPAL_UNSPECIFIED';
      return out;
    };
    if (body === null || typeof body !== 'object') return body;
    const b = body as Record<string, unknown>;
    for (const plural of ['repos', 'roles', 'identities'])
      if (Array.isArray(b[plural])) return { ...b, [plural]: (b[plural] as Record<string, unknown>[]).map(rewrite) };
    return rewrite(b);
  };
  beforeAll(async () => {
    // The emulator answers by its contract (checked); a proxy in front of it answers as a newer
    // service would, rewriting each JSON answer on the way back.
    emulator = await startEmulator({ port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
        ) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(`${emulator.url}${req.url}`, {
          method: req.method!,
          headers,
          ...(body && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
        });
        const text = await answer.text();
        let out = text;
        try {
          out = JSON.stringify(newer(JSON.parse(text)));
        } catch {
          // not JSON: as it came
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(out);
      });
    });
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', done));
    const dir = join(temp.dir, 'm');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'org.yaml'),
      [
        'apiVersion: platform-sync/v1',
        'org:',
        '  name: acme',
        '  identities:',
        `    - {name: scan-bot, claimMatch: {issuer: "${GH}", subject: "repo:acme/scan:ref:refs/heads/main"}}`,
        '  roleBindings:',
        '    - {identity: scan-bot, role: scanner}',
        '  roles:',
        '    - {name: scanner, capabilities: [repo.list]}',
        '  repos:',
        '    - {name: nginx, tier: FIPS}',
        '    - {name: blank}',
        '    - {name: other}',
        '',
      ].join('\n'),
    );
    const apply = await runCli(['apply', dir, '--bootstrap', '--auto-approve'], { env: env() });
    // Every step is done; the service answered "scanner" with the capability it added, and apply says so (exit 1).
    expect(apply.stderr).toBe('');
    expect(apply.stdout).toContain(
      `! create role:scanner: the service holds other values than it was sent: capabilities ["repo.list","${FUTURE}"] (sent ["repo.list"])`,
    );
    expect(apply.stdout).not.toMatch(/failed|skipped/);
    expect(apply.code).toBe(1);
  });
  afterAll(async () => {
    await new Promise((done) => proxy.close(done));
    await emulator.close();
    temp.remove();
  });

  it('exports the tier short and never the unset ones, carries the capability, and the export plans back to nothing', async () => {
    const out = join(temp.dir, 'exported');
    const exported = await runCli(['export', '--org', 'acme', '--out', out], { env: env() });
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(join(out, 'org.yaml'), 'utf8');
    expect(text).toContain('tier: FIPS');
    expect(text).not.toMatch(/UNKNOWN|tier: ""/);
    expect(text).toContain(`capabilities: [ repo.list, ${FUTURE} ]`);
    const plan = await runCli(['plan', out, '--detailed-exitcode'], { env: env() });
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    // Offline, this version's catalog does not know it: validate says so, and what plan does.
    const validate = await runCli(['validate', out]);
    expect(validate.code).toBe(1);
    expect(validate.stdout).toContain(`unknown capability "${FUTURE}" in role "scanner"`);
  });

  it('shows the capability in access under its own name, and a name live does not hold stays an error before any write', async () => {
    const out = join(temp.dir, 'exported');
    const access = await runCli(['access', out, '--capability', FUTURE, '--live'], { env: env() });
    expect(access.code, access.stderr).toBe(0);
    expect(access.stdout).toContain(
      'identity:scan-bot  (roleBinding:scan-bot=scanner, role:scanner, on org): registry.future.scan',
    );
    const typo = join(temp.dir, 'typo');
    mkdirSync(typo);
    writeFileSync(
      join(typo, 'org.yaml'),
      readFileSync(join(out, 'org.yaml'), 'utf8').replace(`, ${FUTURE} ]`, ', registry.future.scna ]'),
    );
    emulator.clearRequestLog();
    const plan = await runCli(['apply', typo, '--auto-approve'], { env: env() });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain('unknown capability "registry.future.scna"');
    expect(plan.stderr).toContain(`did you mean "${FUTURE}"`);
    expect(emulator.requestLog.filter((e) => e.method !== 'GET')).toEqual([]);
  });
});
