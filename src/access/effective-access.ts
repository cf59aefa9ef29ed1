/**
 * Effective access (DESIGN.md §4 "Access changes"), pure: an identity holds a capability on a
 * group when a role binding on that group or on any ancestor binds it to a role that has the
 * capability (built-in roles' capabilities read from the roles list, like custom ones).
 *
 * Everything is keyed by identity, so a rename keeps access where it is: a group, an identity
 * or a role is its uid when it exists live, and `new:<address>` when the plan creates it. The
 * planned state is live with the plan's steps applied (steps carry uids, or the addresses of
 * what the same plan creates). Access changes are the difference, each reported once, at the
 * highest group where it starts, with how many groups it reaches.
 */
import type { Plan, PlanStep, UidReference } from '../model/plan.js';
import type { LiveState } from '../model/resources.js';
import { descriptorOf, type Kind } from '../model/kinds.js';
import type { IdentityKey, RoleKey } from '../model/address.js';
import type { KindDescriptor } from '../model/kind-descriptor.js';

/** One change of effective access (JSON `accessChanges[]`). */
export interface AccessChange {
  /** The identity's address, or `uid:<uid>` for one the org does not contain. */
  identity: string;
  /** The address of the highest group where the change starts (`org` for the root). */
  scope: string;
  gained: string[];
  lost: string[];
  /** Groups the change reaches: the scope and those of its descendants where it holds. */
  groups: number;
  /** Addresses of the steps that cause it. */
  steps: string[];
}

interface Group {
  address: string;
  parent: string | null;
}
interface Binding {
  group: string;
  identity: string;
  role: string;
  /** Its address (what `platform-sync access` names as the grant). */
  address?: string;
  /** The step (address) that made or changed it, for "which steps cause it". */
  step?: string;
}

/** An org's access-relevant state, keyed by identity (uids, or `new:<address>`). */
export interface AccessState {
  groups: Map<string, Group>;
  /** Role key → capabilities. */
  roles: Map<string, readonly string[]>;
  bindings: Map<string, Binding>;
  /** Identity key → how it is shown. */
  identityNames: Map<string, string>;
  /** Role keys that a step created or changed, for "which steps cause it". */
  roleSteps: Map<string, string>;
  /** Role key → how it is shown (a built-in's name, a custom role's address). */
  roleNames: Map<string, string>;
  /** Identity key → the delete steps of its bindings (what a binding gone no longer says itself). */
  removedSteps?: Map<string, Set<string>>;
}

const newKey = (address: string) => `new:${address}`;

/** Live state as an access state. Built-in roles' capabilities come with `live.builtinRoleCapabilities`. */
/**
 * Which bindings a state needs to hold (a plan's access changes concern few identities): those
 * of the identities named, plus — found while reading — those of the identities of the bindings
 * named and of the bindings on the roles named. Undefined: every binding.
 */
export interface AccessScope {
  /** Identities, by the text a binding names them with: a path in the org, or a uid. */
  identities: Set<string>;
  bindings: ReadonlySet<string>;
  /** Roles, by path or uid (as a binding names them; built-ins by uid). */
  roles: ReadonlySet<string>;
}

/** The text a binding names a reference with (a path, a uid or a built-in's name): compared without building a string. */
function refText(key: { path: string } | { uid: string } | { builtin: string }): string {
  return 'path' in key ? key.path : 'uid' in key ? key.uid : key.builtin;
}

export function accessStateOf(live: LiveState, scope?: AccessScope, byAddress?: (address: string) => { uid: string } | undefined): AccessState {
  const state: AccessState = { groups: new Map(), roles: new Map(), bindings: new Map(), identityNames: new Map(), roleSteps: new Map(), roleNames: new Map() };
  // Identities and roles by the path a binding names them with: through the caller's index of
  // live addresses when it has one (the planner's), else one made here.
  let identityByPath: { get(path: string): string | undefined };
  let roleByPath: { get(path: string): string | undefined };
  for (const [name, uid] of Object.entries(live.builtinRoles)) {
    state.roles.set(uid, live.builtinRoleCapabilities?.[name] ?? []);
    state.roleNames.set(uid, name);
  }
  if (byAddress) {
    identityByPath = { get: (path) => byAddress(`identity:${path}`)?.uid };
    roleByPath = { get: (path) => byAddress(`role:${path}`)?.uid };
    for (const r of live.resources) {
      if (accessOf(r.kind) === 'scope') state.groups.set(r.uid, { address: r.address, parent: r.parentUid });
      else if (accessOf(r.kind) === 'capabilities') {
        state.roles.set(r.uid, (r.fields as { capabilities?: string[] }).capabilities ?? []);
        state.roleNames.set(r.uid, r.address);
      }
    }
  } else {
    const identities = new Map<string, string>();
    const roles = new Map<string, string>();
    for (const r of live.resources) {
      if (accessOf(r.kind) === 'scope') state.groups.set(r.uid, { address: r.address, parent: r.parentUid });
      else if (accessOf(r.kind) === 'capabilities') {
        state.roles.set(r.uid, (r.fields as { capabilities?: string[] }).capabilities ?? []);
        state.roleNames.set(r.uid, r.address);
        roles.set(r.address.slice(ROLE_PREFIX), r.uid);
      } else if (accessOf(r.kind) === 'principal') identities.set(r.address.slice(IDENTITY_PREFIX), r.uid);
    }
    identityByPath = identities;
    roleByPath = roles;
  }
  const keysOf = (r: LiveState['resources'][number]): { identity: string; role: string } | undefined => {
    if (accessOf(r.kind) !== 'grant' || r.parentUid === null) return undefined;
    const { identity: i, role: o } = grantOf(r);
    const identity = 'uid' in i ? i.uid : identityByPath.get(i.path);
    const role = 'builtin' in o ? live.builtinRoles[o.builtin] : 'uid' in o ? o.uid : roleByPath.get(o.path);
    return identity === undefined || role === undefined ? undefined : { identity, role };
  };
  if (scope && (scope.bindings.size > 0 || scope.roles.size > 0)) {
    // First the identities the named bindings and roles concern, then every binding of them.
    for (const r of live.resources) {
      if (accessOf(r.kind) !== 'grant') continue;
      if (scope.bindings.has(r.uid) || scope.roles.has(refText(grantOf(r).role))) scope.identities.add(refText(grantOf(r).identity));
    }
  }
  for (const r of live.resources) {
    const access = accessOf(r.kind);
    if (access === 'principal') {
      // Each identity as it is named now, one that no binding names too (a change that takes its
      // last binding names it so, as the plan's own after state does).
      if (!scope || scope.identities.has(r.address.slice(IDENTITY_PREFIX)) || scope.identities.has(r.uid)) state.identityNames.set(r.uid, r.address);
      continue;
    }
    if (access !== 'grant') continue;
    if (scope && !scope.identities.has(refText(grantOf(r).identity))) continue;
    const keys = keysOf(r);
    if (!keys) continue;
    if (!state.identityNames.has(keys.identity)) {
      const i = grantOf(r).identity;
      state.identityNames.set(keys.identity, 'path' in i ? `identity:${i.path}` : `uid:${keys.identity}`);
    }
    state.bindings.set(r.uid, { group: r.parentUid!, identity: keys.identity, role: keys.role, address: r.address });
  }
  return state;
}

/** What a plan's steps name: the bindings and roles they touch, and the identities of the bindings they make. */
function scopeOfSteps(steps: readonly PlanStep[]): AccessScope {
  const identities = new Set<string>();
  const bindings = new Set<string>();
  const roles = new Set<string>();
  for (const step of steps) {
    if (accessOf(step.kind) === 'grant') {
      if (step.action !== 'create') bindings.add(step.uid);
      else {
        const ref = (step.refs ?? {}).identityUid;
        if (ref) identities.add(ref.address.slice(IDENTITY_PREFIX));
        if (ref?.uid !== undefined) identities.add(ref.uid);
        if (typeof step.after.identityUid === 'string') identities.add(step.after.identityUid);
      }
    } else if (accessOf(step.kind) === 'capabilities' && step.action !== 'create') {
      roles.add(step.uid);
      roles.add(step.address.slice(ROLE_PREFIX));
    }
  }
  return { identities, bindings, roles };
}

const IDENTITY_PREFIX = 'identity:'.length;
const ROLE_PREFIX = 'role:'.length;

/** The key of what a reference names: its uid, or the address of what the same plan creates. */
function refKey(ref: UidReference | undefined, value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (ref?.uid !== undefined) return ref.uid;
  return ref ? newKey(ref.address) : undefined;
}

/** The planned state: `before` with the plan's steps applied (a copy; `before` is not changed). */
export function applySteps(before: AccessState, steps: readonly PlanStep[]): AccessState {
  const state: AccessState = {
    groups: new Map(before.groups),
    roles: new Map(before.roles),
    bindings: new Map(before.bindings),
    identityNames: new Map(before.identityNames),
    roleSteps: new Map(),
    roleNames: new Map(before.roleNames),
  };
  // Groups by address, kept as steps add groups: a create names its parent by address.
  const groupByAddress = new Map([...state.groups].map(([key, g]) => [g.address, key]));
  const groupKey = (address: string) => groupByAddress.get(address) ?? newKey(address);
  for (const step of steps) {
    const refs = (step.action === 'delete' ? {} : (step.refs ?? {})) as Record<string, UidReference | undefined>;
    if (step.action === 'delete') {
      if (accessOf(step.kind) === 'scope') state.groups.delete(step.uid);
      else if (accessOf(step.kind) === 'grant') {
        const gone = state.bindings.get(step.uid);
        if (gone) {
          state.removedSteps ??= new Map();
          const set = state.removedSteps.get(gone.identity) ?? new Set<string>();
          set.add(step.address);
          state.removedSteps.set(gone.identity, set);
        }
        state.bindings.delete(step.uid);
      }
      else if (accessOf(step.kind) === 'capabilities') {
        state.roles.delete(step.uid);
        state.roleSteps.set(step.uid, step.address);
      }
      continue;
    }
    const key = step.action === 'create' ? newKey(step.address) : step.uid;
    if (accessOf(step.kind) === 'scope') {
      const parent = step.action === 'create' ? (step.parentUid ?? (step.parent ? groupKey(step.parent) : null)) : (state.groups.get(key)?.parent ?? null);
      state.groups.set(key, { address: step.address, parent });
      groupByAddress.set(step.address, key);
    } else if (accessOf(step.kind) === 'principal') {
      state.identityNames.set(key, step.address);
    } else if (accessOf(step.kind) === 'capabilities') {
      const caps = step.after.capabilities;
      if (step.action === 'create' || step.updateMask.includes('capabilities')) {
        state.roles.set(key, Array.isArray(caps) ? (caps as string[]) : []);
        state.roleSteps.set(key, step.address);
        state.roleNames.set(key, step.address);
      }
    } else if (accessOf(step.kind) === 'grant') {
      if (step.action === 'create') {
        const group = step.parentUid ?? (step.parent ? groupKey(step.parent) : undefined);
        const identity = refKey(refs.identityUid, step.after.identityUid);
        const role = refKey(refs.roleUid, step.after.roleUid);
        if (group === undefined || identity === undefined || role === undefined) continue;
        if (!state.identityNames.has(identity)) state.identityNames.set(identity, refs.identityUid?.address ?? `uid:${identity}`);
        state.bindings.set(key, { group, identity, role, step: step.address, address: step.address });
      } else if (step.updateMask.includes('roleUid')) {
        const binding = state.bindings.get(key);
        const role = refKey(refs.roleUid, step.after.roleUid);
        if (binding && role !== undefined) state.bindings.set(key, { ...binding, role, step: step.address, address: step.address });
      }
    }
  }
  return state;
}

function groupKeyOf(state: AccessState, address: string): string | undefined {
  for (const [key, g] of state.groups) if (g.address === address) return key;
  return undefined;
}

/** Capability sets an identity holds directly on each group (its bindings there), with the steps behind them. */
function directGrants(state: AccessState, identities: ReadonlySet<string>): Map<string, Map<string, { caps: Set<string>; steps: Set<string> }>> {
  const out = new Map<string, Map<string, { caps: Set<string>; steps: Set<string> }>>();
  for (const b of state.bindings.values()) {
    if (!identities.has(b.identity) || !state.groups.has(b.group)) continue;
    const caps = state.roles.get(b.role) ?? [];
    let byGroup = out.get(b.identity);
    if (!byGroup) out.set(b.identity, (byGroup = new Map()));
    let entry = byGroup.get(b.group);
    if (!entry) byGroup.set(b.group, (entry = { caps: new Set(), steps: new Set() }));
    for (const c of caps) entry.caps.add(c);
    if (b.step) entry.steps.add(b.step);
    const roleStep = state.roleSteps.get(b.role);
    if (roleStep) entry.steps.add(roleStep);
  }
  return out;
}

/** Each group's children (the tree walked down from a binding). */
function childrenOf(state: AccessState): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [key, g] of state.groups) {
    if (g.parent === null) continue;
    const list = out.get(g.parent);
    if (list) list.push(key);
    else out.set(g.parent, [key]);
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Effective capabilities of one identity (a binding reaches every descendant), on the groups
 * where it can hold any: the subtrees of the groups it is bound on, and their ancestors. Only
 * those are walked: an identity is bound on a few groups of an org of hundreds.
 */
function effective(state: AccessState, direct: Map<string, { caps: Set<string> }> | undefined, children: ReadonlyMap<string, readonly string[]>): Map<string, ReadonlySet<string>> {
  const memo = new Map<string, ReadonlySet<string>>();
  if (!direct) return memo;
  const of = (group: string, depth = 0): ReadonlySet<string> => {
    const known = memo.get(group);
    if (known) return known;
    const g = state.groups.get(group);
    const inherited = g && g.parent !== null && depth < 64 ? of(g.parent, depth + 1) : NONE;
    const own = direct.get(group)?.caps;
    const caps = own && own.size > 0 ? new Set([...inherited, ...own]) : inherited;
    memo.set(group, caps);
    return caps;
  };
  const visited = new Set<string>();
  for (const top of direct.keys()) {
    const stack = [top];
    while (stack.length > 0) {
      const g = stack.pop()!;
      if (visited.has(g)) continue;
      visited.add(g);
      of(g);
      for (const child of children.get(g) ?? []) stack.push(child);
    }
  }
  return memo;
}

/** Identities whose access a plan may change: those of bindings it touches, or bound to roles or on groups it changes. */
function touchedIdentities(before: AccessState, after: AccessState, steps: readonly PlanStep[]): Set<string> {
  const changedRoles = new Set(after.roleSteps.keys());
  const changedGroups = new Set<string>();
  for (const step of steps) if (accessOf(step.kind) === 'scope' && step.action !== 'update') changedGroups.add(step.action === 'create' ? newKey(step.address) : step.uid);
  const out = new Set<string>();
  for (const state of [before, after]) {
    for (const [key, b] of state.bindings) {
      const other = state === before ? after.bindings.get(key) : before.bindings.get(key);
      if (!other || other.role !== b.role || changedRoles.has(b.role) || changedGroups.has(b.group)) out.add(b.identity);
    }
  }
  return out;
}

/** A grant's references: the identity and the role it binds (a role binding's fields). */
function grantOf(r: LiveState['resources'][number]): { identity: IdentityKey; role: RoleKey } {
  return r.fields as unknown as { identity: IdentityKey; role: RoleKey };
}

/** What a kind is to access (KindDescriptor `access`), read from its descriptor. */
function accessOf(kind: Kind): KindDescriptor['access'] {
  return (descriptorOf(kind) as KindDescriptor).access;
}

/** Kinds whose steps can change access: all but the principals themselves. */
const changesAccess = (kind: Kind): boolean => accessOf(kind) !== undefined && accessOf(kind) !== 'principal';

/**
 * The access changes of a plan: effective access of live and of live with the plan's steps
 * applied, compared for the identities the plan can affect. Each change once, at the highest
 * group where it starts. A plan with no binding, role or group step has none.
 */
export function accessChanges(live: LiveState, plan: Pick<Plan, 'steps'>, byAddress?: (address: string) => { uid: string } | undefined): AccessChange[] {
  if (!plan.steps.some((s) => changesAccess(s.kind))) return [];
  // Only the bindings of the identities the steps concern are read: a plan touches few.
  const before = accessStateOf(live, scopeOfSteps(plan.steps), byAddress);
  const after = applySteps(before, plan.steps);
  return diffAccess(before, after, touchedIdentities(before, after, plan.steps));
}

/**
 * The access changes between two states of one org, for `identities` (default: every identity
 * bound in either): what `accessChanges` reports of a plan, and what drift or a test can compute
 * of two reads of live.
 */
export function diffAccess(before: AccessState, after: AccessState, identities?: ReadonlySet<string>): AccessChange[] {
  if (identities === undefined) identities = new Set([...before.bindings.values(), ...after.bindings.values()].map((b) => b.identity));
  if (identities.size === 0) return [];
  const directBefore = directGrants(before, identities);
  const directAfter = directGrants(after, identities);
  const childrenBefore = childrenOf(before);
  const childrenAfter = childrenOf(after);
  const nameOf = identityNamer(before, after);
  const changes: AccessChange[] = [];
  for (const identity of [...identities].sort()) {
    const was = effective(before, directBefore.get(identity), childrenBefore);
    const now = effective(after, directAfter.get(identity), childrenAfter);
    const keys = new Set([...was.keys(), ...now.keys()]);
    const diff = new Map<string, { gained: Set<string>; lost: Set<string> }>();
    for (const g of keys) {
      const a = was.get(g) ?? NONE;
      const b = now.get(g) ?? NONE;
      // A group that only one side has: its access is new (created) or gone with it (deleted), not a change of anyone's.
      if (!before.groups.has(g) || !after.groups.has(g)) continue;
      const gained = new Set([...b].filter((c) => !a.has(c)));
      const lost = new Set([...a].filter((c) => !b.has(c)));
      if (gained.size > 0 || lost.size > 0) diff.set(g, { gained, lost });
    }
    for (const [g, d] of diff) {
      const parent = after.groups.get(g)?.parent ?? null;
      const up = parent === null ? undefined : diff.get(parent);
      const gained = [...d.gained].filter((c) => !up?.gained.has(c)).sort();
      const lost = [...d.lost].filter((c) => !up?.lost.has(c)).sort();
      if (gained.length === 0 && lost.length === 0) continue;
      const reach = countReach(after, g, diff, new Set(gained), new Set(lost));
      const steps = new Set<string>();
      for (const state of [directBefore.get(identity), directAfter.get(identity)]) for (const entry of state?.values() ?? []) for (const s of entry.steps) steps.add(s);
      for (const s of after.removedSteps?.get(identity) ?? []) steps.add(s);
      changes.push({ identity: nameOf(identity), scope: after.groups.get(g)!.address, gained, lost, groups: reach, steps: [...steps].sort() });
    }
  }
  return changes.sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
}

/**
 * How a change names an identity: as the after state does; one the after state no longer binds
 * is named under its group's address there, so that a group renamed in the same plan (or
 * between two reads) names it as it names the scope.
 */
function identityNamer(before: AccessState, after: AccessState): (identity: string) => string {
  let groupByAddress: Map<string, string> | undefined;
  return (identity) => {
    const now = after.identityNames.get(identity);
    if (now !== undefined) return now;
    const was = before.identityNames.get(identity);
    if (was === undefined) return `uid:${identity}`;
    if (!was.startsWith('identity:')) return was;
    const path = was.slice('identity:'.length);
    const slash = path.lastIndexOf('/');
    groupByAddress ??= new Map([...before.groups].map(([uid, g]) => [g.address, uid]));
    const group = groupByAddress.get(slash < 0 ? 'org' : `group:${path.slice(0, slash)}`);
    const there = group === undefined ? undefined : after.groups.get(group)?.address;
    if (there === undefined) return was;
    const name = path.slice(slash + 1);
    return there === 'org' ? `identity:${name}` : `identity:${there.slice('group:'.length)}/${name}`;
  };
}

/** Groups in the subtree of `top` where any of the change's capabilities change the same way. */
function countReach(state: AccessState, top: string, diff: ReadonlyMap<string, { gained: Set<string>; lost: Set<string> }>, gained: Set<string>, lost: Set<string>): number {
  let n = 0;
  for (const [g, d] of diff) {
    if (!isWithin(state, g, top)) continue;
    if ([...gained].some((c) => d.gained.has(c)) || [...lost].some((c) => d.lost.has(c))) n++;
  }
  return n;
}

function isWithin(state: AccessState, group: string, top: string): boolean {
  for (let g: string | null = group, depth = 0; g !== null && depth < 64; g = state.groups.get(g)?.parent ?? null, depth++) if (g === top) return true;
  return false;
}

/** One grant `platform-sync access` answers with: who holds what where, and the binding that grants it. */
export interface AccessGrant {
  identity: string;
  /** The group the binding is on; the grant reaches it and every group below. */
  scope: string;
  /** How many groups it reaches: the scope and its descendants. */
  groups: number;
  capabilities: string[];
  binding: string;
  role: string;
}

/**
 * Answers of `platform-sync access` over one state (the org as the manifests would make it):
 * every grant of an identity (`identity`), or every grant of `capability` that reaches `scope`
 * (on it or an ancestor). Each with the binding that grants it. Pure.
 */
export function queryAccess(state: AccessState, query: { identity?: string; scope?: string; capability?: string }): AccessGrant[] {
  const children = childrenOf(state);
  const reach = (group: string): number => {
    let n = 0;
    const stack = [group];
    while (stack.length > 0) {
      const g = stack.pop()!;
      n++;
      stack.push(...(children.get(g) ?? []));
    }
    return n;
  };
  let scopeKey: string | undefined;
  if (query.scope !== undefined) {
    scopeKey = groupKeyOf(state, query.scope);
    if (scopeKey === undefined) return [];
  }
  const grants: AccessGrant[] = [];
  for (const b of state.bindings.values()) {
    const identity = state.identityNames.get(b.identity) ?? `uid:${b.identity}`;
    if (query.identity !== undefined && identity !== query.identity) continue;
    const group = state.groups.get(b.group);
    if (!group) continue;
    let caps = [...(state.roles.get(b.role) ?? [])];
    if (query.capability !== undefined) caps = caps.filter((c) => c === query.capability);
    if (caps.length === 0) continue;
    if (scopeKey !== undefined && !isWithin(state, scopeKey, b.group)) continue;
    grants.push({ identity, scope: group.address, groups: reach(b.group), capabilities: caps.sort(), binding: b.address ?? '', role: state.roleNames.get(b.role) ?? `uid:${b.role}` });
  }
  return grants.sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
}

