/**
 * The README's "Members and invites" example runs as written (issue 38: the README documents
 * members with an onboarding example): it validates, and its plan invites both people.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, useSuiteEmulator } from './cli-harness.js';
import { readDoc } from '../support/docs.js';

/** The first fenced yaml block after a heading of the README. */
function yamlAfter(heading: string): string {
  const readme = readDoc('manifests.md');
  const at = readme.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThan(0);
  const start = readme.indexOf('```yaml\n', at) + '```yaml\n'.length;
  return readme.slice(start, readme.indexOf('```', start));
}

describe("the README's members example", () => {
  const suite = useSuiteEmulator('readme-members-token-31f0', 'readme-members', () => mkdirSync(dir));
  const dir = join(suite.dir, 'm');

  it('validates and plans an invite for each member, until the inviteTtl it sets', async () => {
    writeFileSync(join(dir, 'org.yaml'), yamlAfter('### Members and invites'));
    expect((await runCli(['validate', dir])).code).toBe(0);
    const plan = await runCli(['plan', dir, '--bootstrap', '--format', 'json'], { env: suite.env });
    expect(plan.code, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as {
      members: { email: string; role: string; state: string; expirationTime: string }[];
    };
    expect(json.members.map((m) => [m.email, m.role, m.state])).toEqual([
      ['alice@acme.dev', 'viewer', 'invited'],
      ['bob@acme.dev', 'registry.push', 'invited'],
    ]);
    const days = (Date.parse(json.members[0]!.expirationTime) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.9);
    expect(days).toBeLessThanOrEqual(14);
  });
});
