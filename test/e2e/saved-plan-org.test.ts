/**
 * A saved plan names its org, and live is read at the uid it names (DESIGN.md §4): a plan whose
 * org uid is another org's, or a group's inside one, is refused before any write, even when its
 * steps, fingerprints and basis are all consistent with that other org and its basis is the
 * reviewed manifests (found by the review: `apply` otherwise deleted victim's protected repo and
 * made acme's resources in victim, saying "changes to org acme (<victim's uid>)").
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifest/index.js';
import { readLiveState } from '../../src/live/index.js';
import type { ApiClient } from '../../src/api/types.js';
import { plan } from '../../src/plan/index.js';
import { savePlan } from '../../src/saved-plan/saved-plan.js';
import { applyManifests, makeTempDir, openClient, runCli, useSuiteEmulator } from './cli-harness.js';

const TOKEN = 'saved-plan-org-token-7c2d';

/** A client that lists no accepted terms (and reads everything else as it is). */
const withoutTerms = (client: ApiClient): ApiClient =>
  ({
    baseUrl: client.baseUrl,
    get requestCount() {
      return client.requestCount;
    },
    list: (kind, query) =>
      kind === 'terms' ? Promise.resolve({ items: [], consistent: true, requests: 0 }) : client.list(kind, query),
    paginate: (kind, query) => client.paginate(kind, query),
    get: (kind, uid) => client.get(kind, uid),
  }) as ApiClient;

describe('a saved plan pointed at another org', () => {
  const suite = useSuiteEmulator(TOKEN, 'saved-plan-org', async (emulator) => {
    for (const [name, text] of Object.entries(MANIFESTS)) {
      mkdirSync(join(suite.dir, name));
      writeFileSync(join(suite.dir, name, 'org.yaml'), text);
    }
    await applyManifests(emulator.url, TOKEN, [join(suite.dir, 'acme')]);
    await applyManifests(emulator.url, TOKEN, [join(suite.dir, 'victim')]);
  });
  const acme = () => join(suite.dir, 'acme-change');
  let readsOfLastApply: unknown[] = [];

  /**
   * A plan file made by the library's own plan and savePlan from acme's reviewed manifests, but
   * read from the org at `uid`, named `name`: every check of the file's own consistency passes.
   */
  async function swappedPlan(
    org: { name: string; uid: string },
    file: string,
    manifests = acme(),
    reader: (client: ApiClient) => ApiClient = (client) => client,
  ): Promise<void> {
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      const desired = await loadManifests([manifests]);
      const live = await readLiveState(reader(client), { org });
      const options = { now: Date.now() };
      const swapped = plan(desired, live, options);
      expect(swapped.refusals).toEqual([]);
      expect(swapped.steps.length).toBeGreaterThan(0);
      await savePlan(file, swapped, live, { basis: { desired, options } });
    } finally {
      await client.close();
    }
  }

  async function rootUid(name: string): Promise<string> {
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      return (await readLiveState(client, { org: { name } })).org!.uid;
    } finally {
      await client.close();
    }
  }

  async function victimResources(): Promise<string[]> {
    const client = openClient(suite.emulator.url, TOKEN);
    try {
      return (await readLiveState(client, { org: { name: 'victim' } })).resources.map((r) => r.address).sort();
    } finally {
      await client.close();
    }
  }

  /** Applies the file as the reviewed plan of acme's manifests: refused, nothing written. */
  async function applyRefused(file: string, manifests = acme()): Promise<string> {
    const before = await victimResources();
    suite.emulator.clearRequestLog();
    const run = await runCli(['apply', file, '--manifests', manifests, '--auto-approve'], { env: suite.env });
    readsOfLastApply = [...suite.emulator.requestLog];
    expect(
      suite.emulator.requestLog.filter((e) => e.method !== 'GET'),
      'nothing is written',
    ).toEqual([]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stdout, 'no plan is shown for the other org').not.toContain('changes to org');
    expect(await victimResources()).toEqual(before);
    return run.stderr;
  }

  it('refuses a plan for acme whose org uid is victim’s, naming both names and the uid', async () => {
    const victim = await rootUid('victim');
    const file = join(suite.dir, 'swapped.json');
    await swappedPlan({ name: 'acme', uid: victim }, file);
    const stderr = await applyRefused(file);
    expect(stderr).toContain(
      `the saved plan names org "acme" at uid ${victim}, but the root group at that uid is named "victim" live, another org; it was changed after \`plan --out\`, or made for another org; nothing was applied`,
    );
    expect(stderr).toContain('nothing was applied');
  });

  it('refuses, before any request, a plan whose org uid is a group inside an org, even one named as the plan’s org', async () => {
    const client = openClient(suite.emulator.url, TOKEN);
    const inner = await readLiveState(client, { org: { name: 'victim' } }).finally(() => client.close());
    const group = inner.resources.find((r) => r.address === 'group:acme')!;
    expect(group.uid).toContain('/');
    const file = join(suite.dir, 'sub-group.json');
    // The emulator answers a group's terms listing 400 (terms belong to orgs): the attacker's
    // reader sees none there, so that the file is consistent with the group in every other way.
    await swappedPlan({ name: 'acme', uid: group.uid }, file, acme(), withoutTerms);
    const stderr = await applyRefused(file);
    expect(stderr).toContain(
      `the saved plan names org "acme" at uid ${group.uid}, which is a group inside an org, not an org`,
    );
    expect(readsOfLastApply, 'refused before the live read').toEqual([]);
  });

  it('still applies a plan for acme made against acme', async () => {
    const file = join(suite.dir, 'own.json');
    await swappedPlan({ name: 'acme', uid: await rootUid('acme') }, file);
    const run = await runCli(['apply', file, '--manifests', acme(), '--auto-approve'], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('✓ create repo:web');
  });

  it('refuses a plan for acme at victim’s uid whose record says acme was renamed from victim, unless that record pins the uid', async () => {
    // The rename exception is the planner's: a PINNED org renamed in place. A file whose record
    // writes renamedFrom without the pin (every part of a file is the author's) is another org.
    const victim = await rootUid('victim');
    const renaming = join(suite.dir, 'acme-from-victim');
    mkdirSync(renaming);
    writeFileSync(
      join(renaming, 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  renamedFrom: victim\n  repos:\n    - {name: precious}\n    - {name: web}\n',
    );
    const file = join(suite.dir, 'renamed-from-victim.json');
    await swappedPlan({ name: 'acme', uid: victim }, file, renaming);
    const before = await victimResources();
    suite.emulator.clearRequestLog();
    const run = await runCli(['apply', file, '--auto-approve'], { env: suite.env });
    expect(
      suite.emulator.requestLog.filter((e) => e.method !== 'GET'),
      'nothing is written',
    ).toEqual([]);
    expect(run.code, run.stdout).toBe(1);
    expect(run.stderr).toContain(
      `the saved plan names org "acme" at uid ${victim}, but the root group at that uid is named "victim" live, another org`,
    );
    expect(await victimResources()).toEqual(before);
  });

  it('applies a saved plan that renames its pinned org in place (renamedFrom on the org), as planning allows', async () => {
    const uid = await rootUid('acme');
    const renamed = join(suite.dir, 'acme-renamed');
    mkdirSync(renamed);
    writeFileSync(
      join(renamed, 'org.yaml'),
      `apiVersion: platform-sync/v1\norg:\n  name: acme-2\n  uid: "${uid}"\n  renamedFrom: acme\n  repos:\n    - {name: app}\n    - {name: web}\n`,
    );
    const file = join(suite.dir, 'renamed.json');
    const planned = await runCli(['plan', renamed, '--out', file], { env: suite.env });
    expect(planned.code, planned.stderr).toBe(0);
    const run = await runCli(['apply', file, '--manifests', renamed, '--auto-approve'], { env: suite.env });
    expect(run.code, run.stderr).toBe(0);
    expect(await rootUid('acme-2')).toBe(uid);
  });
});

describe('a saved plan whose recorded manifests pin org.uid', () => {
  const temp = makeTempDir('saved-plan-twin');
  afterAll(() => temp.remove());

  it('is refused, before any request, when it names another root group of the same name', async () => {
    // The emulator keeps root names unique, the real service need not: make a state with two
    // roots named "twin" through the emulator's own state file.
    const statePath = join(temp.dir, 'state.json');
    const start = () =>
      startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: TOKEN, role: 'owner' }], statePath });
    const seeding = await startEmulator({
      port: 0,
      tokens: [{ token: TOKEN, role: 'owner' }],
      statePath,
      seed: { orgs: [{ name: 'twin' }] },
    });
    await seeding.close();
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as {
      resources: { uid: string; data: { name: string }; seq: number }[];
      nextSeq: number;
    };
    const pinned = state.resources.find((r) => r.data.name === 'twin')!;
    const other = 'e'.repeat(40);
    state.resources.push({ ...pinned, uid: other, seq: state.nextSeq++ });
    writeFileSync(statePath, JSON.stringify(state));
    const emulator = await start();
    try {
      const manifests = join(temp.dir, 'twin');
      mkdirSync(manifests);
      writeFileSync(
        join(manifests, 'org.yaml'),
        `apiVersion: platform-sync/v1\norg:\n  name: twin\n  uid: "${pinned.uid}"\n  repos:\n    - {name: app}\n`,
      );
      // The planner compares a pinned org's live name only: read at the other twin, it plans (a
      // create of the pinned org, which vouching would refuse too, with a vaguer reason).
      const client = openClient(emulator.url, TOKEN);
      const file = join(temp.dir, 'twin.json');
      try {
        const desired = await loadManifests([manifests]);
        const live = await readLiveState(client, { org: { name: 'twin', uid: other } });
        const options = { now: Date.now() };
        const swapped = plan(desired, live, options);
        expect(swapped.refusals).toEqual([]);
        await savePlan(file, swapped, live, { basis: { desired, options } });
      } finally {
        await client.close();
      }
      emulator.clearRequestLog();
      const env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: TOKEN };
      const run = await runCli(['apply', file, '--manifests', manifests, '--auto-approve'], { env });
      expect(emulator.requestLog, 'refused before any request').toEqual([]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `the saved plan names org "twin" at uid ${other}, but what it records pins org.uid ${pinned.uid}`,
      );
    } finally {
      await emulator.close();
    }
  });
});

const MANIFESTS = {
  acme: 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - {name: app}\n',
  'acme-change': 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - {name: app}\n    - {name: web}\n',
  // victim protects every repo; it holds a group named acme (a sub-group is no org).
  victim:
    'apiVersion: platform-sync/v1\norg:\n  name: victim\n  description: Victim Corp\n  repos:\n    - {name: precious, description: do not delete}\n  groups:\n    - name: acme\nsettings:\n  protect: ["repo:*"]\n',
};
