/**
 * Generated planner test: for many seeded random pairs of (desired, live), run the plan's steps
 * in order against a small pure simulation of the API and check that
 * - every step starts after the steps it depends on, and the server accepts each one (no
 *   create under a missing parent, no delete of a group/repo/identity/role still in use);
 * - the result holds every desired resource with its managed fields;
 * - nothing else is left (everything is pruned in the first property);
 * - planning again against the result gives no steps.
 */
import { describe, expect, it } from 'vitest';
import { joinPath, ORG_ADDRESS } from '../../src/model/address.js';
import type { IdentityKey, RoleKey } from '../../src/model/address.js';
import { UnsafePlanError } from '../../src/model/errors.js';
import { createSeededRandom } from '../../src/emulator/prng.js';
import type { Kind } from '../../src/model/kinds.js';
import type { Plan, PlanStep } from '../../src/model/plan.js';
import type { DesiredState, LiveResource, LiveState, Settings } from '../../src/model/resources.js';
import { diffManagedFields } from '../../src/plan/fields.js';
import { assertSafe, plan } from '../../src/plan/index.js';
import { buildStepGraph } from '../../src/apply/graph.js';
import { normaliseBinding, buildReferenceLookup } from '../../src/plan/references.js';
import { BUILTIN_ROLES, desiredState, ORG_UID, r, type Shape } from './plan-builders.js';

const createRng = createSeededRandom;

type Rng = () => number;
const chance = (rng: Rng, p: number) => rng() < p;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

const CAPS = ['repo.list', 'tag.create', 'identity.list', 'groups.list'];
const OUTSIDER = `${'c'.repeat(40)}/00000000000000ff`;

/**
 * A random org as shapes, parents before children. Names come from small pools so that two
 * draws overlap (matched resources) and differ (creates, deletes, updates).
 */
function generateShapes(rng: Rng, side: 'desired' | 'live'): Shape[] {
  const text = (pool: readonly (string | undefined)[]) => {
    const v = pick(rng, pool);
    return side === 'live' ? (v ?? '') : v;
  };
  const groups: string[] = [''];
  const expand = (path: string, depth: number) => {
    if (depth >= 3) return;
    for (const name of ['a', 'b']) {
      if (!chance(rng, 0.55)) continue;
      const child = joinPath(path, name);
      groups.push(child);
      expand(child, depth + 1);
    }
  };
  expand('', 0);
  const shapes: Shape[] = [r.org({ description: text(['', 'Acme', undefined]) })];
  for (const g of groups.slice(1)) shapes.push(r.group(g, { description: text(['', 'team', 'Team', undefined]) }));
  const identities: string[] = [];
  const roles: string[] = [];
  for (const g of groups) {
    for (const name of ['i1', 'i2', 'i3']) {
      if (!chance(rng, 0.45)) continue;
      identities.push(joinPath(g, name));
      const claim = pick(rng, [undefined, { issuer: 'https://iss', subject: 's1' }, { issuer: 'https://iss', subject: 's2' }]);
      const fields: { description?: string; claimMatch?: { issuer: string; subject: string } } = {};
      const description = text(['', 'bot', undefined]);
      if (description !== undefined) fields.description = description;
      if (claim || side === 'live') fields.claimMatch = claim ?? { issuer: 'https://iss', subject: 's1' };
      shapes.push(r.identity(g, name, fields));
    }
    for (const name of ['r1', 'r2']) {
      if (!chance(rng, 0.35)) continue;
      roles.push(joinPath(g, name));
      const caps = CAPS.filter(() => chance(rng, 0.5));
      if (caps.length === 0) caps.push('repo.list');
      if (chance(rng, 0.5)) caps.reverse();
      shapes.push(r.role(g, name, side === 'desired' && chance(rng, 0.2) ? {} : { capabilities: caps, description: text(['', 'x']) ?? '' }));
    }
  }
  const repos: [string, string][] = [];
  for (const g of groups) {
    for (const name of ['x', 'y']) {
      if (!chance(rng, 0.45)) continue;
      repos.push([g, name]);
      const fields: { description?: string; readme?: string } = {};
      const description = text(['', 'repo', undefined]);
      if (description !== undefined) fields.description = description;
      const readme = pick(rng, [undefined, '', '# x\n', '# x\nmore\n']);
      if (readme !== undefined || side === 'live') fields.readme = readme ?? '';
      shapes.push(r.repo(g, name, fields));
    }
    for (const sink of ['https://h.example/1', 'https://h.example/2']) if (chance(rng, 0.25)) shapes.push(r.subscription(g, sink));
  }
  // Live repos carry tags pushed by CI; manifests declare tags for a repo only now and then.
  for (const [g, repo] of repos) {
    if (side === 'desired' && !chance(rng, 0.25)) continue;
    for (const tag of ['1.0', '2.0']) if (chance(rng, 0.5)) shapes.push(r.tag(g, repo, tag, `sha256:${tag}`));
  }
  const seen = new Set<string>();
  for (const g of groups) {
    for (let n = Math.floor(rng() * 3); n > 0; n--) {
      const identity: IdentityKey | undefined = chance(rng, 0.15) ? { uid: OUTSIDER } : identities.length ? { path: pick(rng, identities) } : undefined;
      if (!identity) continue;
      const role: RoleKey = roles.length && chance(rng, 0.4) ? { path: pick(rng, roles) } : { builtin: pick(rng, Object.keys(BUILTIN_ROLES)) };
      const binding = r.binding(g, identity, role);
      if (seen.has(binding.address)) continue;
      seen.add(binding.address);
      shapes.push(binding);
    }
  }
  return shapes;
}

/** One resource as the simulated API stores it: API field names, references by uid. */
interface ServerRecord {
  kind: Kind;
  uid: string;
  parentUid: string | null;
  body: Record<string, unknown>;
}

/** A pure stand-in for the API: enforces parents, uniqueness, RESOURCE_NOT_EMPTY. */
class SimulatedServer {
  readonly records = new Map<string, ServerRecord>();
  private counter = 0;

  create(kind: Kind, parentUid: string | null, body: Record<string, unknown>): string {
    if (parentUid !== null && !this.records.has(parentUid)) throw new Error(`create ${kind}: parent ${parentUid} not found`);
    const key = kind === 'roleBinding' ? JSON.stringify([body.identityUid, body.roleUid]) : JSON.stringify(body.name ?? body.sink);
    for (const other of this.records.values()) {
      if (other.kind !== kind || other.parentUid !== parentUid) continue;
      const otherKey = kind === 'roleBinding' ? JSON.stringify([other.body.identityUid, other.body.roleUid]) : JSON.stringify(other.body.name ?? other.body.sink);
      if (otherKey === key) throw new Error(`create ${kind} ${key}: ALREADY_EXISTS`);
    }
    if (kind === 'roleBinding') {
      for (const ref of [body.identityUid, body.roleUid] as string[]) {
        if (ref !== OUTSIDER && !Object.values(BUILTIN_ROLES).includes(ref) && !this.records.has(ref)) throw new Error(`binding refers to missing ${ref}`);
      }
    }
    const uid = parentUid === null ? ORG_UID : `${parentUid}/${(++this.counter).toString(16).padStart(16, '0')}`;
    this.records.set(uid, { kind, uid, parentUid, body: { ...body } });
    return uid;
  }

  update(uid: string, fields: Record<string, unknown>): void {
    const rec = this.records.get(uid);
    if (!rec) throw new Error(`update ${uid}: NOT_FOUND`);
    Object.assign(rec.body, fields);
  }

  delete(uid: string): void {
    const rec = this.records.get(uid);
    if (!rec) throw new Error(`delete ${uid}: NOT_FOUND`);
    for (const other of this.records.values()) {
      const uses = other.parentUid === uid || (other.kind === 'roleBinding' && (other.body.identityUid === uid || other.body.roleUid === uid));
      if (uses) throw new Error(`delete ${rec.kind} ${uid}: RESOURCE_NOT_EMPTY (${other.kind} ${other.uid})`);
    }
    this.records.delete(uid);
  }

  /** Loads shapes (parents first), as if someone had built the org by hand. */
  static fromShapes(shapes: Shape[]): SimulatedServer {
    const server = new SimulatedServer();
    const uidByAddress = new Map<string, string>();
    for (const s of shapes) {
      const parentUid = s.parentAddress === null ? null : uidByAddress.get(s.parentAddress)!;
      let body: Record<string, unknown>;
      if (s.kind === 'roleBinding') {
        const { identity, role } = s.fields;
        body = {
          identityUid: 'uid' in identity ? identity.uid : uidByAddress.get(`identity:${identity.path}`),
          roleUid: 'builtin' in role ? BUILTIN_ROLES[role.builtin] : 'uid' in role ? role.uid : uidByAddress.get(`role:${role.path}`),
        };
      } else {
        body = { ...(s.fields as unknown as Record<string, unknown>) };
      }
      uidByAddress.set(s.address, server.create(s.kind, parentUid, body));
    }
    return server;
  }

  /** What the live reader would make of the server's state. */
  readLive(): LiveState {
    const root = [...this.records.values()].find((x) => x.parentUid === null);
    if (!root) return { org: null, resources: [], incomplete: [], ambiguities: [], builtinRoles: { ...BUILTIN_ROLES } };
    const builtinByUid = new Map(Object.entries(BUILTIN_ROLES).map(([n, u]) => [u, n]));
    const pathOf = (uid: string): string => {
      const rec = this.records.get(uid)!;
      if (rec.parentUid === null) return '';
      return joinPath(pathOf(rec.parentUid), rec.body.name as string);
    };
    const shapes: { shape: Shape; rec: ServerRecord }[] = [];
    for (const rec of this.records.values()) {
      const parent = rec.parentUid === null ? null : this.records.get(rec.parentUid)!;
      const groupPath = rec.kind === 'group' ? '' : rec.kind === 'tag' ? pathOf(parent!.parentUid!) : pathOf(rec.parentUid!);
      let shape: Shape;
      switch (rec.kind) {
        case 'group':
          shape = rec.parentUid === null ? r.org(rec.body as { name: string }) : r.group(pathOf(rec.uid), { description: rec.body.description as string });
          if (rec.parentUid !== null) shape.fields = { ...(rec.body as { name: string }) };
          break;
        case 'identity':
          shape = r.identity(groupPath, rec.body.name as string, rec.body);
          break;
        case 'role':
          shape = r.role(groupPath, rec.body.name as string, rec.body);
          break;
        case 'repo':
          shape = r.repo(groupPath, rec.body.name as string, rec.body);
          break;
        case 'subscription':
          shape = r.subscription(groupPath, rec.body.sink as string);
          break;
        case 'tag':
          shape = r.tag(groupPath, parent!.body.name as string, rec.body.name as string, rec.body.digest as string, false);
          break;
        case 'roleBinding': {
          const identityUid = rec.body.identityUid as string;
          const roleUid = rec.body.roleUid as string;
          const identity: IdentityKey = this.records.has(identityUid) ? { path: pathOf(identityUid) } : { uid: identityUid };
          const builtin = builtinByUid.get(roleUid);
          const role: RoleKey = builtin ? { builtin } : this.records.has(roleUid) ? { path: pathOf(roleUid) } : { uid: roleUid };
          shape = r.binding(groupPath, identity, role);
          break;
        }
      }
      shapes.push({ shape, rec });
    }
    const resources = shapes.map(({ shape, rec }) => ({ ...shape, uid: rec.uid, parentUid: rec.parentUid }) as LiveResource);
    return {
      org: { uid: root.uid, name: root.body.name as string },
      resources,
      incomplete: [],
      ambiguities: [],
      builtinRoles: { ...BUILTIN_ROLES },
    };
  }
}

/** Runs a plan's steps in order against the simulated server, checking dependsOn order. */
function simulate(server: SimulatedServer, p: Plan): void {
  const done = new Set<string>();
  const created = new Map<string, string>();
  const uidFor = (ref: { address: string; uid?: string } | undefined, what: string): string => {
    const uid = ref?.uid ?? (ref ? created.get(ref.address) : undefined);
    if (!uid) throw new Error(`${what}: no uid for ${ref?.address}`);
    return uid;
  };
  for (const step of p.steps) {
    for (const dep of step.dependsOn ?? []) {
      if (!done.has(dep)) throw new Error(`${step.action} ${step.address} runs before ${dep}, which it depends on`);
    }
    applyStep(server, step, created, uidFor);
    done.add(step.address);
  }
}

/**
 * Another order the executor may run the steps in: any order that respects `dependsOn` only.
 * Picking the ready step that comes last in the plan is the order most likely to expose a
 * missing edge (a delete that needs something else gone first).
 */
function reorderAdversarially(p: Plan): Plan {
  const remaining = new Map(p.steps.map((s, i) => [s.address, { step: s, index: i }]));
  const done = new Set<string>();
  const steps: PlanStep[] = [];
  while (remaining.size > 0) {
    let next: { step: PlanStep; index: number } | undefined;
    for (const entry of remaining.values()) {
      if ((entry.step.dependsOn ?? []).every((d) => done.has(d)) && (!next || entry.index > next.index)) next = entry;
    }
    if (!next) throw new Error('dependsOn has a cycle');
    remaining.delete(next.step.address);
    done.add(next.step.address);
    steps.push(next.step);
  }
  return { ...p, steps };
}

function cloneServer(server: SimulatedServer): SimulatedServer {
  const copy = new SimulatedServer();
  for (const [uid, rec] of server.records) copy.records.set(uid, { ...rec, body: { ...rec.body } });
  (copy as unknown as { counter: number }).counter = (server as unknown as { counter: number }).counter;
  return copy;
}

function applyStep(
  server: SimulatedServer,
  step: PlanStep,
  created: Map<string, string>,
  uidFor: (ref: { address: string; uid?: string } | undefined, what: string) => string,
): void {
  if (step.action === 'create') {
    const parentUid = step.parent === null ? null : (step.parentUid ?? created.get(step.parent!) ?? null);
    if (step.parent !== null && parentUid === null) throw new Error(`create ${step.address}: parent ${step.parent} has no uid yet`);
    const { readme, ...body } = step.after ?? {};
    if (step.kind === 'roleBinding') {
      body.identityUid = uidFor(step.refs?.identityUid, step.address);
      body.roleUid = uidFor(step.refs?.roleUid, step.address);
    }
    if (step.kind === 'repo') body.readme = readme ?? '';
    if (step.kind === 'tag') body.deprecated = false;
    created.set(step.address, server.create(step.kind, parentUid, body));
  } else if (step.action === 'update') {
    const fields: Record<string, unknown> = {};
    for (const field of step.updateMask ?? []) fields[field] = field === 'roleUid' ? uidFor(step.refs?.roleUid, step.address) : step.after?.[field];
    server.update(step.uid!, fields);
  } else {
    server.delete(step.uid!);
  }
}

function normalisedDesired(desired: DesiredState, live: LiveState) {
  const lookup = buildReferenceLookup(live);
  return desired.resources.map((d) => normaliseBinding(d, lookup));
}

/** Asserts that every desired resource is live with its managed fields. */
function expectDesiredLive(desired: DesiredState, live: LiveState, ignore: RegExp[] = []): void {
  const byAddress = new Map(live.resources.map((l) => [l.address, l]));
  for (const d of normalisedDesired(desired, live)) {
    if (ignore.some((g) => g.test(d.address))) continue;
    const l = byAddress.get(d.address);
    expect(l, `${d.address} should exist after apply`).toBeDefined();
    expect(diffManagedFields(d, l!), d.address).toEqual([]);
  }
}

const CASES = 250;

describe('plan (generated)', () => {
  it(`converges for ${CASES} random (desired, live) pairs with everything pruned`, () => {
    let steps = 0;
    for (let seed = 1; seed <= CASES; seed++) {
      const rng = createRng(seed);
      const desired = desiredState(generateShapes(rng, 'desired'));
      const server = chance(rng, 0.1) ? new SimulatedServer() : SimulatedServer.fromShapes(generateShapes(rng, 'live'));
      const live = server.readLive();
      const p = plan(desired, live, { allowMassDelete: true });
      expect(p.refusals, `seed ${seed}`).toEqual([]);
      // The executor's graph takes the planner's edges as they are and rejects a plan missing one.
      expect(() => buildStepGraph(p.steps), `seed ${seed}`).not.toThrow();
      steps += p.steps.length;
      try {
        // The dependsOn edges alone must be enough: the executor runs independent steps at once.
        if (p.steps.length < 80) simulate(cloneServer(server), reorderAdversarially(p));
        simulate(server, p);
      } catch (err) {
        throw new Error(`seed ${seed}: ${(err as Error).message}`);
      }
      const after = server.readLive();
      expectDesiredLive(desired, after);
      const desiredAddresses = new Set(normalisedDesired(desired, after).map((d) => d.address));
      const declaredTagRepos = new Set(desired.resources.filter((d) => d.kind === 'tag').map((d) => d.parentAddress));
      const extra = after.resources.filter(
        (l) => !desiredAddresses.has(l.address) && !(l.kind === 'tag' && !declaredTagRepos.has(l.parentAddress)),
      );
      expect(extra.map((l) => l.address), `seed ${seed}: left over`).toEqual([]);
      const again = plan(desired, after, { allowMassDelete: true });
      expect(again.steps.map((s) => `${s.action} ${s.address}`), `seed ${seed}: replan`).toEqual([]);
    }
    // The generator must actually exercise the planner.
    expect(steps).toBeGreaterThan(CASES * 5);
  });

  it(`is either refused or accepted by the server, for ${CASES} pairs with random prune/ignore settings`, () => {
    let refused = 0;
    let applied = 0;
    const kinds: Kind[] = ['group', 'identity', 'role', 'roleBinding', 'repo', 'tag', 'subscription'];
    for (let seed = 1000; seed < 1000 + CASES; seed++) {
      const rng = createRng(seed);
      const prune = Object.fromEntries(kinds.map((k) => [k, chance(rng, 0.8)]));
      const ignore = [pick(rng, ['identity:*i1', 'repo:a/*', 'roleBinding:*viewer', 'group:b', 'tag:*:1.0']), ...(chance(rng, 0.3) ? ['role:*'] : [])];
      const settings: Partial<Settings> = { prune, ignore };
      const desired = desiredState(generateShapes(rng, 'desired'), { settings });
      const server = SimulatedServer.fromShapes(generateShapes(rng, 'live'));
      const p: Plan = plan(desired, server.readLive(), { allowMassDelete: true });
      if (p.refusals.length > 0) {
        expect(() => assertSafe(p), `seed ${seed}`).toThrow(UnsafePlanError);
        expect(p.refusals.every((x) => x.rule === 'not-empty'), `seed ${seed}`).toBe(true);
        refused++;
        continue;
      }
      try {
        simulate(server, p);
      } catch (err) {
        throw new Error(`seed ${seed}: ${(err as Error).message}`);
      }
      applied++;
      const after = server.readLive();
      const again = plan(desired, after, { allowMassDelete: true });
      expect(again.steps.map((s) => `${s.action} ${s.address}`), `seed ${seed}: replan`).toEqual([]);
      expect(after.resources.some((l) => l.address === ORG_ADDRESS)).toBe(true);
    }
    expect(refused).toBeGreaterThan(0);
    expect(applied).toBeGreaterThan(CASES / 4);
  });
});
