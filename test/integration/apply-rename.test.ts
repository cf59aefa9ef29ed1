/**
 * Renames in place against the emulator over HTTP (DESIGN.md §3 `renamedFrom`): a group with
 * identities, bindings, repos and image tags beneath it is renamed by exactly one PATCH — no
 * DELETE, no POST, every uid kept — and a rename interrupted half-way finishes on a re-run.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply } from '../../src/apply/index.js';
import type { ApiClient } from '../../src/api/types.js';
import type { Emulator } from '../../src/emulator/index.js';
import { readLiveState } from '../../src/live/index.js';
import { openClient, planManifests, startApplyEmulator, writesIn } from './apply-helpers.js';

const HEAD = 'apiVersion: platform-sync/v1\norg:\n  name: acme\n';
const BEFORE = `${HEAD}  roleBindings:
    - {identity: /backend/ci, role: editor}
  groups:
    - name: backend
      description: Backend
      identities:
        - {name: ci, claimMatch: {issuer: "https://ci.acme.dev", subject: "pipeline:main"}}
        - {name: deployer}
      roleBindings:
        - {identity: ci, role: viewer}
        - {identity: deployer, role: registry.push}
      repos:
        - {name: app, readme: "# app\\n"}
      groups:
        - name: db
          identities: [{name: migrator}]
`;
/** The same org with group backend renamed to services (and, in the second step, ci to ci-bot). */
function afterRename(identityRename: boolean): string {
  const ci = identityRename
    ? '{name: ci-bot, renamedFrom: ci, claimMatch: {issuer: "https://ci.acme.dev", subject: "pipeline:main"}}'
    : '{name: ci, claimMatch: {issuer: "https://ci.acme.dev", subject: "pipeline:main"}}';
  const ciRef = identityRename ? 'ci-bot' : 'ci';
  return `${HEAD}  roleBindings:
    - {identity: /services/${ciRef}, role: editor}
  groups:
    - name: services
      renamedFrom: backend
      description: Backend
      identities:
        - ${ci}
        - {name: deployer}
      roleBindings:
        - {identity: ${ciRef}, role: viewer}
        - {identity: deployer, role: registry.push}
      repos:
        - {name: app, readme: "# app\\n"}
      groups:
        - name: db
          identities: [{name: migrator}]
`;
}

let emulator: Emulator;
let client: ApiClient;
let dir: string;

function manifest(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Every live resource's uid by kind and name (paths change with a rename; uids must not). */
async function uidsByName(): Promise<Map<string, string>> {
  const live = await readLiveState(client, { org: { name: 'acme' } });
  return new Map(
    live.resources.map((r) => [
      `${r.kind}:${(r.fields as { name?: string }).name ?? r.address.replace(/^[^:]*:/, '')}`,
      r.uid,
    ]),
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'platform-sync-rename-'));
  emulator = await startApplyEmulator();
  client = openClient(emulator);
  const { plan } = await planManifests(client, [manifest('before.yaml', BEFORE)]);
  expect((await apply(plan, client)).ok).toBe(true);
  // An image tag pushed by CI: data platform-sync could not restore if the repo were re-created.
  const repo = (await client.list('repo', { name: 'app' })).items[0]!;
  await client.create('tag', repo.uid, { name: '1.0', digest: `sha256:${'a'.repeat(64)}` });
});
afterAll(async () => {
  await client.close();
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a rename in place', () => {
  it('renames a group with everything beneath it by exactly one PATCH: no DELETE, no POST, every uid kept, and re-plan is empty', async () => {
    const before = await uidsByName();
    const path = manifest('after.yaml', afterRename(false));
    const { plan } = await planManifests(client, [path]);
    expect(plan.refusals).toEqual([]);
    expect(plan.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['update group:services']);
    emulator.clearRequestLog();
    const result = await apply(plan, client);
    expect(result.ok).toBe(true);
    const writes = writesIn(emulator.requestLog);
    expect(writes.map((e) => `${e.method} ${e.path}?updateMask=${e.query.updateMask}`)).toEqual([
      `PATCH /iam/v2/groups/${before.get('group:backend')}?updateMask=name`,
    ]);
    const now = await uidsByName();
    expect(now.get('group:services')).toBe(before.get('group:backend'));
    for (const key of ['identity:ci', 'identity:deployer', 'group:db', 'identity:migrator', 'repo:app', 'tag:1.0'])
      expect(now.get(key), key).toBe(before.get(key));
    expect((await planManifests(client, [path])).plan.steps).toEqual([]);
  });

  it('finishes on a re-run after an apply interrupted between two renames', async () => {
    const path = manifest('after-2.yaml', afterRename(true));
    // Back to the start: rename services back to backend by hand, so both renames are due.
    const uid = (await uidsByName()).get('group:services')!;
    await client.update('group', uid, { name: 'backend' }, ['name']);
    const { plan } = await planManifests(client, [path]);
    expect(plan.steps.map((s) => `${s.action} ${s.address}`)).toEqual([
      'update group:services',
      'update identity:services/ci-bot',
    ]);
    const controller = new AbortController();
    const first = await apply(plan, client, {
      concurrency: 1,
      signal: controller.signal,
      onEvent: (e) => e.type === 'step-done' && controller.abort(),
    });
    expect(first.done).toEqual(['group:services']);
    // The group's rename is done: its renamedFrom is now a no-op; only the identity's is left.
    const rest = (await planManifests(client, [path])).plan;
    expect(rest.steps.map((s) => `${s.action} ${s.address}`)).toEqual(['update identity:services/ci-bot']);
    expect(rest.steps[0]).toMatchObject({ previousAddress: 'identity:services/ci', updateMask: ['name'] });
    expect((await apply(rest, client)).ok).toBe(true);
    expect((await planManifests(client, [path])).plan.steps).toEqual([]);
  });
});
