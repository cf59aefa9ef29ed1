/**
 * Property (DESIGN.md §8 rev 4, issue 35): for random secrets — any Unicode, quotes,
 * backslashes, controls, markup — and a server that echoes them back in random places (the
 * request in a 400 error, live descriptions, live names), no output of plan, apply (text and
 * JSON), drift or audit (text, markdown, SARIF) ever holds the secret in any of its forms.
 * Through the CLI in process, against the emulator behind a rewriting proxy.
 * `REDACTION_RUNS` sets the number of cases (default 6; 12 in mutation runs, 100 in `npm run test:deep`); the seed is printed on failure.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretForms } from '../../src/io/redact.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { answerWith, startRewritingProxy, type RewritingProxy } from '../support/rewriting-proxy.js';
import { makeTempDir, runCli } from './cli-harness.js';

const TOKEN = 'redaction-property-owner-token-2b9d';
const RUNS = Number(process.env.REDACTION_RUNS ?? 6);

/** Characters that escape differently in each output: JSON, markdown, HTML, URLs, the terminal. */
const SPECIAL = [
  '"',
  '\\',
  '\t',
  '\n',
  '\r',
  '\u0000',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u202e',
  '\u200b',
  '<',
  '>',
  '&',
  '|',
  '`',
  '%',
  '+',
  ' ',
  "'",
  '/',
  'é',
  '😀',
];

/** A secret of 16 to 40 characters (the shortest a secret may be is 16) with at least two special ones. */
const secretArb = fc
  .tuple(
    fc.constantFrom(...SPECIAL),
    fc.string({ unit: 'grapheme-composite', minLength: 14, maxLength: 30 }),
    fc.constantFrom(...SPECIAL),
  )
  .map(([a, middle, b]) => `k${a}${middle}${b}z`)
  .filter((s) => s.length >= 16 && !/\r?\n$/.test(s) && s.trim() === s);

interface Echo {
  /** Answer the create of an identity provider with a 400 quoting the request body. */
  postError: boolean;
  /** Live descriptions of repos carry the secret. */
  description: boolean;
  /** A live identity's name carries the secret (an address a view prints). */
  name: boolean;
}
const echoArb = fc.record({ postError: fc.boolean(), description: fc.boolean(), name: fc.boolean() });

describe('no output holds a secret in any form (property)', () => {
  let emulator: Emulator;
  let proxy: RewritingProxy;
  let current: { secret: string; echo: Echo } | undefined;
  const temp = makeTempDir('redaction-property');

  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }] });
    emulator.seed({
      orgs: [{ name: 'acme', repos: [{ name: 'app', description: 'app' }], identities: [{ name: 'ci-bot' }] }],
    });
    proxy = await startRewritingProxy(emulator.url, (request, body) => {
      if (!current) return body;
      const { secret, echo } = current;
      if (echo.postError && request.method === 'POST' && request.path.includes('identityProviders')) {
        const sent = proxy.seen.filter((e) => e.method === 'POST' && e.path === request.path).at(-1)!.body;
        return answerWith(400, {
          code: 3,
          message: `Invalid argument: ${sent}`,
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.BadRequest',
              fieldViolations: [{ field: 'oidc.clientSecret', description: `rejected ${JSON.stringify(sent)}` }],
            },
          ],
        });
      }
      if (request.method !== 'GET' || body === null || typeof body !== 'object') return body;
      const listing = body as { repos?: { description?: string }[]; identities?: { name: string }[] };
      if (echo.description) for (const repo of listing.repos ?? []) repo.description = `was ${secret} here`;
      if (echo.name)
        for (const identity of listing.identities ?? [])
          if (identity.name === 'ci-bot') identity.name = `ci-bot-${secret}`;
      return body;
    });
  });
  afterAll(async () => {
    await proxy.close();
    await emulator.close();
    temp.remove();
  });

  it(
    `holds for ${RUNS} random secrets and echoing servers, through plan, apply, drift and audit`,
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(secretArb, echoArb, async (secret, echo) => {
          n++;
          const file = join(temp.dir, `case-${n}.yaml`);
          writeFileSync(
            file,
            [
              'apiVersion: platform-sync/v1',
              'org:',
              '  name: acme',
              '  repos:',
              `    - {name: app, description: "case ${n}"}`,
              '  identities:',
              '    - name: ci-bot',
              '  identityProviders:',
              `    - name: idp-${n}`,
              '      defaultRole: viewer',
              '      oidc: {issuer: "https://idp.example", clientId: c, clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_IDP}}',
              'settings:',
              '  prune: {identityProviders: false, identities: false}',
            ].join('\n'),
          );
          const env = {
            PLATFORM_API_URL: proxy.url,
            PLATFORM_TOKEN: TOKEN,
            PLATFORM_SYNC_SECRET_IDP: secret,
            GITHUB_STEP_SUMMARY: join(temp.dir, `summary-${n}.md`),
          };
          current = { secret, echo };
          try {
            const runs = [
              await runCli(['plan', file], { env }),
              await runCli(['plan', file, '--format', 'markdown'], { env }),
              await runCli(['apply', file, '--auto-approve'], { env }),
              await runCli(['apply', file, '--auto-approve', '--format', 'json'], { env }),
              await runCli(['drift', file], { env }),
              await runCli(['audit', file], { env }),
              await runCli(['audit', file, '--format', 'markdown'], { env }),
              await runCli(['audit', file, '--format', 'sarif'], { env }),
            ];
            const outputs = runs.map((r) => r.stdout + r.stderr).join('\n');
            for (const form of secretForms(secret))
              expect(outputs.includes(form), `form ${JSON.stringify(form)} of the secret in:\n${outputs}`).toBe(false);
            for (const r of runs) expect(r.stderr).not.toContain('internal error');
          } finally {
            current = undefined;
          }
        }),
        { numRuns: RUNS, seed: process.env.REDACTION_SEED ? Number(process.env.REDACTION_SEED) : undefined },
      );
    },
    60_000 + RUNS * 15_000,
  ); // a case runs four commands: the bound grows with the runs, with room for a loaded machine
});
