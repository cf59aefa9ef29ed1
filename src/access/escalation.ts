/**
 * Escalation (DESIGN.md §4 "Escalation (rev 6)"): some capabilities grant capabilities (`escalating`
 * in src/service/capabilities.json). The relation has two views — what a principal *holds*, and
 * what it *can obtain*: what it holds plus the closure through escalating capabilities, each
 * obtained capability with the path that obtains it. The semantics, all in this module:
 *
 * - on a group G (and so on every group below it, where it holds the capability too),
 *   `role_bindings.create`, `role_bindings.update`, `group_invites.create`,
 *   `identity_providers.create` and `identity_providers.update` obtain every capability of every
 *   role visible at G: the built-in roles and the custom roles of G and its ancestors (it can bind
 *   one to itself, invite itself with it, or sign in through a provider whose default role it is);
 * - `roles.update` obtains every capability of the catalog (it can add any to a role bound to it);
 * - `roles.create` obtains every capability of the catalog only together with one of the binding
 *   capabilities above on G (a role it makes is nothing until it is bound);
 * - `identity.update` on G obtains what the grants to every identity whose home group is G or below
 *   give, where they give it (it can make that identity accept its own token). The grants to that
 *   identity record, not to every identity that accepts the same tokens: another identity of the
 *   same relationship homed elsewhere keeps its own grants when this one is changed;
 * - `identity_providers.update` on G obtains, besides the roles visible at G, what every identity
 *   provider homed at G or below grants, where it grants it (it can repoint the provider's issuer or
 *   groups claim at people it controls): its default role on its group, and its group mappings —
 *   whose scope is always the org, so a provider in a group can give owner on the org;
 * - `identity.create` obtains nothing alone (an identity it makes holds nothing until bound).
 *
 * Repeated to a fixpoint: an obtained escalating capability obtains in turn. Pure.
 */
import { CATALOG, ESCALATING } from '../service/catalog.js';
import { accessPartOf } from './state.js';
import { holdingsOf, holdingsOfGrants, isWithin, type AccessRelation, type Grant } from './relation.js';

/** One step of the way a capability is obtained. */
export interface EscalationStep {
  /** The escalating capability used. */
  capability: string;
  /** The group (key) where it is held or obtained. */
  group: string;
  /** The grant that gives it, when it is held (not itself obtained). */
  grant?: Grant;
  /** The identity made to accept the principal's token (`identity.update`), or the provider repointed (`identity_providers.update`): its address. */
  through?: string;
}

/** What a principal can obtain beyond what it holds: per group, each capability with its path (first step: a held capability). */
export type Obtainable = Map<string, Map<string, readonly EscalationStep[]>>;

/** Capabilities that obtain every capability of every role visible where they are held. */
const BINDERS = [
  'role_bindings.create',
  'role_bindings.update',
  'group_invites.create',
  'identity_providers.create',
  'identity_providers.update',
] as const;
const ESCALATING_NAMES: readonly string[] = Object.keys(ESCALATING);
const MAX_ROUNDS = 64;

interface Index {
  /** Union of the capabilities of the roles visible at a group (memoised). */
  visible: Map<string, ReadonlySet<string>>;
  /** Every capability: the catalog and any a role of the relation holds. */
  everything: ReadonlySet<string>;
  /** Identity records (their principal and key) by the group they lie in. */
  homedAt: Map<string, { principal: string; key: string }[]>;
  /** Identity providers (their key and the grants they make: sign-in and mappings) by the group they lie in. */
  providersAt: Map<string, { key: string; grants: Grant[] }[]>;
  /** Custom role capabilities by the group that owns them. */
  rolesAt: Map<string, string[]>;
  holds: Map<string, Map<string, ReadonlySet<string>>>;
  obtainable: Map<string, Obtainable>;
}

const indexes = new WeakMap<AccessRelation, Index>();

function indexOf(rel: AccessRelation): Index {
  let index = indexes.get(rel);
  if (index) return index;
  const everything = new Set(CATALOG);
  const rolesAt = new Map<string, string[]>();
  for (const r of rel.state.records.values()) {
    const part = accessPartOf(r.kind);
    if (part?.is !== 'capabilities' || r.parent === null) continue;
    const caps = rel.capabilitiesOf(r.key);
    for (const c of caps) everything.add(c);
    const list = rolesAt.get(r.parent);
    if (list) list.push(...caps);
    else rolesAt.set(r.parent, [...caps]);
  }
  for (const caps of rel.state.builtinCapabilities.values()) for (const c of caps) everything.add(c);
  const homedAt = new Map<string, { principal: string; key: string }[]>();
  for (const p of rel.principals.values()) {
    if (p.identityKey === undefined) continue;
    for (const key of p.records ?? []) {
      const home = rel.state.records.get(key)?.parent;
      if (home === null || home === undefined) continue;
      const list = homedAt.get(home);
      if (list) list.push({ principal: p.id, key });
      else homedAt.set(home, [{ principal: p.id, key }]);
    }
  }
  index = {
    visible: new Map(),
    everything,
    homedAt,
    providersAt: providersByHome(rel),
    rolesAt,
    holds: new Map(),
    obtainable: new Map(),
  };
  indexes.set(rel, index);
  return index;
}

/**
 * The grants of every identity provider, by the group the provider lies in: its sign-in (default
 * role, on its group) and its group mappings (on their scope, the org) — what repointing it gives.
 */
function providersByHome(rel: AccessRelation): Map<string, { key: string; grants: Grant[] }[]> {
  const byKey = new Map<string, Grant[]>();
  for (const grants of rel.grantsOf.values())
    for (const g of grants) {
      const record = rel.state.records.get(g.record);
      const part = record && accessPartOf(record.kind);
      if (part?.is !== 'grant' || (part.to !== 'signIn' && part.to !== 'externalGroup')) continue;
      const provider = part.to === 'signIn' ? record!.key : record!.parent;
      if (provider === null) continue;
      const list = byKey.get(provider);
      if (list) list.push(g);
      else byKey.set(provider, [g]);
    }
  const out = new Map<string, { key: string; grants: Grant[] }[]>();
  for (const [key, grants] of byKey) {
    const home = rel.state.records.get(key)?.parent;
    if (home === null || home === undefined) continue;
    const list = out.get(home);
    if (list) list.push({ key, grants });
    else out.set(home, [{ key, grants }]);
  }
  return out;
}

/** The capabilities of every role visible at `group`: the built-ins, and the custom roles of it and its ancestors. */
function visibleAt(rel: AccessRelation, index: Index, group: string): ReadonlySet<string> {
  const known = index.visible.get(group);
  if (known) return known;
  const parent = rel.groups.get(group)?.parent ?? null;
  const out = new Set(
    parent === null ? [...rel.state.builtinCapabilities.values()].flat() : visibleAt(rel, index, parent),
  );
  for (const c of index.rolesAt.get(group) ?? []) out.add(c);
  index.visible.set(group, out);
  return out;
}

/** The grants of principal `q` that name the identity record `key` (a principal may be several identities). */
function grantsToRecord(rel: AccessRelation, q: string, key: string): Grant[] {
  return (rel.grantsOf.get(q) ?? []).filter((g) => {
    const record = rel.state.records.get(g.record);
    const part = record && accessPartOf(record.kind);
    if (part?.is !== 'grant' || part.to !== 'identity' || part.principalField === undefined) return false;
    return record!.fields[part.principalField] === key;
  });
}

/** What `id` holds, per group (memoised per relation). */
export function holdsOf(rel: AccessRelation, id: string): Map<string, ReadonlySet<string>> {
  const index = indexOf(rel);
  let held = index.holds.get(id);
  if (!held) index.holds.set(id, (held = holdingsOf(rel, id)));
  return held;
}

/** The grant of `id` on `group` or an ancestor whose role has `capability`. */
export function grantOf(rel: AccessRelation, id: string, group: string, capability: string): Grant | undefined {
  let best: Grant | undefined;
  for (const g of rel.grantsOf.get(id) ?? []) {
    if (!isWithin(rel, group, g.group) || !rel.capabilitiesOf(g.role).includes(capability)) continue;
    // The nearest grant: the one on the group itself before one on an ancestor.
    if (best === undefined || isWithin(rel, g.group, best.group)) best = g;
  }
  return best;
}

/**
 * What `id` can obtain beyond what it holds (empty when nothing): the closure of its holdings
 * through escalating capabilities, to a fixpoint, each capability with its path. Memoised per relation.
 */
export function obtainableOf(rel: AccessRelation, id: string): Obtainable {
  const index = indexOf(rel);
  const known = index.obtainable.get(id);
  if (known) return known;
  const out: Obtainable = new Map();
  index.obtainable.set(id, out);
  const held = holdsOf(rel, id);
  if (![...held.values()].some((caps) => ESCALATING_NAMES.some((c) => caps.has(c)))) return out;
  const can = new Map<string, Set<string>>();
  for (const [g, caps] of held) can.set(g, new Set(caps));
  /** Identity records already taken over (by key). */
  const pulled = new Set<string>();
  const pathTo = (capability: string, group: string): readonly EscalationStep[] => {
    if (held.get(group)?.has(capability)) {
      const grant = grantOf(rel, id, group, capability);
      return [{ capability, group, ...(grant ? { grant } : {}) }];
    }
    return [...(out.get(group)?.get(capability) ?? []), { capability, group }];
  };
  const obtain = (group: string, caps: Iterable<string>, path: () => readonly EscalationStep[]): boolean => {
    let set = can.get(group);
    if (!set) can.set(group, (set = new Set()));
    if (set.size >= index.everything.size) return false;
    let changed = false;
    let steps: readonly EscalationStep[] | undefined;
    for (const c of caps) {
      if (set.has(c)) continue;
      set.add(c);
      steps ??= path();
      let at = out.get(group);
      if (!at) out.set(group, (at = new Map()));
      at.set(c, steps);
      changed = true;
    }
    return changed;
  };
  for (let round = 0, changed = true; changed && round < MAX_ROUNDS; round++) {
    changed = false;
    for (const [group, caps] of [...can]) {
      // Every capability already: nothing more to obtain here (identity.update aside, which reaches elsewhere).
      // (Every set holds capabilities of `everything` only: its size says it.)
      const full = caps.size >= index.everything.size;
      if (!full)
        for (const x of BINDERS)
          if (caps.has(x)) changed = obtain(group, visibleAt(rel, index, group), () => pathTo(x, group)) || changed;
      if (!full && caps.has('roles.update'))
        changed = obtain(group, index.everything, () => pathTo('roles.update', group)) || changed;
      const binder = BINDERS.find((x) => caps.has(x));
      if (!full && caps.has('roles.create') && binder !== undefined)
        changed =
          obtain(group, index.everything, () => [...pathTo(binder, group), ...pathTo('roles.create', group)]) ||
          changed;
      // Held on the parent too: the parent's turn reaches every record below it already.
      const parent = rel.groups.get(group)?.parent ?? null;
      const takes = (capability: string): boolean =>
        caps.has(capability) && !(parent !== null && can.get(parent)?.has(capability));
      /** Takes over a record homed in reach (an identity, a provider): what its grants give, where they give it. */
      const takeOver = (capability: string, key: string, grants: () => Grant[]): void => {
        if (pulled.has(key)) return;
        pulled.add(key);
        const address = rel.state.records.get(key)?.address ?? key;
        const taking = (): readonly EscalationStep[] => {
          const steps = pathTo(capability, group);
          return [...steps.slice(0, -1), { ...steps[steps.length - 1]!, through: address }];
        };
        for (const [g, theirs] of holdingsOfGrants(rel, grants())) obtain(g, theirs, taking);
        changed = true;
      };
      if (takes('identity.update'))
        for (const [home, identities] of index.homedAt) {
          if (!isWithin(rel, home, group)) continue;
          for (const { principal: q, key } of identities)
            if (q !== id) takeOver('identity.update', key, () => grantsToRecord(rel, q, key));
        }
      if (takes('identity_providers.update'))
        for (const [home, providers] of index.providersAt) {
          if (!isWithin(rel, home, group)) continue;
          for (const { key, grants } of providers) takeOver('identity_providers.update', key, () => grants);
        }
    }
  }
  return out;
}

/** The capabilities of the built-in role `owner` in this relation (none when it has no owner). */
export function ownerCapabilities(rel: AccessRelation): readonly string[] {
  const key = [...rel.state.builtinNames].find(([, name]) => name === 'owner')?.[0];
  return key === undefined ? [] : rel.capabilitiesOf(key);
}

/** What `id` can obtain on `group`: what it holds there and what it can obtain there. */
export function canObtainAt(rel: AccessRelation, id: string, group: string): Set<string> {
  return new Set([...(holdsOf(rel, id).get(group) ?? []), ...(obtainableOf(rel, id).get(group)?.keys() ?? [])]);
}

/** A path in words: "holds role_bindings.create there through role deployer (roleBinding:engineering/bot=deployer)". */
export function describePath(rel: AccessRelation, path: readonly EscalationStep[], at: string): string {
  const where = (group: string): string => (group === at ? 'there' : `on ${rel.groups.get(group)?.address ?? group}`);
  return path
    .map((s) => {
      const through =
        s.through === undefined
          ? ''
          : s.through.startsWith('identityProvider:')
            ? ` and can repoint ${s.through} to sign it in`
            : ` and can make ${s.through} accept its token`;
      if (s.grant === undefined) return `can obtain ${s.capability} ${where(s.group)}${through}`;
      const record = rel.state.records.get(s.grant.record)?.address ?? s.grant.record;
      const role = rel.roleName(s.grant.role);
      return `holds ${s.capability} ${where(s.group)} through ${role.startsWith('role:') ? role : `role ${role}`} (${record})${through}`;
    })
    .join(', then ');
}

/**
 * What a gain of escalating capabilities lets `id` obtain on `group` (DESIGN.md §4: access changes
 * report it as what it can obtain): "can obtain all of owner on group:engineering: holds
 * role_bindings.create there through role:deployer (…)"; undefined when `gained` holds none.
 */
export function obtainsText(
  rel: AccessRelation,
  id: string,
  group: string,
  gained: readonly string[],
): string | undefined {
  if (!gained.some((c) => ESCALATING_NAMES.includes(c))) return undefined;
  const extra = obtainableOf(rel, id).get(group);
  if (!extra || extra.size === 0) return undefined;
  const held = holdsOf(rel, id).get(group);
  const owner = ownerCapabilities(rel);
  // An owner can obtain the rest of the catalog (through roles.update): no news in an access change.
  if (owner.length > 0 && owner.every((c) => held?.has(c))) return undefined;
  const all = owner.length > 0 && owner.every((c) => held?.has(c) || extra.has(c));
  const first = all ? owner.find((c) => extra.has(c))! : [...extra.keys()].sort()[0]!;
  const what = all ? 'all of owner' : `${extra.size} more capabilit${extra.size === 1 ? 'y' : 'ies'}`;
  return `can obtain ${what} on ${rel.groups.get(group)?.address ?? group}: ${describePath(rel, extra.get(first)!, group)}`;
}
