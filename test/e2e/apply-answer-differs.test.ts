/**
 * A service that keeps other values than it was sent (issue 63 item 4): the executor expects the
 * answer to a create or update to hold what the step wrote (model/step-effect.ts, apply/answer-check.ts),
 * and where it does not, the apply does not go on believing its own copy. Against a real emulator
 * whose store cuts a group's description to 12 characters (EmulatorOptions.storeFault): every step
 * is done (the resource exists; what depends on it runs), a warning per resource names the field,
 * what the service holds and what was sent — a secret the service echoes into it redacted —, the
 * summary says the org is not what the manifests say, the apply exits 1, the JSON events carry
 * `step-differs` and `result.differs`, and the next plan shows the difference.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { makeTempDir, REPO_ROOT, runCli } from './cli-harness.js';

const ajv = new Ajv2020({ strict: false, allErrors: true });
for (const name of ['plan', 'apply-events'])
  ajv.addSchema(JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', `${name}.schema.json`), 'utf8')) as object, name);
const applyEvent = ajv.getSchema('apply-events')!;

const TOKEN = 'differs-owner-token';
const SECRET = 'okta-client-secret-differs-7f3a';
const CUT = 12;

const manifest = (description: string) =>
  [
    'apiVersion: platform-sync/v1',
    'org:',
    '  name: acme',
    '  groups:',
    '    - name: platform',
    '      description: short',
    '    - name: eng',
    `      description: ${JSON.stringify(description)}`,
    '      identities:',
    '        - {name: ci, claimMatch: {issuer: "https://issuer.acme.dev", subject: ci}}',
    '  identityProviders:',
    '    - name: okta',
    '      defaultRole: viewer',
    '      oidc:',
    '        issuer: https://acme.okta.com',
    '        clientId: 0oa1b2c3d4',
    '        clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}',
    '',
  ].join('\n');

describe('apply when the service keeps other values than it was sent', () => {
  const temp = makeTempDir('answer-differs-');
  let emulator: Emulator;
  /** When set, the store writes the identity provider's secret into a group description (a service that leaks it). */
  let leak = false;
  const env = () => ({ PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: TOKEN, PLATFORM_SYNC_SECRET_OKTA: SECRET });
  const write = (description: string) => {
    const file = join(temp.dir, 'org.yaml');
    writeFileSync(file, manifest(description));
    return file;
  };

  beforeAll(async () => {
    emulator = await startEmulator({
      checkAnswers: true,
      tokens: [{ token: TOKEN, role: 'owner' }],
      storeFault: ({ kind }, fields) => {
        if (kind !== 'group' || typeof fields.description !== 'string') return fields;
        if (leak) return { ...fields, description: `${fields.description.slice(0, CUT)} ${SECRET}` };
        return { ...fields, description: fields.description.slice(0, CUT) };
      },
    });
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  it('creates: every step done, a warning naming the field and both values, exit 1, and the next plan shows it', async () => {
    const file = write('Engineering and platform teams');
    const applied = await runCli(['apply', file, '--bootstrap', '--auto-approve'], { env: env() });
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toContain(
      '! create group:eng: the service holds other values than it was sent: description "Engineering " (sent "Engineering and platform teams")',
    );
    // The groups whose values were kept as sent, and every other step, are done without a word.
    expect(applied.stdout).not.toMatch(/! create group:platform/);
    expect(applied.stdout).toMatch(
      /Apply done, but the service holds other values than it was sent: \d+ done; 1 field differs\./,
    );
    expect(applied.stdout).toContain(
      '  ! group:eng: description "Engineering " (sent "Engineering and platform teams")',
    );
    expect(applied.stdout).toContain('`platform-sync plan` shows them');
    expect(applied.stdout).not.toMatch(/failed|skipped/);
    expect(applied.code).toBe(1);

    // The identity under eng was created (the group exists: what depends on it ran).
    const plan = await runCli(['plan', file, '--detailed-exitcode'], { env: env() });
    expect(plan.code).toBe(2);
    expect(plan.stdout).toMatch(/update group:eng/);
    expect(plan.stdout).toContain('Engineering and platform teams');
    expect(plan.stdout).not.toMatch(/create identity:eng\/ci|group:platform/);
  });

  it('updates, as JSON events: step-differs with each field, result.differs, a leaked secret never shown', async () => {
    leak = true;
    try {
      const file = write('Engineering, platform and SRE');
      const applied = await runCli(['apply', file, '--auto-approve', '--format', 'json'], { env: env() });
      expect(applied.code).toBe(1);
      expect(applied.stdout + applied.stderr).not.toContain(SECRET);
      const events = applied.stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
      for (const event of events) expect(applyEvent(event), JSON.stringify(applyEvent.errors)).toBe(true);
      const differs = events.filter((e) => e.type === 'step-differs');
      expect(differs).toEqual([
        {
          type: 'step-differs',
          step: { action: 'update', kind: 'group', address: 'group:eng' },
          differences: [
            { field: 'description', wrote: 'Engineering, platform and SRE', answered: 'Engineering, [REDACTED]' },
          ],
        },
      ]);
      const end = events.find((e) => e.type === 'end') as unknown as { result: Record<string, unknown> };
      expect(end.result).toMatchObject({
        ok: false,
        failed: [],
        skipped: [],
        done: ['group:eng'],
        differs: [
          {
            address: 'group:eng',
            field: 'description',
            wrote: 'Engineering, platform and SRE',
            answered: 'Engineering, [REDACTED]',
          },
        ],
      });
    } finally {
      leak = false;
    }
  });
});
