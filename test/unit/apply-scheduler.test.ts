/**
 * The executor's scheduling rules, against the real client over the emulator's request
 * handler in-process (test/support/in-process-api.ts), so ordering, concurrency and failures
 * are checked step by step against the API's own behaviour. The same over real HTTP is covered
 * by test/integration/apply-*.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ABORTED, apply, TOKEN_REFUSED, type ApplyEvent } from '../../src/apply/index.js';
import type { ApiClient } from '../../src/api/types.js';
import { builtinRoleUid } from '../../src/emulator/builtin-roles.js';
import type { Kind } from '../../src/model/kinds.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanStep } from '../../src/model/plan.js';
import {
  createInProcessApi,
  invalidArgumentReply,
  permissionDeniedReply,
  type InProcessApi,
  type InProcessApiOptions,
} from '../support/in-process-api.js';
import { getReadme } from '../support/readme.js';

const opened: InProcessApi[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((api) => api.close()));
});

function openApi(options: InProcessApiOptions = {}): InProcessApi {
  const api = createInProcessApi(options);
  opened.push(api);
  return api;
}

/** The client with a count of the writes in flight at once (what the executor's bound limits). */
function countingWrites(client: ApiClient): { client: ApiClient; maxInFlight: () => number } {
  let inFlight = 0;
  let max = 0;
  const counted =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      inFlight++;
      max = Math.max(max, inFlight);
      try {
        return await call(...args);
      } finally {
        inFlight--;
      }
    };
  const wrapped: ApiClient = Object.create(client) as ApiClient;
  Object.assign(wrapped, {
    create: counted(client.create.bind(client)),
    update: counted(client.update.bind(client)),
    delete: counted(client.delete.bind(client)),
    writeSubResource: counted(client.writeSubResource.bind(client)),
  });
  return { client: wrapped, maxInFlight: () => max };
}

/** The uid of the resource of `kind` named `name` (the first, by the API's order). */
async function uidOf(api: InProcessApi, kind: Kind, name: string): Promise<string | undefined> {
  return (await api.client.list(kind, { name })).items[0]?.uid;
}

const writes = (api: InProcessApi) => api.log.filter((e) => e.method !== 'GET');

const planOf = (steps: PlanStep[]): Plan => ({
  formatVersion: PLAN_FORMAT_VERSION,
  org: { name: 'acme' },
  summary: {
    create: steps.filter((s) => s.action === 'create').length,
    update: steps.filter((s) => s.action === 'update').length,
    delete: steps.filter((s) => s.action === 'delete').length,
  },
  steps,
  warnings: [],
  refusals: [],
  fingerprints: [],
});

/** A bootstrap: org, two groups each with repos (one with a readme) and tags, an identity bound to a custom role. */
function bootstrapSteps(): PlanStep[] {
  const steps: PlanStep[] = [
    { action: 'create', kind: 'group', address: 'org', parent: null, after: { name: 'acme', description: 'Acme' } },
    {
      action: 'create',
      kind: 'identity',
      address: 'identity:bot',
      parent: 'org',
      after: { name: 'bot' },
      dependsOn: ['org'],
    },
    {
      action: 'create',
      kind: 'role',
      address: 'role:deployer',
      parent: 'org',
      after: { name: 'deployer', capabilities: ['repo.list'] },
      dependsOn: ['org'],
    },
    {
      action: 'create',
      kind: 'roleBinding',
      address: 'roleBinding:bot=deployer',
      parent: 'org',
      after: { identity: 'bot', role: 'deployer' },
      refs: { identityUid: { address: 'identity:bot' }, roleUid: { address: 'role:deployer' } },
      dependsOn: ['org', 'identity:bot', 'role:deployer'],
    },
  ];
  for (const g of ['eng', 'ops']) {
    steps.push({
      action: 'create',
      kind: 'group',
      address: `group:${g}`,
      parent: 'org',
      after: { name: g },
      dependsOn: ['org'],
    });
    for (const r of ['r1', 'r2', 'r3']) {
      steps.push({
        action: 'create',
        kind: 'repo',
        address: `repo:${g}/${r}`,
        parent: `group:${g}`,
        after: { name: r, description: '', ...(r === 'r1' ? { readme: `# ${g} ${r}` } : {}) },
        dependsOn: [`group:${g}`],
      });
      steps.push({
        action: 'create',
        kind: 'tag',
        address: `tag:${g}/${r}:v1`,
        parent: `repo:${g}/${r}`,
        after: { name: 'v1', digest: `sha256:${'0'.repeat(64)}`, deprecated: false },
        dependsOn: [`repo:${g}/${r}`],
      });
    }
  }
  return steps;
}

/** Asserts that no step started before every step it depends on was done. */
function expectDependenciesRespected(events: ApplyEvent[], steps: PlanStep[]): void {
  const doneAt = new Map<string, number>();
  events.forEach((e, i) => e.type === 'step-done' && doneAt.set(e.step.address, i));
  events.forEach((e, i) => {
    if (e.type !== 'step-start') return;
    for (const dep of e.step.dependsOn ?? []) {
      if (!steps.some((s) => s.address === dep)) continue;
      expect(doneAt.get(dep), `${e.step.address} started before ${dep} was done`).toBeLessThan(i);
    }
  });
}

describe('apply (scheduler)', () => {
  it('bootstraps a tree, filling uids from create responses, within the concurrency bound', async () => {
    const api = openApi();
    const counting = countingWrites(api.client);
    const steps = bootstrapSteps();
    const events: ApplyEvent[] = [];
    const result = await apply(planOf(steps), counting.client, { concurrency: 4, onEvent: (e) => events.push(e) });

    expect(result.ok).toBe(true);
    expect(result.done).toHaveLength(steps.length);
    expect(result.failed).toEqual([]);
    expect(result.skipped).toEqual([]);
    // One create per step and 2 readme PATCHes, each sent once; the one read is the client's
    // exactly-once check before creating a root group (root names need not be unique).
    expect(writes(api)).toHaveLength(steps.length + 2);
    expect(api.log.filter((e) => e.method === 'GET').map((e) => `${e.path}?name=${e.query.name}`)).toEqual([
      '/iam/v2/groups?name=acme',
    ]);
    expect(result.requests).toBe(api.log.length);
    expect(counting.maxInFlight()).toBe(4);
    expectDependenciesRespected(events, steps);
    expect(events[0]).toEqual({ type: 'start', total: steps.length });
    expect(events.at(-1)).toMatchObject({ type: 'end', result });

    const org = (await uidOf(api, 'group', 'acme'))!;
    const bindings = (await api.client.list('roleBinding', { descendantsOf: org })).items;
    expect(bindings).toHaveLength(1);
    expect(bindings[0]!.uid.startsWith(`${org}/`)).toBe(true);
    expect(bindings[0]).toMatchObject({
      identity: { uid: await uidOf(api, 'identity', 'bot') },
      role: { uid: await uidOf(api, 'role', 'deployer') },
    });
    // Only API create fields are sent: no readme, no display-only identity/role text, no deprecated.
    const r1Posts = writes(api).filter(
      (e) =>
        e.method === 'POST' && e.path.startsWith('/registry/v2/repos/') && (e.body as { name?: string }).name === 'r1',
    );
    expect(r1Posts.map((e) => e.body)).toEqual([
      { name: 'r1', description: '' },
      { name: 'r1', description: '' },
    ]);
    const tagPosts = writes(api).filter((e) => e.path.startsWith('/registry/v2/tags/'));
    expect(tagPosts.map((e) => Object.keys(e.body as object).sort())).toEqual(Array(6).fill(['digest', 'name']));
    const eng = (await uidOf(api, 'group', 'eng'))!;
    const engR1 = (await api.client.list('repo', { childrenOf: eng, name: 'r1' })).items[0]!;
    expect(await getReadme(api.client, engR1.uid)).toBe('# eng r1');
    const doneUids = events.flatMap((e) =>
      e.type === 'step-done' && e.step.address === 'identity:bot' ? [e.uid] : [],
    );
    expect(doneUids).toEqual([await uidOf(api, 'identity', 'bot')]);
  });

  it('runs strictly in plan order at concurrency 1', async () => {
    const api = openApi();
    const counting = countingWrites(api.client);
    const steps = bootstrapSteps();
    const result = await apply(planOf(steps), counting.client, { concurrency: 1 });
    expect(counting.maxInFlight()).toBe(1);
    expect(result.done).toEqual(steps.map((s) => s.address));
  });

  it('on a failure skips exactly the transitive dependents and finishes everything else', async () => {
    // The API refuses to create group "eng" (a failure of that step alone).
    const api = openApi({
      intercept: (req) =>
        req.method === 'POST' &&
        req.path.startsWith('/iam/v2/groups/') &&
        (req.body as { name?: string })?.name === 'eng'
          ? invalidArgumentReply('name', 'is reserved here')
          : undefined,
    });
    const steps = bootstrapSteps();
    steps.push({
      action: 'create',
      kind: 'subscription',
      address: 'subscription:https://hooks.acme.dev/x',
      parent: 'org',
      after: { sink: 'https://hooks.acme.dev/x' },
      dependsOn: ['org', 'repo:eng/r2'],
    });
    const events: ApplyEvent[] = [];
    const result = await apply(planOf(steps), api.client, { onEvent: (e) => events.push(e) });

    expect(result.ok).toBe(false);
    expect(result.failed).toEqual([
      {
        address: 'group:eng',
        error: expect.stringMatching(/INVALID_ARGUMENT \(3\).*is reserved here/),
        code: 'API_INVALID_ARGUMENT',
      },
    ]);
    const engSteps = steps.filter((s) => s.address.includes(':eng/')).map((s) => s.address);
    expect(result.skipped.map((s) => s.address).sort()).toEqual(
      [...engSteps, 'subscription:https://hooks.acme.dev/x'].sort(),
    );
    expect(result.skipped.every((s) => s.because === 'group:eng')).toBe(true);
    expect(result.done).toHaveLength(steps.length - 1 - result.skipped.length);
    expect(result.done).toContain('tag:ops/r3:v1');
    // Every step has exactly one outcome event.
    const outcomes = events.filter(
      (e) => e.type === 'step-done' || e.type === 'step-failed' || e.type === 'step-skipped',
    );
    expect(outcomes.map((e) => (e as { step: PlanStep }).step.address).sort()).toEqual(
      steps.map((s) => s.address).sort(),
    );
    expect(await uidOf(api, 'group', 'eng')).toBeUndefined();
  });

  it('after the API refuses the token, sends no further write: the rest is skipped as not sent', async () => {
    const api = openApi({
      intercept: (req) =>
        req.method === 'POST' &&
        req.path.startsWith('/iam/v2/groups/') &&
        (req.body as { name?: string })?.name === 'eng'
          ? permissionDeniedReply('the token may not create here')
          : undefined,
    });
    const steps = bootstrapSteps();
    const result = await apply(planOf(steps), api.client, { concurrency: 1 });
    expect(result.failed.map((f) => f.code)).toEqual(['API_PERMISSION_DENIED']);
    const failedAt = steps.findIndex((s) => s.address === 'group:eng');
    // Everything before it in plan order ran; nothing after it was sent, dependents or not.
    expect(result.done).toEqual(steps.slice(0, failedAt).map((s) => s.address));
    expect(result.skipped).toHaveLength(steps.length - failedAt - 1);
    expect(result.skipped.filter((s) => s.because === TOKEN_REFUSED).length).toBeGreaterThan(0);
    expect(result.skipped.every((s) => s.because === TOKEN_REFUSED || s.because === 'group:eng')).toBe(true);
  });

  it('sends updates as PATCH of exactly the mask, with the readme through its own PATCH', async () => {
    const api = openApi({
      seed: {
        orgs: [
          {
            name: 'acme',
            identities: [{ name: 'bot' }],
            repos: [
              { name: 'nginx', description: 'old' },
              { name: 'redis', description: 'old', readme: 'old' },
            ],
            roleBindings: [{ identity: 'bot', role: 'viewer' }],
          },
        ],
      },
    });
    const uid = (key: string): string => api.seeded.uids[key]!;
    const org = api.seeded.orgUids.acme!;
    const [nginx, redis, binding] = [
      uid('repo:acme/nginx'),
      uid('repo:acme/redis'),
      uid('roleBinding:acme/acme/bot=viewer'),
    ];
    const steps: PlanStep[] = [
      {
        action: 'update',
        kind: 'repo',
        address: 'repo:nginx',
        uid: nginx,
        parent: 'org',
        parentUid: org,
        before: { readme: '' },
        after: { readme: '# nginx' },
        updateMask: ['readme'],
      },
      {
        action: 'update',
        kind: 'repo',
        address: 'repo:redis',
        uid: redis,
        parent: 'org',
        parentUid: org,
        before: { description: 'old', readme: 'old' },
        after: { description: 'new', readme: '' },
        updateMask: ['description', 'readme'],
      },
      {
        action: 'update',
        kind: 'roleBinding',
        address: 'roleBinding:bot=editor',
        uid: binding,
        parent: 'org',
        parentUid: org,
        before: { roleUid: builtinRoleUid('viewer') },
        after: { role: 'editor' },
        updateMask: ['roleUid'],
        refs: { roleUid: { address: 'role:editor', uid: builtinRoleUid('editor') } },
      },
    ];
    const result = await apply(planOf(steps), api.client);
    expect(result.failed).toEqual([]);
    const sent = writes(api).map(
      (e) =>
        `${e.method} ${e.path}${e.query.updateMask ? `?updateMask=${e.query.updateMask}` : ''} ${JSON.stringify(e.body)}`,
    );
    expect(sent.sort()).toEqual(
      [
        `PATCH /registry/v2/repos/${nginx}/readme?updateMask=content {"content":"# nginx"}`,
        `PATCH /registry/v2/repos/${redis}?updateMask=description {"description":"new"}`,
        `PATCH /registry/v2/repos/${redis}/readme?updateMask=content {"content":""}`,
        `PATCH /iam/v2/roleBindings/${binding}?updateMask=roleUid {"roleUid":"${builtinRoleUid('editor')}"}`,
      ].sort(),
    );
    expect(await getReadme(api.client, nginx)).toBe('# nginx');
    expect(await api.client.get('roleBinding', binding)).toMatchObject({ role: { uid: builtinRoleUid('editor') } });
  });

  it('deletes children before parents and counts an already-deleted resource as done', async () => {
    const digest = `sha256:${'1'.repeat(64)}`;
    const api = openApi({
      seed: {
        orgs: [{ name: 'acme', groups: [{ name: 'old', repos: [{ name: 'r', tags: [{ name: 't', digest }] }] }] }],
      },
    });
    const uid = (key: string): string => api.seeded.uids[key]!;
    const org = api.seeded.orgUids.acme!;
    const [group, repo, tag] = [uid('group:acme/old'), uid('repo:acme/old/r'), uid('tag:acme/old/r:t')];
    const steps: PlanStep[] = [
      // Parent first in the plan: the executor waits for the children its dependsOn names.
      { action: 'delete', kind: 'group', address: 'group:old', uid: group, parent: 'org', dependsOn: ['repo:old/r'] },
      {
        action: 'delete',
        kind: 'repo',
        address: 'repo:old/r',
        uid: repo,
        parent: 'group:old',
        dependsOn: ['tag:old/r:t'],
      },
      { action: 'delete', kind: 'tag', address: 'tag:old/r:t', uid: tag, parent: 'repo:old/r' },
      { action: 'delete', kind: 'identity', address: 'identity:gone', uid: `${org}/0000000000000404`, parent: 'org' },
    ];
    const result = await apply(planOf(steps), api.client, { concurrency: 8 });
    expect(result.failed).toEqual([]);
    expect(result.ok).toBe(true);
    const deletes = writes(api).map((e) => e.path);
    expect(deletes.indexOf(`/registry/v2/tags/${tag}`)).toBeLessThan(deletes.indexOf(`/registry/v2/repos/${repo}`));
    expect(deletes.indexOf(`/registry/v2/repos/${repo}`)).toBeLessThan(deletes.indexOf(`/iam/v2/groups/${group}`));
    expect((await api.client.list('group', { descendantsOf: org })).items).toEqual([]);
    expect((await api.client.list('repo', { descendantsOf: org })).items).toEqual([]);
  });

  it('fails a step whose parent uid cannot be known, naming it, and sends nothing for it', async () => {
    const api = openApi();
    const result = await apply(
      planOf([{ action: 'create', kind: 'repo', address: 'repo:x/r', parent: 'group:x', after: { name: 'r' } }]),
      api.client,
    );
    expect(result.failed).toEqual([
      {
        address: 'repo:x/r',
        error:
          'repo:x/r: the uid of its parent group:x is unknown (the parent neither exists nor was created by this apply)',
        code: 'APPLY_UNRESOLVED_UID',
      },
    ]);
    expect(api.log).toEqual([]);
  });

  it('refuses an unrunnable plan before sending anything', async () => {
    const api = openApi();
    const steps = bootstrapSteps();
    steps[0]!.dependsOn = ['tag:ops/r3:v1'];
    await expect(apply(planOf(steps), api.client)).rejects.toThrow(/cycle/);
    await expect(apply(planOf(steps), api.client, { concurrency: 0 })).rejects.toThrow(
      /concurrency must be a positive integer/,
    );
    expect(api.log).toEqual([]);
  });

  it('when aborted lets running steps finish, starts nothing new and skips the rest', async () => {
    const api = openApi();
    const steps = bootstrapSteps();
    const controller = new AbortController();
    const result = await apply(planOf(steps), api.client, {
      concurrency: 2,
      signal: controller.signal,
      onEvent: (e) => e.type === 'step-done' && e.step.address === 'org' && controller.abort(),
    });
    expect(result.done).toEqual(['org']);
    expect(result.failed).toEqual([]);
    expect(result.skipped).toHaveLength(steps.length - 1);
    expect(result.skipped.every((s) => s.because === ABORTED)).toBe(true);
    expect(result.ok).toBe(false);
    expect(writes(api)).toHaveLength(1);
  });

  it('finishes an empty plan at once', async () => {
    const api = openApi();
    const events: ApplyEvent[] = [];
    const result = await apply(planOf([]), api.client, { onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ done: [], failed: [], skipped: [], ok: true, requests: 0 });
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
    expect(api.log).toEqual([]);
  });
});
