/**
 * Untrusted text in the markdown views (DESIGN.md §4, §8; found by the review): a live value
 * holding backticks, HTML, a link and an @mention reaches the pull-request comment, the job
 * summary and `drift --format markdown` as code or as escaped text, never as an image, a link or a
 * notification. The lines are asserted whole: what GitHub renders from them is the text itself.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { makeTempDir, runCli } from './cli-harness.js';

const TOKEN = 'markdown-untrusted-owner-token-4d2a';
const HOSTILE = 'a `` <img src=https://evil.example/p.png> [click me](https://evil.example/login) @octocat';
/** The mapping's address as a code span: a fence longer than the text's run of two backticks, padded. */
const ADDRESS = `\`\`\` groupMapping:identityProvider:okta/${HOSTILE}=owner \`\`\``;
/** The same text as escaped prose: backticks and brackets escaped, HTML as entities, URL and mention broken. */
const PROSE =
  'a \\`\\` &lt;img src=https:&#8203;//evil.example/p.png&gt; \\[click me\\](https:&#8203;//evil.example/login) @&#8203;octocat';

describe('markdown views: untrusted live text is code or escaped text', () => {
  let emulator: Emulator;
  const temp = makeTempDir('markdown-untrusted');
  let file: string;
  const env = (): Record<string, string> => ({ PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: TOKEN });
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
              groupMappings: [{ externalGroup: HOSTILE, role: 'owner' }],
            },
          ],
        },
      ],
    });
    file = join(temp.dir, 'org.yaml');
    writeFileSync(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identityProviders:\n    - name: okta\n      defaultRole: viewer\n      oidc: {issuer: "https://okta.example", clientId: c, clientSecret: {fromEnv: PLATFORM_SYNC_SECRET_OKTA}}\n',
    );
  });
  afterAll(async () => {
    await emulator.close();
    temp.remove();
  });

  it('the plan comment names the delete in a code span the text cannot close, and the access change as escaped text', async () => {
    const run = await runCli(['plan', file, '--format', 'markdown'], {
      env: { ...env(), PLATFORM_SYNC_SECRET_OKTA: 'okta-secret-5e6f7a8b' },
    });
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).toContain(`> - ${ADDRESS}`);
    expect(lines).toContain(
      `| \`\`\` idp:okta/group:${HOSTILE} \`\`\` — **admits: anyone okta puts in group ${PROSE}** | \`org\` | 1 group |  | ➖ all of owner (138 capabilities) |`,
    );
  });

  it('drift --format markdown lists the unmanaged mapping and its access the same way', async () => {
    const run = await runCli(['drift', file, '--format', 'markdown'], {
      env: { ...env(), PLATFORM_SYNC_SECRET_OKTA: 'okta-secret-5e6f7a8b' },
    });
    expect(run.stderr).toBe('');
    const lines = run.stdout.split('\n');
    expect(lines.some((l) => l.startsWith(`- ${ADDRESS}`))).toBe(true);
    expect(
      lines.some((l) =>
        l.startsWith(`| \`\`\` idp:okta/group:${HOSTILE} \`\`\` — **admits: anyone okta puts in group ${PROSE}** |`),
      ),
    ).toBe(true);
  });
});
