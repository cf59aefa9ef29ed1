import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRoleUid, startEmulator, type Emulator, type SeedDocument } from '../../src/emulator/index.js';
import { ACME, applyManifests, makeTempDir, openClient, runCli } from './cli-harness.js';
import { readPlainYaml } from '../../src/manifest/fast-yaml.js';
import { FORBIDDEN_KEYS, MAX_NESTING_DEPTH } from '../../src/manifest/parse-documents.js';

/**
 * The files export wrote that the fast reader does not take (issue 61): a file it declines is
 * read by `yaml`, twice as slow (flow maps of URLs and subjects, as export writes them, were).
 */
function declinedByTheFastReader(out: string): string[] {
  return readdirSync(out).filter(
    (f) => readPlainYaml(readFileSync(join(out, f), 'utf8'), FORBIDDEN_KEYS, MAX_NESTING_DEPTH) === undefined,
  );
}

const TOKEN = 'export-e2e-token-3f9b71';
const VIEWER = 'export-e2e-viewer-token-a4c2';

/** An org with every kind the manifests describe, nested three deep, odd names included. */
const GENERATED: SeedDocument = {
  orgs: [
    {
      name: 'gen',
      description: 'Generated org',
      identities: [
        {
          name: 'release-bot',
          description: 'root bot',
          claimMatch: {
            issuer: 'https://token.actions.githubusercontent.com',
            subject: 'repo:gen/app:ref:refs/heads/main',
          },
        },
        { name: 'no-claim', description: '' },
        // Every kind of relationship round-trips.
        {
          name: 'any-branch',
          claimMatch: {
            issuer: 'https://token.actions.githubusercontent.com',
            subjectPattern: 'repo:gen/.*:ref:refs/heads/main',
            audiencePattern: 'https://github\\.com/.*',
            claims: { repository_owner: 'gen' },
            claimPatterns: { workflow: 'release.*' },
          },
        },
        {
          name: 'aws-deployer',
          awsIdentity: {
            awsAccount: '123456789012',
            arnPattern: 'arn:aws:sts::123456789012:assumed-role/deploy/.*',
            userId: 'AROAEXAMPLE',
          },
        },
        {
          name: 'static-signer',
          staticKeys: {
            issuer: 'https://issuer.gen.example',
            subject: 'signer',
            issuerKeys: '{"keys":[{"kty":"EC","crv":"P-256","x":"a","y":"b"}]}',
            expirationTime: '2027-01-01T00:00:00Z',
            audiences: ['gen'],
          },
        },
        { name: 'ingester', servicePrincipal: 'SERVICE_PRINCIPAL_INGESTER' },
      ],
      roles: [{ name: 'publisher', description: 'pushes tags', capabilities: ['tag.create', 'repo.list'] }],
      repos: [
        {
          name: 'app',
          description: 'the app',
          readme: '# app\n\n  indented line\n\nlast line without newline',
          tags: [{ name: '1.0', digest: `sha256:${'1'.repeat(64)}` }],
        },
        { name: '1.10', description: 'a name YAML would read as a number' },
      ],
      subscriptions: [{ sink: 'https://hooks.gen.example/audit' }],
      // The rest of the IAM surface round-trips too.
      identityProviders: [
        {
          name: 'okta',
          description: 'people',
          defaultRole: 'publisher',
          oidc: {
            issuer: 'https://gen.okta.com',
            clientId: 'client-1',
            clientSecret: 'seeded-secret',
            additionalScopes: ['email'],
            groupsClaim: 'groups',
          },
          groupMappings: [
            { externalGroup: 'admins', role: 'owner' },
            { externalGroup: 'publishers', role: 'publisher' },
          ],
        },
      ],
      accountAssociation: {
        name: 'gen-cloud',
        amazon: { account: '123456789012' },
        azure: { tenantId: 't-1', clientIds: { deploy: 'c-1' } },
      },
      acceptedTerms: ['tos-2026', 'dpa-2025'],
      roleBindings: [
        { identity: 'release-bot', role: 'publisher' },
        { identity: 'release-bot', role: 'registry.push' },
      ],
      groups: [
        {
          name: 'engineering',
          description: 'Engineering',
          accountAssociation: {
            name: 'eng-code',
            github: { installations: [{ installationId: '7', name: 'gen' }] },
            chainguard: { serviceBindings: { ci: 'b-1' } },
          },
          identities: [{ name: 'ci-bot', description: 'ci' }],
          roles: [{ name: 'builder', description: '', capabilities: ['repo.update'] }],
          roleBindings: [
            { identity: '/release-bot', role: 'builder' },
            { identity: '/release-bot', role: 'viewer' },
            { identity: 'ci-bot', role: 'publisher' },
          ],
          groups: [
            {
              name: 'platform',
              repos: [{ name: 'tools', description: 'tools', readme: '' }],
              subscriptions: [{ sink: 'https://hooks.gen.example/platform?team=1' }],
              roleBindings: [{ identity: '/engineering/ci-bot', role: 'builder' }],
              groups: [{ name: 'edge', description: 'deepest' }],
            },
          ],
        },
        {
          name: 'data science',
          description: 'a name with a space',
          identities: [{ name: 'notebook', description: 'n' }],
        },
      ],
    },
    { name: 'elsewhere', identities: [{ name: 'person', description: 'a human' }] },
  ],
};

describe('platform-sync export', () => {
  let emulator: Emulator;
  let env: Record<string, string>;
  const temp = makeTempDir('export');

  beforeAll(async () => {
    emulator = await startEmulator({
      checkAnswers: true,
      port: 0,
      tokens: [
        { token: TOKEN, role: 'owner' },
        { token: VIEWER, role: 'viewer' },
      ],
    });
    const seeded = emulator.seed(GENERATED);
    // A binding of an identity outside the org (a person) is made through the API, as a person would.
    const client = openClient(emulator.url, TOKEN);
    try {
      const engineering = seeded.uids['group:gen/engineering']!;
      await client.create('roleBinding', engineering, {
        identityUid: seeded.uids['identity:elsewhere/person'],
        roleUid: builtinRoleUid('viewer'),
      });
    } finally {
      await client.close();
    }
    await applyManifests(emulator.url, TOKEN, [ACME]);
    // Export only reads: a read-only token is all it needs.
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: VIEWER };
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  it('exports examples/acme as manifests that plan to zero changes', async () => {
    const out = join(temp.dir, 'acme');
    const run = await runCli(['export', '--org', 'acme', '--out', out], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['engineering.yaml', 'org.yaml', 'security.yaml']);
    expect(run.stdout).toContain('org.yaml');

    const orgYaml = readFileSync(join(out, 'org.yaml'), 'utf8');
    expect(orgYaml).toMatch(/^# yaml-language-server: \$schema=\S*schemas\/manifest\.schema\.json$/m);
    expect(orgYaml).toMatch(/uid: [0-9a-f]{40} # pinned: /);
    expect(orgYaml).toContain('readme: |');
    expect(declinedByTheFastReader(out)).toEqual([]);

    const plan = await runCli(['plan', out, '--detailed-exitcode'], { env });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
  });

  it('exports a generated org of every kind, by uid, and plans it to zero changes', async () => {
    const client = openClient(emulator.url, TOKEN);
    const orgUid = (await client.list('group', { name: 'gen' })).items[0]!.uid;
    await client.close();
    const out = join(temp.dir, 'gen');
    const run = await runCli(['export', '--org', orgUid, '--out', out], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['data_science.yaml', 'engineering.yaml', 'org.yaml']);

    const orgFile = readFileSync(join(out, 'org.yaml'), 'utf8');
    expect(orgFile).toContain('clientSecret: { fromEnv: PLATFORM_SYNC_SECRET_OKTA }');
    expect(orgFile).not.toContain('seeded-secret');
    expect(orgFile).toContain('acceptedTerms: [ dpa-2025, tos-2026 ]');
    const engineering = readFileSync(join(out, 'engineering.yaml'), 'utf8');
    expect(engineering).toMatch(/identityUid: \S+ # an identity outside this org/);
    expect(engineering).toContain('identity: /release-bot');
    expect(engineering).toContain('role: /publisher');
    // Tags are published by CI, not declared: they are not exported.
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).not.toContain('sha256:');
    expect(declinedByTheFastReader(out)).toEqual([]);

    const plan = await runCli(['plan', out, '--detailed-exitcode', '--format', 'json'], { env });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(JSON.parse(plan.stdout).summary).toEqual({ create: 0, update: 0, delete: 0 });
  });

  it('without --out writes one multi-document stream that loads as the same manifests', async () => {
    const run = await runCli(['export', '--org', 'gen'], { env });
    expect(run.code).toBe(0);
    const file = join(temp.dir, 'gen-stream.yaml');
    writeFileSync(file, run.stdout);
    const plan = await runCli(['plan', file, '--detailed-exitcode'], { env });
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
  });

  it('does not overwrite existing files unless --force', async () => {
    const out = join(temp.dir, 'acme');
    const again = await runCli(['export', '--org', 'acme', '--out', out], { env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/org\.yaml.*already exist.*--force/s);
    const forced = await runCli(['export', '--org', 'acme', '--out', out, '--force'], { env });
    expect(forced.code).toBe(0);
  });

  it('exits 1 with one line naming the path when --out cannot be written', async () => {
    const blocker = join(temp.dir, 'a-file');
    writeFileSync(blocker, 'in the way\n');
    const run = await runCli(['export', '--org', 'acme', '--out', join(blocker, 'sub')], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `Error: cannot write the export to ${join(blocker, 'sub')}: ENOTDIR (a file is in the way of the directory); nothing was written\n`,
    );
  });

  it("points $schema at the project's node_modules/platform-sync when there is one, or at --schema-ref", async () => {
    const project = join(temp.dir, 'project');
    mkdirSync(join(project, 'node_modules', 'platform-sync', 'schemas'), { recursive: true });
    writeFileSync(join(project, 'node_modules', 'platform-sync', 'schemas', 'manifest.schema.json'), '{}\n');
    const out = join(project, 'infra', 'manifests');
    const run = await runCli(['export', '--org', 'acme', '--out', out], { env });
    expect(run.code, run.stderr).toBe(0);
    const firstLine = (file: string) => readFileSync(join(out, file), 'utf8').split('\n')[0];
    expect(firstLine('org.yaml')).toBe(
      '# yaml-language-server: $schema=../../node_modules/platform-sync/schemas/manifest.schema.json',
    );
    expect(firstLine('engineering.yaml')).toBe(firstLine('org.yaml'));

    const chosen = join(temp.dir, 'chosen');
    const ref = 'https://example.com/platform-sync/manifest.schema.json';
    const explicit = await runCli(['export', '--org', 'acme', '--out', chosen, '--schema-ref', ref], { env });
    expect(explicit.code, explicit.stderr).toBe(0);
    expect(readFileSync(join(chosen, 'org.yaml'), 'utf8').split('\n')[0]).toBe(
      `# yaml-language-server: $schema=${ref}`,
    );
  });

  it('exits 1 naming the org when it does not exist', async () => {
    const out = join(temp.dir, 'nothing');
    const run = await runCli(['export', '--org', 'no-such-org', '--out', out], { env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no-such-org');
    expect(existsSync(out)).toBe(false);
  });
});
