/**
 * Named regression (issue 41, `test:deep` case 766 of seed 20261126): a person added by hand in
 * group `a`, `ignore: ["identity:a/*human*"]`, group `a` renamed to `x1` with `renamedFrom: a`.
 * The first plan left the person alone; once the rename was applied, the next plan deleted the
 * person's binding and identity — revoking access granted by hand. DESIGN.md §4 (rev 4): while a
 * `renamedFrom` line stays, a glob also matches a resource under the old name that line gives
 * it; `validate` warns about a glob that matches only through an old name.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLiveState } from '../../src/live/index.js';
import { openClient, runCli, useSuiteEmulator } from '../e2e/cli-harness.js';

const TOKEN = 'ignore-across-renames-owner-token-77aa';

describe('ignore and protect across an applied rename', () => {
  const suite = useSuiteEmulator(TOKEN, 'ignore-renames');

  it('a hand-granted person in a renamed group is never revoked while renamedFrom stays; validate warns about the old-name glob', async () => {
    const file = join(suite.dir, 'org.yaml');
    writeFileSync(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  groups:\n    - name: a\n      identities:\n        - name: ci\n',
    );
    expect((await runCli(['apply', file, '--bootstrap', '--auto-approve'], { env: suite.env })).code).toBe(0);

    // A person added by hand in group a, bound to registry.push there.
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      const live = await readLiveState(client, { org: { name: 'acme' } });
      const group = live.resources.find((r) => r.address === 'group:a')!;
      const person = await client.create('identity', group.uid, { name: 'human-ann' });
      await client.create('roleBinding', group.uid, {
        identityUid: person.uid,
        roleUid: live.builtinRoles['registry.push'],
      });
    } finally {
      await client.close();
    }

    writeFileSync(
      file,
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  groups:\n    - name: x1\n      renamedFrom: a\n      identities:\n        - name: ci\nsettings:\n  ignore: ["identity:a/*human*"]\n',
    );
    const validate = await runCli(['validate', file], { env: suite.env });
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain('warning:');
    expect(validate.stdout).toContain(
      '"identity:a/*human*" matches only through the old name "a" that renamedFrom gives group "x1"',
    );

    const first = await runCli(['plan', file, '--format', 'json'], { env: suite.env });
    expect(first.code, first.stderr).toBe(0);
    const firstSteps = (JSON.parse(first.stdout) as { steps: { action: string; address: string }[] }).steps;
    expect(firstSteps.filter((s) => s.action === 'delete')).toEqual([]);
    expect((await runCli(['apply', file, '--auto-approve'], { env: suite.env })).code).toBe(0);

    // The rename is applied; the renamedFrom line stays: the person is still left alone.
    const again = await runCli(['plan', file, '--format', 'json', '--detailed-exitcode'], { env: suite.env });
    expect(again.stdout).not.toContain('human-ann');
    expect(again.code, again.stdout).toBe(0);
  });
});
