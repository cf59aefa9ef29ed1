/**
 * The executor's scheduling rules, against a small but real in-memory implementation of the
 * ApiClient contract (a store with parents, uids, not-empty checks and permission errors), so
 * ordering and concurrency can be checked step by step without timers. The same behaviour over
 * HTTP against the emulator is covered by test/integration/apply-*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ABORTED, apply, type ApplyEvent } from '../../src/apply/index.js';
import { ApiError, GRPC_CODES } from '../../src/api/errors.js';
import type { ApiClient, ApiObject, ListResult } from '../../src/api/types.js';
import { KIND_INFO, type ApiKind, type Kind } from '../../src/model/kinds.js';
import { PLAN_FORMAT_VERSION, type Plan, type PlanStep } from '../../src/model/plan.js';

interface Stored {
  kind: Kind;
  uid: string;
  parentUid: string | null;
  fields: Record<string, unknown>;
}

/** In-memory Platform API: every call takes a few event-loop turns, so calls overlap. */
class MemoryApi implements ApiClient {
  readonly baseUrl = 'memory:';
  requestCount = 0;
  readonly store = new Map<string, Stored>();
  readonly log: string[] = [];
  readonly readmes = new Map<string, string>();
  inFlight = 0;
  maxInFlight = 0;
  private next = 0;
  /** Names whose create is refused with PERMISSION_DENIED. */
  readonly deniedNames = new Set<string>();

  private async request<T>(line: string, body: () => T): Promise<T> {
    this.requestCount++;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      this.log.push(line);
      return body();
    } finally {
      this.inFlight--;
    }
  }
  private fail(method: string, path: string, name: keyof typeof GRPC_CODES, reason: string): never {
    const { code, http } = GRPC_CODES[name];
    throw new ApiError({ method, path, status: http, grpcCode: code, reason });
  }

  create<T extends ApiObject = ApiObject>(kind: Kind, parentUid: string | null, body: Record<string, unknown>): Promise<T> {
    const path = `${KIND_INFO[kind].collection}${parentUid ? `/${parentUid}` : ''}`;
    return this.request(`POST ${path} ${JSON.stringify(body)}`, () => {
      if (parentUid !== null && !this.store.has(parentUid)) this.fail('POST', path, 'NOT_FOUND', `parent ${parentUid} not found`);
      if (typeof body.name === 'string' && this.deniedNames.has(body.name)) {
        this.fail('POST', path, 'PERMISSION_DENIED', 'the token may not create here');
      }
      const uid = parentUid === null ? 'a'.repeat(40) : `${parentUid}/${(++this.next).toString(16).padStart(16, '0')}`;
      this.store.set(uid, { kind, uid, parentUid, fields: { ...body } });
      return { uid, ...body } as T;
    });
  }
  update<T extends ApiObject = ApiObject>(kind: Kind, uid: string, body: Record<string, unknown>, updateMask: string[]): Promise<T> {
    const path = `${KIND_INFO[kind].collection}/${uid}?updateMask=${updateMask.join(',')}`;
    return this.request(`PATCH ${path} ${JSON.stringify(body)}`, () => {
      const r = this.store.get(uid) ?? this.fail('PATCH', path, 'NOT_FOUND', `${uid} not found`);
      for (const f of updateMask) r.fields[f] = body[f];
      return { uid, ...r.fields } as T;
    });
  }
  delete(kind: Kind, uid: string, options?: { ignoreMissing?: boolean }): Promise<void> {
    const path = `${KIND_INFO[kind].collection}/${uid}`;
    return this.request(`DELETE ${path}`, () => {
      if (!this.store.has(uid)) {
        if (options?.ignoreMissing) return;
        this.fail('DELETE', path, 'NOT_FOUND', `${uid} not found`);
      }
      if ([...this.store.values()].some((r) => r.parentUid === uid)) {
        this.fail('DELETE', path, 'FAILED_PRECONDITION', 'RESOURCE_NOT_EMPTY');
      }
      this.store.delete(uid);
    });
  }
  updateReadme(repoUid: string, content: string): Promise<void> {
    return this.request(`PATCH /registry/v2/repos/${repoUid}/readme`, () => {
      if (!this.store.has(repoUid)) this.fail('PATCH', `/registry/v2/repos/${repoUid}/readme`, 'NOT_FOUND', 'no repo');
      this.readmes.set(repoUid, content);
    });
  }
  async getReadme(repoUid: string): Promise<string> {
    return this.readmes.get(repoUid) ?? '';
  }
  async get<T extends ApiObject = ApiObject>(_kind: ApiKind, uid: string): Promise<T> {
    const r = this.store.get(uid) ?? this.fail('GET', uid, 'NOT_FOUND', 'not found');
    return { uid, ...r.fields } as T;
  }
  async list<T extends ApiObject = ApiObject>(kind: ApiKind): Promise<ListResult<T>> {
    const items = [...this.store.values()].filter((r) => r.kind === kind).map((r) => ({ uid: r.uid, ...r.fields }) as T);
    return { items, consistent: true, requests: 1 };
  }
  async *paginate<T extends ApiObject = ApiObject>(kind: ApiKind): AsyncIterable<T> {
    yield* (await this.list<T>(kind)).items;
  }
  async ping(): Promise<boolean> {
    return true;
  }
  async close(): Promise<void> {}

  seed(kind: Kind, uid: string, parentUid: string | null, fields: Record<string, unknown>): void {
    this.store.set(uid, { kind, uid, parentUid, fields });
  }
  uidOf(kind: Kind, name: string): string | undefined {
    return [...this.store.values()].find((r) => r.kind === kind && r.fields.name === name)?.uid;
  }
}

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
    { action: 'create', kind: 'identity', address: 'identity:bot', parent: 'org', after: { name: 'bot' }, dependsOn: ['org'] },
    { action: 'create', kind: 'role', address: 'role:deployer', parent: 'org', after: { name: 'deployer', capabilities: ['repo.list'] }, dependsOn: ['org'] },
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
    steps.push({ action: 'create', kind: 'group', address: `group:${g}`, parent: 'org', after: { name: g }, dependsOn: ['org'] });
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
    const api = new MemoryApi();
    const steps = bootstrapSteps();
    const events: ApplyEvent[] = [];
    const result = await apply(planOf(steps), api, { concurrency: 4, onEvent: (e) => events.push(e) });

    expect(result.ok).toBe(true);
    expect(result.done).toHaveLength(steps.length);
    expect(result.failed).toEqual([]);
    expect(result.skipped).toEqual([]);
    // 16 creates + 2 readme PATCHes, each sent once.
    expect(result.requests).toBe(steps.length + 2);
    expect(api.maxInFlight).toBe(4);
    expectDependenciesRespected(events, steps);
    expect(events[0]).toEqual({ type: 'start', total: steps.length });
    expect(events.at(-1)).toMatchObject({ type: 'end', result });

    const org = api.uidOf('group', 'acme')!;
    const binding = [...api.store.values()].find((r) => r.kind === 'roleBinding')!;
    expect(binding.parentUid).toBe(org);
    expect(binding.fields).toEqual({ identityUid: api.uidOf('identity', 'bot'), roleUid: api.uidOf('role', 'deployer') });
    // Only API create fields are sent: no readme, no display-only identity/role text, no deprecated.
    expect(api.log.find((l) => l.startsWith('POST /registry/v2/repos/') && l.includes('"r1"'))).toMatch(/\{"name":"r1","description":""\}$/);
    expect(api.log.filter((l) => l.startsWith('POST /registry/v2/tags/')).every((l) => !l.includes('deprecated'))).toBe(true);
    const eng = api.uidOf('group', 'eng')!;
    const engR1 = [...api.store.values()].find((r) => r.kind === 'repo' && r.parentUid === eng && r.fields.name === 'r1')!;
    expect(api.readmes.get(engR1.uid)).toBe('# eng r1');
    const doneUids = events.flatMap((e) => (e.type === 'step-done' && e.step.address === 'identity:bot' ? [e.uid] : []));
    expect(doneUids).toEqual([api.uidOf('identity', 'bot')]);
  });

  it('runs strictly in plan order at concurrency 1', async () => {
    const api = new MemoryApi();
    const steps = bootstrapSteps();
    const result = await apply(planOf(steps), api, { concurrency: 1 });
    expect(api.maxInFlight).toBe(1);
    expect(result.done).toEqual(steps.map((s) => s.address));
  });

  it('on a failure skips exactly the transitive dependents and finishes everything else', async () => {
    const api = new MemoryApi();
    api.deniedNames.add('eng');
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
    const result = await apply(planOf(steps), api, { onEvent: (e) => events.push(e) });

    expect(result.ok).toBe(false);
    expect(result.failed).toEqual([
      { address: 'group:eng', error: expect.stringMatching(/PERMISSION_DENIED \(7\): the token may not create here/), code: 'API_PERMISSION_DENIED' },
    ]);
    const engSteps = steps.filter((s) => s.address.includes(':eng/')).map((s) => s.address);
    expect(result.skipped.map((s) => s.address).sort()).toEqual([...engSteps, 'subscription:https://hooks.acme.dev/x'].sort());
    expect(result.skipped.every((s) => s.because === 'group:eng')).toBe(true);
    expect(result.done).toHaveLength(steps.length - 1 - result.skipped.length);
    expect(result.done).toContain('tag:ops/r3:v1');
    // Every step has exactly one outcome event.
    const outcomes = events.filter((e) => e.type === 'step-done' || e.type === 'step-failed' || e.type === 'step-skipped');
    expect(outcomes.map((e) => (e as { step: PlanStep }).step.address).sort()).toEqual(steps.map((s) => s.address).sort());
    expect(api.uidOf('group', 'eng')).toBeUndefined();
  });

  it('sends updates as PATCH of exactly the mask, with the readme through its own PATCH', async () => {
    const api = new MemoryApi();
    const org = 'b'.repeat(40);
    api.seed('group', org, null, { name: 'acme' });
    api.seed('repo', `${org}/1`, org, { name: 'nginx', description: 'old' });
    api.seed('repo', `${org}/2`, org, { name: 'redis', description: 'old' });
    api.seed('identity', `${org}/3`, org, { name: 'bot' });
    api.seed('roleBinding', `${org}/4`, org, { identityUid: `${org}/3`, roleUid: 'viewer-uid' });
    const steps: PlanStep[] = [
      { action: 'update', kind: 'repo', address: 'repo:nginx', uid: `${org}/1`, parent: 'org', parentUid: org, before: { readme: '' }, after: { readme: '# nginx' }, updateMask: ['readme'] },
      { action: 'update', kind: 'repo', address: 'repo:redis', uid: `${org}/2`, parent: 'org', parentUid: org, before: { description: 'old', readme: 'old' }, after: { description: 'new', readme: '' }, updateMask: ['description', 'readme'] },
      {
        action: 'update',
        kind: 'roleBinding',
        address: 'roleBinding:bot=editor',
        uid: `${org}/4`,
        parent: 'org',
        parentUid: org,
        before: { roleUid: 'viewer-uid' },
        after: { role: 'editor' },
        updateMask: ['roleUid'],
        refs: { roleUid: { address: 'role:editor', uid: 'editor-uid' } },
      },
    ];
    const result = await apply(planOf(steps), api);
    expect(result.ok).toBe(true);
    expect(api.log.sort()).toEqual(
      [
        `PATCH /registry/v2/repos/${org}/1/readme`,
        `PATCH /registry/v2/repos/${org}/2?updateMask=description {"description":"new"}`,
        `PATCH /registry/v2/repos/${org}/2/readme`,
        `PATCH /iam/v2/roleBindings/${org}/4?updateMask=roleUid {"roleUid":"editor-uid"}`,
      ].sort(),
    );
    expect(api.readmes.get(`${org}/1`)).toBe('# nginx');
    expect(api.store.get(`${org}/4`)!.fields.roleUid).toBe('editor-uid');
  });

  it('deletes children before parents and counts an already-deleted resource as done', async () => {
    const api = new MemoryApi();
    const org = 'c'.repeat(40);
    api.seed('group', org, null, { name: 'acme' });
    api.seed('group', `${org}/g`, org, { name: 'old' });
    api.seed('repo', `${org}/g/r`, `${org}/g`, { name: 'r' });
    api.seed('tag', `${org}/g/r/t`, `${org}/g/r`, { name: 't' });
    const steps: PlanStep[] = [
      // Parent first in the plan: the executor waits for the children its dependsOn names.
      { action: 'delete', kind: 'group', address: 'group:old', uid: `${org}/g`, parent: 'org', dependsOn: ['repo:old/r'] },
      { action: 'delete', kind: 'repo', address: 'repo:old/r', uid: `${org}/g/r`, parent: 'group:old', dependsOn: ['tag:old/r:t'] },
      { action: 'delete', kind: 'tag', address: 'tag:old/r:t', uid: `${org}/g/r/t`, parent: 'repo:old/r' },
      { action: 'delete', kind: 'identity', address: 'identity:gone', uid: `${org}/404`, parent: 'org' },
    ];
    const result = await apply(planOf(steps), api, { concurrency: 8 });
    expect(result.failed).toEqual([]);
    expect(result.ok).toBe(true);
    const deletes = api.log.filter((l) => l.startsWith('DELETE'));
    expect(deletes.indexOf(`DELETE /registry/v2/tags/${org}/g/r/t`)).toBeLessThan(deletes.indexOf(`DELETE /registry/v2/repos/${org}/g/r`));
    expect(deletes.indexOf(`DELETE /registry/v2/repos/${org}/g/r`)).toBeLessThan(deletes.indexOf(`DELETE /iam/v2/groups/${org}/g`));
    expect([...api.store.keys()]).toEqual([org]);
  });

  it('fails a step whose parent uid cannot be known, naming it, and sends nothing for it', async () => {
    const api = new MemoryApi();
    const result = await apply(planOf([{ action: 'create', kind: 'repo', address: 'repo:x/r', parent: 'group:x', after: { name: 'r' } }]), api);
    expect(result.failed).toEqual([
      {
        address: 'repo:x/r',
        error: 'repo:x/r: the uid of its parent group:x is unknown (the parent neither exists nor was created by this apply)',
        code: 'APPLY_UNRESOLVED_UID',
      },
    ]);
    expect(api.requestCount).toBe(0);
  });

  it('refuses an unrunnable plan before sending anything', async () => {
    const api = new MemoryApi();
    const steps = bootstrapSteps();
    steps[0]!.dependsOn = ['tag:ops/r3:v1'];
    await expect(apply(planOf(steps), api)).rejects.toThrow(/cycle/);
    await expect(apply(planOf(steps), api, { concurrency: 0 })).rejects.toThrow(/concurrency must be a positive integer/);
    expect(api.requestCount).toBe(0);
  });

  it('when aborted lets running steps finish, starts nothing new and skips the rest', async () => {
    const api = new MemoryApi();
    const steps = bootstrapSteps();
    const controller = new AbortController();
    const result = await apply(planOf(steps), api, {
      concurrency: 2,
      signal: controller.signal,
      onEvent: (e) => e.type === 'step-done' && e.step.address === 'org' && controller.abort(),
    });
    expect(result.done).toEqual(['org']);
    expect(result.failed).toEqual([]);
    expect(result.skipped).toHaveLength(steps.length - 1);
    expect(result.skipped.every((s) => s.because === ABORTED)).toBe(true);
    expect(result.ok).toBe(false);
    expect(api.requestCount).toBe(1);
  });

  it('finishes an empty plan at once', async () => {
    const events: ApplyEvent[] = [];
    const result = await apply(planOf([]), new MemoryApi(), { onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ done: [], failed: [], skipped: [], ok: true, requests: 0 });
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
  });
});
