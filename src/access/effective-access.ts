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
import type { LiveResource, LiveState } from '../model/resources.js';

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
}

const newKey = (address: string) => `new:${address}`;

/** Live state as an access state. Built-in roles' capabilities come with `live.builtinRoleCapabilities`. */
export function accessStateOf(live: LiveState): AccessState {
  const state: AccessState = { groups: new Map(), roles: new Map(), bindings: new Map(), identityNames: new Map(), roleSteps: new Map() };
  const byAddress = new Map(live.resources.map((r) => [r.address, r]));
  for (const [name, uid] of Object.entries(live.builtinRoles)) state.roles.set(uid, live.builtinRoleCapabilities?.[name] ?? []);
  for (const r of live.resources) {
    if (r.kind === 'group') state.groups.set(r.uid, { address: r.address, parent: r.parentUid });
    else if (r.kind === 'role') state.roles.set(r.uid, (r.fields as { capabilities?: string[] }).capabilities ?? []);
    else if (r.kind === 'identity') state.identityNames.set(r.uid, r.address);
  }
  for (const r of live.resources) {
    if (r.kind !== 'roleBinding' || r.parentUid === null) continue;
    const identity = keyOfReference(r.fields.identity, 'identity', byAddress);
    const role = 'builtin' in r.fields.role ? live.builtinRoles[r.fields.role.builtin] : keyOfReference(r.fields.role, 'role', byAddress);
    if (identity === undefined || role === undefined) continue;
    if (!state.identityNames.has(identity)) state.identityNames.set(identity, identity.startsWith('new:') ? identity.slice(4) : `uid:${identity}`);
    state.bindings.set(r.uid, { group: r.parentUid, identity, role });
  }
  return state;
}

function keyOfReference(key: { path: string } | { uid: string } | { builtin: string }, kind: 'identity' | 'role', byAddress: ReadonlyMap<string, LiveResource>): string | undefined {
  if ('uid' in key) return key.uid;
  if ('path' in key) return byAddress.get(`${kind}:${key.path}`)?.uid;
  return undefined;
}

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
  };
  for (const step of steps) {
    const refs = (step.action === 'delete' ? {} : (step.refs ?? {})) as Record<string, UidReference | undefined>;
    if (step.action === 'delete') {
      if (step.kind === 'group') state.groups.delete(step.uid);
      else if (step.kind === 'roleBinding') state.bindings.delete(step.uid);
      else if (step.kind === 'role') {
        state.roles.delete(step.uid);
        state.roleSteps.set(step.uid, step.address);
      }
      continue;
    }
    const key = step.action === 'create' ? newKey(step.address) : step.uid;
    if (step.kind === 'group') {
      const parent = step.action === 'create' ? (step.parentUid ?? (step.parent ? (groupKeyOf(state, step.parent) ?? newKey(step.parent)) : null)) : (state.groups.get(key)?.parent ?? null);
      state.groups.set(key, { address: step.address, parent });
    } else if (step.kind === 'identity') {
      state.identityNames.set(key, step.address);
    } else if (step.kind === 'role') {
      const caps = step.after.capabilities;
      if (step.action === 'create' || step.updateMask.includes('capabilities')) {
        state.roles.set(key, Array.isArray(caps) ? (caps as string[]) : []);
        state.roleSteps.set(key, step.address);
      }
    } else if (step.kind === 'roleBinding') {
      if (step.action === 'create') {
        const group = step.parentUid ?? (step.parent ? (groupKeyOf(state, step.parent) ?? newKey(step.parent)) : undefined);
        const identity = refKey(refs.identityUid, step.after.identityUid);
        const role = refKey(refs.roleUid, step.after.roleUid);
        if (group === undefined || identity === undefined || role === undefined) continue;
        if (!state.identityNames.has(identity)) state.identityNames.set(identity, refs.identityUid?.address ?? `uid:${identity}`);
        state.bindings.set(key, { group, identity, role, step: step.address });
      } else if (step.updateMask.includes('roleUid')) {
        const binding = state.bindings.get(key);
        const role = refKey(refs.roleUid, step.after.roleUid);
        if (binding && role !== undefined) state.bindings.set(key, { ...binding, role, step: step.address });
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

/** Effective capabilities of one identity on every group (a binding reaches every descendant). */
function effective(state: AccessState, direct: Map<string, { caps: Set<string> }> | undefined): Map<string, Set<string>> {
  const memo = new Map<string, Set<string>>();
  const of = (group: string, depth = 0): Set<string> => {
    const known = memo.get(group);
    if (known) return known;
    const g = state.groups.get(group);
    const inherited = g && g.parent !== null && depth < 64 ? of(g.parent, depth + 1) : new Set<string>();
    const own = direct?.get(group)?.caps;
    const caps = own && own.size > 0 ? new Set([...inherited, ...own]) : inherited;
    memo.set(group, caps);
    return caps;
  };
  for (const group of state.groups.keys()) of(group);
  return memo;
}

/** Identities whose access a plan may change: those of bindings it touches, or bound to roles or on groups it changes. */
function touchedIdentities(before: AccessState, after: AccessState, steps: readonly PlanStep[]): Set<string> {
  const changedRoles = new Set(after.roleSteps.keys());
  const changedGroups = new Set<string>();
  for (const step of steps) if (step.kind === 'group' && step.action !== 'update') changedGroups.add(step.action === 'create' ? newKey(step.address) : step.uid);
  const out = new Set<string>();
  for (const state of [before, after]) {
    for (const [key, b] of state.bindings) {
      const other = state === before ? after.bindings.get(key) : before.bindings.get(key);
      if (!other || other.role !== b.role || changedRoles.has(b.role) || changedGroups.has(b.group)) out.add(b.identity);
    }
  }
  return out;
}

const ACCESS_KINDS = new Set(['roleBinding', 'role', 'group']);

/**
 * The access changes of a plan: effective access of live and of live with the plan's steps
 * applied, compared for the identities the plan can affect. Each change once, at the highest
 * group where it starts. A plan with no binding, role or group step has none.
 */
export function accessChanges(live: LiveState, plan: Pick<Plan, 'steps'>, before: AccessState = accessStateOf(live)): AccessChange[] {
  if (!plan.steps.some((s) => ACCESS_KINDS.has(s.kind))) return [];
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
  const changes: AccessChange[] = [];
  for (const identity of [...identities].sort()) {
    const was = effective(before, directBefore.get(identity));
    const now = effective(after, directAfter.get(identity));
    const keys = new Set([...was.keys(), ...now.keys()]);
    const diff = new Map<string, { gained: Set<string>; lost: Set<string> }>();
    for (const g of keys) {
      const a = was.get(g) ?? new Set<string>();
      const b = now.get(g) ?? new Set<string>();
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
      changes.push({ identity: after.identityNames.get(identity) ?? before.identityNames.get(identity) ?? `uid:${identity}`, scope: after.groups.get(g)!.address, gained, lost, groups: reach, steps: [...steps].sort() });
    }
  }
  return changes.sort((a, b) => (a.identity < b.identity ? -1 : a.identity > b.identity ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
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
