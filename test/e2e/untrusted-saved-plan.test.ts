/**
 * A saved plan is untrusted input (DESIGN.md §4): every uid a step touches must be one the
 * plan's own fingerprints vouch for, at the address the step names, under the plan's org. A
 * hand-edited plan.json that reaches into another org is refused before any write.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { readLiveState } from '../../src/live/index.js';
import type { Plan } from '../../src/model/plan.js';
import { ACME, applyManifests, makeTempDir, openClient, REPO_ROOT, runCli } from './cli-harness.js';

const OWNER = 'saved-plan-untrusted-owner-token-4e1a';
const CHANGE_SET = join(REPO_ROOT, 'test', 'fixtures', 'apply-change-set');

describe('a hand-edited saved plan', () => {
  let emulator: Emulator;
  let env: Record<string, string>;
  const temp = makeTempDir('saved-untrusted');
  let planFile: string;
  let saved: Plan;
  let otherIdentity: { uid: string; address: string };
  let otherGroupUid: string;

  beforeAll(async () => {
    emulator = await startEmulator({ checkAnswers: true, port: 0, tokens: [{ token: OWNER, role: 'owner' }] });
    env = { PLATFORM_API_URL: emulator.url, PLATFORM_TOKEN: OWNER };
    await applyManifests(emulator.url, OWNER, [ACME]);
    const other = join(temp.dir, 'other');
    mkdirSync(other);
    writeFileSync(
      join(other, 'org.yaml'),
      'apiVersion: platform-sync/v1\norg:\n  name: globex\n  groups:\n    - name: ops\n      identities:\n        - name: payroll-bot\n          claimMatch: {issuer: "https://issuer.example.com", subject: "payroll"}\n',
    );
    await applyManifests(emulator.url, OWNER, [other]);
    const client = openClient(emulator.url, OWNER);
    const globex = await readLiveState(client, { org: { name: 'globex' } }).finally(() => client.close());
    otherIdentity = globex.resources.find((r) => r.kind === 'identity')!;
    otherGroupUid = globex.resources.find((r) => r.address === 'group:ops')!.uid;
    planFile = join(temp.dir, 'plan.json');
    expect((await runCli(['plan', CHANGE_SET, '--out', planFile], { env })).code).toBe(0);
    saved = JSON.parse(readFileSync(planFile, 'utf8')) as Plan;
    expect(saved.steps.some((s) => s.action === 'update')).toBe(true);
  });
  afterAll(async () => {
    await emulator?.close();
    temp.remove();
  });

  /** Applies an edited copy of the plan: nothing is written, and (unless `afterRead`) nothing is even read. */
  async function applyEdited(
    edit: (plan: Plan & { basis?: unknown }) => void,
    afterRead = false,
  ): Promise<{ code: number; stderr: string }> {
    const plan = structuredClone(saved);
    edit(plan);
    const file = join(temp.dir, 'edited.plan.json');
    writeFileSync(file, JSON.stringify(plan));
    emulator.clearRequestLog();
    const run = await runCli(['apply', file, '--auto-approve'], { env });
    expect(
      emulator.requestLog.filter((e) => e.method !== 'GET'),
      'nothing is written',
    ).toEqual([]);
    if (!afterRead) expect(emulator.requestLog, 'refused before the live read').toEqual([]);
    return run;
  }

  it('refuses a step whose uid was swapped for one in another org, naming the step', async () => {
    const run = await applyEdited((plan) => {
      const update = plan.steps.find((s) => s.action === 'update')!;
      (update as { uid: string }).uid = otherIdentity.uid;
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'the saved plan touches resources it did not read, so it was changed after `plan --out`; nothing was applied:',
    );
    expect(run.stderr).toMatch(
      new RegExp(`- update \\S+: target uid ${otherIdentity.uid} does not lie under org acme`),
    );
  });

  it('refuses an appended delete of another org’s identity', async () => {
    const run = await applyEdited((plan) => {
      plan.steps.push({
        action: 'delete',
        kind: 'identity',
        address: 'identity:engineering/ci-bot',
        uid: otherIdentity.uid,
      });
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `- delete identity:engineering/ci-bot: target uid ${otherIdentity.uid} does not lie under org acme`,
    );
  });

  it('refuses a create whose parent is another org’s group, and a step on a uid of our org that the plan never read', async () => {
    const run = await applyEdited((plan) => {
      plan.steps.push({
        action: 'create',
        kind: 'identity',
        address: 'identity:engineering/spy',
        parent: 'group:engineering',
        parentUid: otherGroupUid,
        after: { name: 'spy' },
      });
      plan.steps.push({
        action: 'delete',
        kind: 'identity',
        address: 'identity:ghost',
        uid: `${plan.org.uid}/ffffffffffffffff`,
      });
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `- create identity:engineering/spy: parent uid ${otherGroupUid} does not lie under org acme`,
    );
    expect(run.stderr).toContain(
      `- delete identity:ghost: target uid ${saved.org.uid}/ffffffffffffffff is not one the plan read (no fingerprint vouches for it)`,
    );
  });

  it('refuses a step whose address names another resource than the uid it was read as', async () => {
    const ciBot = saved.fingerprints.find((f) => f.address === 'identity:engineering/ci-bot')!;
    const run = await applyEdited((plan) => {
      plan.steps.push({ action: 'delete', kind: 'identity', address: 'identity:intruder', uid: ciBot.uid });
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `- delete identity:intruder: target uid ${ciBot.uid} was read as identity:engineering/ci-bot, not identity:intruder`,
    );
  });

  it('regression 7 (issue 35): an appended delete of a protected identity of its own org, vouched for by its fingerprints, is refused', async () => {
    const protectedBot = saved.fingerprints.find((f) => f.address === 'identity:release-bot')!;
    const run = await applyEdited((plan) => {
      plan.steps.push({ action: 'delete', kind: 'identity', address: 'identity:release-bot', uid: protectedBot.uid });
    }, true);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the saved plan holds steps that planning what it records would not produce');
    expect(run.stderr).toContain(
      '- delete identity:release-bot: not a step that planning what the plan records produces',
    );
  });

  it('refuses a step whose values were altered by hand, and a plan that lost its basis', async () => {
    const altered = await applyEdited((plan) => {
      const update = plan.steps.find((s) => s.action === 'update')! as { after: Record<string, unknown> };
      update.after = { ...update.after, description: 'changed by hand' };
    }, true);
    expect(altered.code).toBe(1);
    expect(altered.stderr).toContain('added or altered by hand');
    const bare = await applyEdited((plan) => {
      delete plan.basis;
    }, true);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('it has no record of what it was planned from');
  });

  it('re-checks the recorded settings: a delete the basis now protects is refused by the protect rule', async () => {
    const doomed = saved.steps.find((s) => s.action === 'delete')!;
    expect(doomed, 'the change set deletes something').toBeDefined();
    const run = await applyEdited((plan) => {
      const basis = plan.basis as { desired: { settings: { protect: string[] } } };
      basis.desired.settings.protect = [...basis.desired.settings.protect, doomed.address];
    }, true);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(doomed.address);
    expect(run.stderr).toMatch(/protect/);
  });

  it('applies the plan as saved', async () => {
    const run = await runCli(['apply', planFile, '--auto-approve'], { env });
    expect(run.code, run.stderr).toBe(0);
  });
});
