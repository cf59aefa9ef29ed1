/**
 * Bootstrap of examples/acme into an empty emulator, then a change set with updates, a role
 * change and deletes — real client, real emulator over HTTP, real planner.
 */
import type { DeleteStep, UpdateStep } from '../../src/model/plan.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply, type ApplyEvent } from '../../src/apply/index.js';
import type { ApiClient } from '../../src/api/types.js';
import type { Emulator } from '../../src/emulator/index.js';
import { ACME, CHANGE_SET, openClient, planManifests, startApplyEmulator, writesIn } from './apply-helpers.js';

let emulator: Emulator;
let client: ApiClient;

beforeAll(async () => {
  emulator = await startApplyEmulator();
  client = openClient(emulator);
});
afterAll(async () => {
  await client.close();
  await emulator.close();
});

describe('apply against the emulator', () => {
  it('bootstraps examples/acme into an empty org, trusting create responses, and then plans nothing', async () => {
    const { plan, desired } = await planManifests(client, [ACME]);
    expect(plan.org.uid).toBeUndefined();
    expect(plan.steps.every((s) => s.action === 'create')).toBe(true);
    expect(plan.steps).toHaveLength(desired.resources.length);

    emulator.clearRequestLog();
    const events: ApplyEvent[] = [];
    const result = await apply(plan, client, { concurrency: 8, onEvent: (e) => events.push(e) });

    expect(result.failed).toEqual([]);
    expect(result.skipped).toEqual([]);
    expect(result.ok).toBe(true);
    expect([...result.done].sort()).toEqual(plan.steps.map((s) => s.address).sort());
    const log = emulator.requestLog;
    // One POST per create, one readme PATCH per repo that has a readme, and no reads but the
    // client's own exactly-once check before creating a root group (root names need not be
    // unique): the uids later steps need come from the create responses.
    const readmes = plan.steps.filter(
      (s) => s.kind === 'repo' && s.action === 'create' && typeof s.after.readme === 'string',
    ).length;
    expect(readmes).toBeGreaterThan(0);
    expect(log.filter((e) => e.method === 'POST')).toHaveLength(plan.steps.length);
    expect(log.filter((e) => e.method === 'PATCH' && e.path.endsWith('/readme'))).toHaveLength(readmes);
    expect(log.filter((e) => e.method === 'GET').map((e) => [e.path, e.query.name])).toEqual([
      ['/iam/v2/groups', 'acme'],
    ]);
    expect(log.every((e) => e.status >= 200 && e.status < 300)).toBe(true);
    expect(result.requests).toBe(log.length);
    expect(emulator.resourceCount()).toBe(desired.resources.length);
    // The org was created first.
    expect(writesIn(log)[0]).toMatchObject({ method: 'POST', path: '/iam/v2/groups', status: 200 });
    const orgDone = events.find((e) => e.type === 'step-done' && e.step.address === 'org');
    expect(orgDone && orgDone.type === 'step-done' && /^[0-9a-f]{40}$/.test(orgDone.uid ?? '')).toBe(true);

    const again = await planManifests(client, [ACME]);
    expect(again.plan.steps).toEqual([]);
    expect(again.live.ambiguities).toEqual([]);
  });

  it('applies updates, a role change and deletes: children before parents, the role as one PATCH', async () => {
    const { plan, live } = await planManifests(client, [CHANGE_SET]);
    const byAddress = new Map(plan.steps.map((s) => [s.address, s]));
    const roleChange = plan.steps.find((s): s is UpdateStep => s.kind === 'roleBinding' && s.action === 'update');
    expect(roleChange?.updateMask).toEqual(['roleUid']);
    expect(byAddress.get('group:engineering/platform/edge')?.action).toBe('delete');
    expect(byAddress.get('role:security/auditor')?.action).toBe('delete');
    expect(byAddress.get('repo:app')).toMatchObject({ action: 'update', updateMask: ['readme'] });
    expect(byAddress.get('repo:engineering/docs')?.action).toBe('create');

    emulator.clearRequestLog();
    const result = await apply(plan, client, { concurrency: 8 });
    expect(result.failed).toEqual([]);
    expect(result.ok).toBe(true);
    const log = emulator.requestLog;
    expect(log.filter((e) => e.status >= 400)).toEqual([]); // no RESOURCE_NOT_EMPTY (400, code 9) or anything else

    // The role change: one PATCH of the binding with updateMask=roleUid, no delete or create of a binding.
    const bindingWrites = writesIn(log).filter((e) => e.path.startsWith('/iam/v2/roleBindings'));
    const rolePatch = bindingWrites.filter((e) => e.method === 'PATCH');
    expect(rolePatch).toHaveLength(1);
    expect(rolePatch[0]).toMatchObject({
      path: `/iam/v2/roleBindings/${roleChange!.uid}`,
      query: { updateMask: 'roleUid' },
    });
    expect(bindingWrites.filter((e) => e.method === 'POST')).toEqual([]);

    // Every delete of a resource came after the deletes of everything inside it.
    const deletedAt = new Map<string, number>();
    for (const e of log)
      if (e.method === 'DELETE')
        deletedAt.set(e.path.slice(e.path.indexOf('/', e.path.indexOf('/v2/') + 4) + 1), e.seq);
    const deletes = plan.steps.filter((s) => s.action === 'delete');
    expect(deletedAt.size).toBe(deletes.length);
    for (const step of deletes) {
      for (const other of deletes) {
        if (other.uid!.startsWith(`${step.uid}/`)) {
          expect(deletedAt.get(other.uid!), `${other.address} deleted before its parent ${step.address}`).toBeLessThan(
            deletedAt.get(step.uid!)!,
          );
        }
      }
    }
    // The auditor role went only after the binding that used it.
    const auditor = live.resources.find((r) => r.address === 'role:security/auditor')!;
    const auditorBinding = deletes.find((s) => s.kind === 'roleBinding' && s.address.endsWith('=auditor'))!;
    expect(deletedAt.get(auditorBinding.uid!)).toBeLessThan(deletedAt.get(auditor.uid)!);

    const again = await planManifests(client, [CHANGE_SET]);
    expect(again.plan.steps).toEqual([]);
  });

  it('counts a delete whose resource is already gone as done, so a re-run converges', async () => {
    // Back to acme (the change set removed the edge group), then a plan for the change set again.
    const { plan } = await planManifests(client, [ACME]);
    expect(plan.steps.some((s) => s.action === 'create' && s.address === 'group:engineering/platform/edge')).toBe(true);
    expect((await apply(plan, client)).ok).toBe(true);
    const back = await planManifests(client, [CHANGE_SET]);
    const doomed = back.plan.steps.find((s): s is DeleteStep => s.action === 'delete' && s.kind === 'repo')!;
    // Someone (or a crashed earlier run) deletes one resource after the plan was made.
    await client.delete(doomed.kind, doomed.uid);
    emulator.clearRequestLog();
    const result = await apply(back.plan, client);
    expect(result.ok).toBe(true);
    expect(result.done).toContain(doomed.address);
    expect(emulator.requestLog.filter((e) => e.method === 'DELETE' && e.status === 404)).toHaveLength(1);
    expect((await planManifests(client, [CHANGE_SET])).plan.steps).toEqual([]);
  });
});
