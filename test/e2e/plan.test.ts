/**
 * `platform-sync plan` end to end: the built CLI (bin/platform-sync) against a real emulator
 * over HTTP, for examples/acme — bootstrap, in sync, out-of-band change, saved plans, refusals,
 * errors — checking exit codes and that the token never appears in any output or file.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/index.js';
import { readLiveState } from '../../src/live/index.js';
import { checkFingerprints } from '../../src/saved-plan/fingerprint.js';
import { loadSavedPlan } from '../../src/saved-plan/saved-plan.js';
import { validatePlanDocument } from '../../src/saved-plan/plan-schema.js';
import { ACME, applyManifests, openClient, runCli, type CliRun, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'plan-e2e-owner-token-7f3a9c';

function expectNoToken(run: CliRun): void {
  expect(run.stdout).not.toContain(TOKEN);
  expect(run.stderr).not.toContain(TOKEN);
}

describe('platform-sync plan', () => {
  let acmeCount: number;
  const suite = useSuiteEmulator(TOKEN, 'plan', async () => {
    acmeCount = (await loadManifests([ACME])).resources.length;
  });

  it('bootstraps: an org that does not exist is created with everything under it', async () => {
    const run = await runCli(['plan', ACME, '--bootstrap'], { env: suite.env });
    expectNoToken(run);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('platform-sync will make these changes to org acme (to be created):');
    expect(run.stdout).toContain('  + create org  (bootstrap: no root group named acme is visible to this token)');
    expect(run.stdout.trimEnd().endsWith(`Plan: ${acmeCount} to create, 0 to update, 0 to delete.`)).toBe(true);
    // Colour only on a TTY: the harness pipes stdout.
    expect(run.stdout).not.toContain('\u001b[');

    const detailed = await runCli(['plan', ACME, '--bootstrap', '--detailed-exitcode'], { env: suite.env });
    expect(detailed.code).toBe(2);
  });

  it('prints versioned JSON that matches schemas/plan.schema.json, and markdown for a PR', async () => {
    const json = await runCli(['plan', ACME, '--bootstrap', '--format', 'json'], { env: suite.env });
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(validatePlanDocument(doc)).toEqual([]);
    expect(doc).toMatchObject({ formatVersion: 1, summary: { create: acmeCount, update: 0, delete: 0 } });
    expect(doc.steps[0]).toMatchObject({ action: 'create', kind: 'group', address: 'org', parent: null });

    const md = await runCli(['plan', ACME, '--bootstrap', '--format', 'markdown'], { env: suite.env });
    expect(md.code).toBe(0);
    expect(
      md.stdout.startsWith(
        `### platform-sync plan for \`acme\`\n\n**Plan: ${acmeCount} to create, 0 to update, 0 to delete.**\n`,
      ),
    ).toBe(true);
    expect(md.stdout).toContain('<details><summary>');
  });

  it('says there is nothing to do once applied (exit 0 even with --detailed-exitcode)', async () => {
    await applyManifests(suite.emulator.url, TOKEN, [ACME]);
    const run = await runCli(['plan', ACME, '--bootstrap', '--detailed-exitcode'], { env: suite.env });
    expectNoToken(run);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('No changes. The org matches the manifests.\n');
  });

  it('shows an out-of-band change as an update, saves the plan with fingerprints and no token', async () => {
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      const org = (await client.list('group', { name: 'acme' })).items[0]!;
      const app = (await client.list('repo', { childrenOf: org.uid, name: 'app' })).items[0]!;
      await client.update('repo', app.uid, { description: 'Edited in the console' }, ['description']);
      await client.create('identity', org.uid, { name: 'stray', description: 'made by hand' });
    } finally {
      await client.close();
    }
    const out = join(suite.dir, 'plan.json');
    const run = await runCli(['plan', ACME, '--bootstrap', '--detailed-exitcode', '--out', out, '--verbose'], {
      env: suite.env,
    });
    expectNoToken(run);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      '  ~ update repo:app\n      description: "Edited in the console" → "The Acme customer-facing application"\n',
    );
    expect(run.stdout).toContain('  - delete identity:stray\n');
    expect(run.stdout).toContain('Plan: 0 to create, 1 to update, 1 to delete.');
    // --verbose: one line per request on stderr, paths only.
    expect(run.stderr).toMatch(/^GET \/iam\/v2\/groups\?\S* → 200 \(\d+ ms\)$/m);
    expect(run.stderr).toContain(
      `Saved the plan to ${out}; apply exactly this plan with: platform-sync apply ${out} --manifests `,
    );

    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain(TOKEN);
    const saved = await loadSavedPlan(out);
    expect(saved.summary).toEqual({ create: 0, update: 1, delete: 1 });
    expect(saved.fingerprints.length).toBe(acmeCount + 1);
    expect(saved.fingerprints.find((f) => f.address === 'repo:app')?.version).toMatch(/^\d{4}-\d\d-\d\dT/);

    // The fingerprints hold against a fresh read, and name what changes after it.
    const reader = openClient(suite.emulator.url, TOKEN);
    try {
      const read = () => readLiveState(reader, { org: { name: 'acme' } });
      expect(checkFingerprints(saved, await read())).toEqual([]);
      const app = (await read()).resources.find((r) => r.address === 'repo:app')!;
      await reader.update('repo', app.uid, { description: 'Edited again' }, ['description']);
      expect(checkFingerprints(saved, await read()).map((s) => s.address)).toEqual(['repo:app']);
    } finally {
      await reader.close();
    }
  });

  it('--target narrows the plan to an address and what it needs', async () => {
    const run = await runCli(['plan', ACME, '--bootstrap', '--target', 'repo:app'], { env: suite.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('~ update repo:app');
    expect(run.stdout).not.toContain('identity:stray');
    expect(run.stdout).toContain('Plan: 0 to create, 1 to update, 0 to delete.');
    expect(run.stdout).toContain('! 1 other change is not in this plan because of --target');

    // A target that names nothing is an error, as in Terraform (issue 40): a typo must not read as "no changes".
    const none = await runCli(['plan', ACME, '--bootstrap', '--target', 'repo:nothing', '--detailed-exitcode'], {
      env: suite.env,
    });
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('x --target repo:nothing matches nothing');
    expect(none.stdout).not.toContain('The org matches the manifests');
    expect(none.stdout).not.toContain('No changes');

    const unknown = await runCli(['plan', ACME, '--bootstrap', '--target', 'nonexistent:foo'], { env: suite.env });
    expectNoToken(unknown);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe(
      'Error: --target nonexistent:foo has an unknown kind "nonexistent"\n' +
        'a target is "org" or starts with one of group:, identity:, role:, roleBinding:, repo:, tag:, subscription:, identityProvider:, groupMapping:, accountAssociation:, terms:, groupInvite:, member:\n',
    );
  });

  it('refuses an unsafe plan with exit 1, naming the protected resource', async () => {
    const manifests = join(suite.dir, 'protected');
    mkdirSync(manifests, { recursive: true });
    for (const file of ['org.yaml', 'engineering.yaml', 'security.yaml']) {
      writeFileSync(join(manifests, file), readFileSync(join(ACME, file), 'utf8'));
    }
    writeFileSync(
      join(manifests, 'settings.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\nsettings:\n  protect: ["identity:str*"]\n',
    );
    const run = await runCli(['plan', manifests, '--bootstrap'], { env: suite.env });
    expectNoToken(run);
    expect(run.code).toBe(1);
    // A refused plan is still shown: what it would delete, and why it is refused.
    expect(run.stdout).toContain('- delete identity:stray');
    expect(run.stdout).toContain(
      'Refused: apply will not run this plan:\n  x identity:stray is protected (settings.protect) and may not be deleted\n',
    );
    expect(run.stderr).toBe(
      'Error: the plan is refused:\n  - identity:stray is protected (settings.protect) and may not be deleted\n',
    );
  });

  it('fails with exit 1 and one clear line on bad input, never printing the token', async () => {
    const noToken = await runCli(['plan', ACME, '--bootstrap'], { env: { PLATFORM_API_URL: suite.emulator.url } });
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toBe(
      'Error: no API token: set PLATFORM_TOKEN or pass --token-file FILE (a token is never taken as a plain argument)\n',
    );

    const wrongToken = await runCli(['plan', ACME, '--bootstrap'], {
      env: { PLATFORM_API_URL: suite.emulator.url, PLATFORM_TOKEN: `${TOKEN}-wrong` },
    });
    expect(wrongToken.code).toBe(1);
    expect(wrongToken.stderr).toMatch(/^Error: .*401.*UNAUTHENTICATED/);
    expect(wrongToken.stderr).not.toContain(TOKEN);

    const badRatio = await runCli(['plan', ACME, '--bootstrap', '--max-delete-ratio', '2'], { env: suite.env });
    expect(badRatio.code).toBe(1);
    expect(badRatio.stderr).toBe('Error: --max-delete-ratio must be a number from 0 to 1, got "2"\n');

    const badManifest = join(suite.dir, 'bad.yaml');
    writeFileSync(badManifest, 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - name: Bad Name\n');
    const invalid = await runCli(['plan', badManifest], { env: suite.env });
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain(`${badManifest}:5:`);
  });
});
