/**
 * The emulator can catch the client being wrong (issue 36, STYLE.md 16): its identity
 * relationship rules are its own (src/emulator/relationships.ts; the architecture test proves it
 * imports none of the client's). Here each rule is broken on purpose on the client's side — the
 * body is sent through the API client with no manifest check before it, as a client whose own
 * rule were broken would send it — and the emulator still refuses it over HTTP, naming the
 * field, while `validate` refuses the same value in a manifest. A bug in either set of rules
 * shows as a disagreement here.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { readLiveState } from '../../src/live/index.js';
import { openClient, useSuiteEmulator } from '../e2e/cli-harness.js';

const TOKEN = 'emulator-oracle-owner-token-5f0c';
const GITHUB = 'https://token.actions.githubusercontent.com';
const JWKS = JSON.stringify({
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    },
  ],
});

/** A relationship that breaks one rule of DESIGN §2, and the field the refusal names. */
const BROKEN: [rule: string, body: Record<string, unknown>, field: string][] = [
  [
    'exactly one relationship',
    { claimMatch: { issuer: GITHUB, subject: 's' }, servicePrincipal: 'INGESTER' },
    'servicePrincipal',
  ],
  ['an issuer or an issuer pattern', { claimMatch: { subject: 's' } }, 'claimMatch'],
  [
    'not both subject and subjectPattern',
    { claimMatch: { issuer: GITHUB, subject: 's', subjectPattern: 's.*' } },
    'claimMatch',
  ],
  [
    'patterns are RE2 (no lookaround)',
    { claimMatch: { issuer: GITHUB, subjectPattern: 'repo:(?!evil).*' } },
    'claimMatch',
  ],
  [
    'claim patterns are RE2',
    { claimMatch: { issuer: GITHUB, subject: 's', claimPatterns: { ref: '(' } } },
    'claimMatch',
  ],
  ['the issuer is an https URL', { claimMatch: { issuer: 'http://token.example', subject: 's' } }, 'claimMatch'],
  [
    'an AWS account is 12 digits',
    { awsIdentity: { awsAccount: '1234', arn: 'arn:aws:iam::1234:role/x' } },
    'awsIdentity',
  ],
  ['an AWS identity names a role or user', { awsIdentity: { awsAccount: '123456789012' } }, 'awsIdentity'],
  [
    'static keys are a JWKS document',
    { staticKeys: { issuer: 'https://i.example', subject: 's', issuerKeys: 'not json' } },
    'staticKeys',
  ],
  [
    'static keys expire at an RFC 3339 time',
    { staticKeys: { issuer: 'https://i.example', subject: 's', issuerKeys: JWKS, expirationTime: 'tomorrow' } },
    'staticKeys',
  ],
  ['a service principal is one the service knows', { servicePrincipal: 'ROOT' }, 'servicePrincipal'],
];

describe('the emulator refuses what the client must refuse, by rules of its own', () => {
  const suite = useSuiteEmulator(TOKEN, 'emulator-oracle', (emulator) => emulator.seed({ orgs: [{ name: 'acme' }] }));

  for (const [rule, body, field] of BROKEN) {
    it(`${rule}: validate refuses it, and the emulator refuses it sent past the client's check`, async () => {
      const manifest = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - ${JSON.stringify({ name: 'broken', ...body })}\n`;
      expect(
        validateManifestTexts([{ file: 'org.yaml', text: manifest }]).diagnostics,
        'validate refuses it',
      ).not.toEqual([]);

      const client = openClient(suite.emulator.url, TOKEN);
      try {
        const live = await readLiveState(client, { org: { name: 'acme' } });
        const refused = await client.create('identity', live.org!.uid, { name: 'broken', ...body }).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(refused, 'the emulator refuses it').toBeInstanceOf(ApiError);
        expect((refused as ApiError).grpcName).toBe('INVALID_ARGUMENT');
        expect((refused as ApiError).badRequest?.fieldViolations.map((v) => v.field)).toContain(field);
      } finally {
        await client.close();
      }
    });
  }

  it('a good relationship of each kind is accepted by both (the rules are not just "refuse everything")', async () => {
    const good: Record<string, unknown>[] = [
      { claimMatch: { issuer: GITHUB, subjectPattern: 'repo:acme/.*', claims: { repository_owner: 'acme' } } },
      { awsIdentity: { awsAccount: '123456789012', arnPattern: 'arn:aws:sts::123456789012:assumed-role/deploy/.*' } },
      {
        staticKeys: {
          issuer: 'https://i.example',
          subject: 's',
          issuerKeys: JWKS,
          expirationTime: '2030-01-01T00:00:00Z',
          audiences: ['acme'],
        },
      },
      { servicePrincipal: 'SERVICE_PRINCIPAL_COSIGNED' },
    ];
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      const live = await readLiveState(client, { org: { name: 'acme' } });
      for (const [i, body] of good.entries()) {
        const manifest = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - ${JSON.stringify({ name: `good-${i}`, ...body })}\n`;
        expect(validateManifestTexts([{ file: 'org.yaml', text: manifest }]).diagnostics).toEqual([]);
        const created = await client.create('identity', live.org!.uid, { name: `good-${i}`, ...body });
        expect(created.uid).toMatch(/^[0-9a-f]{40}\//);
      }
    } finally {
      await client.close();
    }
  });
});
