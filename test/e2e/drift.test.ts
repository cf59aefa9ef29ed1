import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { ACME, applyManifests, makeTempDir, openClient, runCli } from './cli-harness.js';
import { createVirtualClock } from '../integration/client-harness.js';

const OWNER = 'drift-e2e-owner-token-5c1d';
const VIEWER = 'drift-e2e-viewer-token-8e2a';

describe('platform-sync drift', () => {
  let emulator: Emulator;
  let env: Record<string, string>;
  const temp = makeTempDir('drift');

  beforeAll(async () => {
    emulator = await startEmulator({
      checkAnswers: true,
      port: 0,
      tokens: [
        { token: OWNER, role: 'owner' },
        { token: VIEWER, role: 'viewer' },
      ],
    });
    await applyManifests(emulator.url, OWNER, [ACME]);
    // Drift only reads: a read-only token is all it needs.
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: VIEWER };
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  it('exits 0 and says so when live state matches the manifests', async () => {
    const run = await runCli(['drift', ACME], { env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No drift: org acme matches the manifests.');
  });

  it('exits 2 and tells changed, unmanaged and missing apart in reviewer words', async () => {
    const client = openClient(emulator.url, OWNER);
    try {
      const org = (await client.list('group', { name: 'acme' })).items[0]!;
      const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { description: 'Edited in the console' }, ['description']);
      await client.create('identity', org.uid, { name: 'intruder', description: 'by hand' });
      const sub = (await client.list('subscription', { childrenOf: org.uid })).items[0]!;
      await client.delete('subscription', sub.uid);
    } finally {
      await client.close();
    }

    const text = await runCli(['drift', ACME], { env });
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('Live differs from the manifests — changed by hand, or not applied yet (1):');
    expect(text.stdout).toMatch(/~ repo:app .*org\.yaml:\d+:\d+/);
    expect(text.stdout).toContain(
      'description: live "Edited in the console", manifests "The Acme customer-facing application"',
    );
    expect(text.stdout).toContain(
      'Exists live but not in the manifests — created by hand, or its removal not applied yet (1):',
    );
    expect(text.stdout).toContain('? identity:intruder');
    expect(text.stdout).toContain('In the manifests but missing live — deleted by hand, or not applied yet (1):');
    expect(text.stdout).toContain('! subscription:https://hooks.acme.dev/platform/audit');

    const json = await runCli(['drift', ACME, '--format', 'json'], { env });
    expect(json.code).toBe(2);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      formatVersion: 1,
      org: { name: 'acme' },
      inSync: false,
      summary: { changed: 1, unmanaged: 1, missing: 1 },
    });
    expect(report.items.map((i: { category: string; address: string }) => `${i.category} ${i.address}`)).toEqual([
      'changed repo:app',
      'unmanaged identity:intruder',
      'missing subscription:https://hooks.acme.dev/platform/audit',
    ]);

    const markdown = await runCli(['drift', ACME, '--format', 'markdown'], { env });
    expect(markdown.code).toBe(2);
    expect(markdown.stdout).toContain('### platform-sync drift: org `acme`');
    expect(markdown.stdout).toContain(
      '| `repo:app` | description | "Edited in the console" | "The Acme customer-facing application" |',
    );
  });

  it('appends the markdown report to $GITHUB_STEP_SUMMARY when it is set', async () => {
    const summary = join(temp.dir, 'step-summary.md');
    writeFileSync(summary, '## earlier step\n');
    const run = await runCli(['drift', ACME], { env: { ...env, GITHUB_STEP_SUMMARY: summary } });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Live differs from the manifests — changed by hand, or not applied yet (1):'); // the log still gets text
    const written = readFileSync(summary, 'utf8');
    expect(written.startsWith('## earlier step\n')).toBe(true);
    expect(written).toContain('### platform-sync drift: org `acme`');
    expect(written).toContain('`identity:intruder`');

    // The summary is a copy: when it cannot be written, drift warns and still exits 2.
    const unwritable = await runCli(['drift', ACME], {
      env: { ...env, GITHUB_STEP_SUMMARY: join(summary, 'not-a-dir') },
    });
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toMatch(
      /^Warning: cannot append the drift report to \$GITHUB_STEP_SUMMARY .*ENOTDIR; the report above is complete\.\n$/,
    );
  });

  it('names the roles of a binding whose role was changed by hand, not their uids', async () => {
    const client = openClient(emulator.url, OWNER);
    try {
      const org = (await client.list('group', { name: 'acme' })).items[0]!;
      const viewer = (await client.list('role', { name: 'viewer' })).items.find((r) => !r.uid.includes('/'))!;
      const bindings = (await client.list('roleBinding', { childrenOf: org.uid })).items;
      const push = bindings.find((b) => (b.role as { name?: string } | undefined)?.name === 'registry.push')!;
      await client.update('roleBinding', push.uid, { roleUid: viewer.uid }, ['roleUid']);
    } finally {
      await client.close();
    }
    const run = await runCli(['drift', ACME], { env });
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      /~ roleBinding:release-bot=registry\.push .*\n {6}roleUid: live built-in role viewer, manifests built-in role registry\.push\n/,
    );
  });

  it('exits 1 with one clear line for invalid manifests or a missing token', async () => {
    const bad = join(temp.dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - description: no name\n');
    const badSummary = join(temp.dir, 'invalid-summary.md');
    writeFileSync(
      join(temp.dir, 'bad2.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - description: no name either\n',
    );
    const invalid = await runCli(['drift', bad, join(temp.dir, 'bad2.yaml')], {
      env: { ...env, GITHUB_STEP_SUMMARY: badSummary },
    });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/bad\.yaml:5:\d+/);
    // The job summary carries every problem, not only "2 problems in the manifests:".
    const failed = readFileSync(badSummary, 'utf8');
    expect(failed).toContain('drift check failed: 2 problems in the manifests:');
    expect(failed).toMatch(/<pre>\n.*bad\.yaml:5:\d+: .*\n.*bad2\.yaml:5:\d+: .*\n<\/pre>/);

    const summary = join(temp.dir, 'failed-summary.md');
    const noToken = await runCli(['drift', ACME], {
      env: { PLATFORM_API_URL: emulator.url, GITHUB_STEP_SUMMARY: summary },
    });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('PLATFORM_TOKEN');
    // The failed nightly job's summary page says why, in one line.
    const written = readFileSync(summary, 'utf8');
    expect(written).toMatch(/^### platform-sync drift check failed\n\ndrift check failed: .*PLATFORM_TOKEN.*\n\n$/);

    const wrongToken = 'drift-e2e-wrong-token-0b9d';
    const refused = await runCli(['drift', ACME], {
      env: { ...env, PLATFORM_TOKEN: wrongToken, GITHUB_STEP_SUMMARY: summary },
    });
    expect(refused.code).toBe(1);
    const appended = readFileSync(summary, 'utf8').slice(written.length);
    expect(appended).toMatch(/^### platform-sync drift check failed\n\ndrift check failed: .*UNAUTHENTICATED.*\n\n$/);
    expect(appended + refused.stderr).not.toContain(wrongToken);
  });

  // The client retries a refused connection for seconds before it gives up (3.5–7 s: DEFAULT_RETRY_POLICY);
  // on a virtual clock it makes the same attempts without the waits (issue 63: seconds of an idle worker).
  it('exits 1 with one clear line when the API cannot be reached', async () => {
    const unreachable = await runCli(['drift', ACME], {
      env: { PLATFORM_API_URL: 'http://127.0.0.1:1', PLATFORM_TOKEN: VIEWER },
      clock: createVirtualClock(),
    });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).not.toContain('internal error');
    expect(unreachable.stderr + unreachable.stdout).not.toContain(VIEWER);
  });

  it('explains itself with examples in --help', async () => {
    const help = await runCli(['drift', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('--format');
    expect(help.stdout).toMatch(/0 in sync.*2 drift.*1 error/s);
  });
});
