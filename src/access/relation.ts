/**
 * Effective access as one relation of (principal, capability, group) (DESIGN.md §4 "Effective
 * access" rev 5, STYLE.md 17), computed from a state (state.ts) — live, or the state a plan leads
 * to — and read by every view and gate: a plan's access changes and `--deny-new-access`,
 * `access`, `audit`, drift.
 *
 * A principal is who can act: whoever can present a token an identity accepts (`identity:`), a
 * person by e-mail through an invite (`email:`; an invite without one, whoever holds its code),
 * everyone in an identity provider's external group (`idp:<provider>/group:<name>`) and everyone
 * who signs in through it (`idp:<provider>/*`). A principal holds a capability on a group when a
 * grant on that group or an ancestor gives it a role that has it. What a kind is to access comes
 * from its descriptor; nothing here names a kind.
 */
import { accessPartOf, type AccessRecord, type AccessStateRecords } from './state.js';
import { acceptsWithin, describeRelationship, relationshipOf } from './relationships.js';
import { principalAdmits } from './admits.js';
import { splitByReach } from './change-reach.js';
import type { AccessPart } from '../model/kind-descriptor.js';
import type { AccessChange } from '../model/plan.js';
import { asciiLower } from '../model/email.js';
import { normalizeServicePrincipal } from '../model/identity-relationships.js';

/** Who can act. */
export interface Principal {
  id: string;
  /** Who it is: an identity's token holders, a person by e-mail, whoever holds an invite's code, an IdP's group, everyone who signs in through an IdP. */
  kind: 'identity' | 'email' | 'code' | 'externalGroup' | 'signIn';
  /** How it is shown: `identity:ci-bot`, `email:alice@acme.dev`, `idp:okta/group:admins`, `idp:okta/*`. */
  name: string;
  /** The identity's address, for an identity. */
  identity?: string;
  /** The identity record's key, for an identity. */
  identityKey?: string;
  /** An identity's relationship (who can present a token it accepts). */
  relationship?: { field: string; value: unknown };
  /** The e-mail, for a person. */
  email?: string;
  /** The record that makes it a principal (an identity, a provider), for "which steps cause it". */
  record?: string;
  /** Every identity record whose relationship it is (identities that accept the same tokens are one principal). */
  records?: string[];
}

/** One grant: a role given to a principal on a group. */
export interface Grant {
  principal: string;
  group: string;
  role: string;
  /** The record that grants it (a binding, an invite, a mapping, a provider). */
  record: string;
}

export interface AccessRelation {
  state: AccessStateRecords;
  groups: Map<string, { address: string; parent: string | null }>;
  principals: Map<string, Principal>;
  grantsOf: Map<string, Grant[]>;
  /** Children of each group. */
  children: Map<string, string[]>;
  capabilitiesOf(role: string): readonly string[];
  roleName(role: string): string;
}

const NONE: ReadonlySet<string> = new Set();
const MAX_DEPTH = 64;

/** The principal a grant record gives its role to (undefined: none it can name). */
function principalOfGrant(r: AccessRecord, part: Extract<AccessPart, { is: 'grant' }>, state: AccessStateRecords, identities: ReadonlyMap<string, Principal>): Principal | undefined {
  const value = part.principalField === undefined ? undefined : r.fields[part.principalField];
  switch (part.to) {
    case 'identity': {
      if (typeof value !== 'string') return undefined;
      return identities.get(value) ?? identityPrincipal(value, undefined);
    }
    case 'email': {
      if (typeof value === 'string' && value !== '') {
        const email = asciiLower(value);
        return { id: `email:${email}`, kind: 'email', name: `email:${email}`, email };
      }
      return { id: `code:${r.key}`, kind: 'code', name: `whoever holds the code of ${r.address}`, record: r.key };
    }
    case 'externalGroup': {
      if (typeof value !== 'string' || r.parent === null) return undefined;
      const idp = state.records.get(r.parent);
      // The claim that carries groups decides who "the group" is: another claim names other people (rev 6).
      return { id: `idp:${issuerOf(idp) ?? r.parent}/claim:${groupsClaimOf(idp)}/group:${value}`, kind: 'externalGroup', name: `idp:${idpPath(idp?.address ?? r.parent)}/group:${value}`, record: r.parent };
    }
    case 'signIn':
      return { id: `idp:${issuerOf(r) ?? r.key}/*`, kind: 'signIn', name: `idp:${idpPath(r.address)}/*`, record: r.key };
  }
}

const idpPath = (address: string): string => address.slice(address.indexOf(':') + 1);

/**
 * Who an identity provider's people are is its issuer (the provider that signs them in), not
 * where it lies: a provider renamed or moved keeps its people, one pointed at another issuer is
 * other people — a new principal, as a widened relationship is.
 */
function issuerOf(idp: AccessRecord | undefined): string | undefined {
  const oidc = idp?.fields.oidc;
  return oidc !== null && typeof oidc === 'object' && typeof (oidc as Record<string, unknown>).issuer === 'string' ? ((oidc as Record<string, unknown>).issuer as string) : undefined;
}

/** The claim an identity provider reads its people's groups from (JSON-quoted; `undefined` when not set). */
function groupsClaimOf(idp: AccessRecord | undefined): string {
  const oidc = idp?.fields.oidc;
  const claim = oidc !== null && typeof oidc === 'object' ? (oidc as Record<string, unknown>).groupsClaim : undefined;
  return typeof claim === 'string' ? JSON.stringify(claim) : 'undefined';
}

/**
 * An identity as a principal: whoever can present a token it accepts. Its id is its relationship,
 * so that identities accepting the same tokens are one principal (an identity deleted and made
 * again elsewhere with the same relationship is who it was), and a changed relationship is
 * another principal. An identity the org does not hold (a uid) is itself.
 */
function identityPrincipal(key: string, identity: AccessRecord | undefined): Principal {
  if (!identity) return { id: `identity:${key}`, kind: 'identity', name: `uid:${key}`, identityKey: key };
  const part = accessPartOf(identity.kind);
  const relationship = part?.is === 'principal' ? relationshipOf(identity.fields, part.relationship) : undefined;
  const email = typeof identity.fields.email === 'string' ? asciiLower(identity.fields.email) : undefined;
  const id = relationship ? principalIdOf(identity.fields, relationship) : `identity:${key}`;
  return { id, kind: 'identity', name: identity.address, identity: identity.address, identityKey: key, record: key, records: [key], ...(relationship ? { relationship } : {}), ...(email ? { email } : {}) };
}

/**
 * The id of a relationship, kept per fields object: the state a plan leads to shares the record
 * of every identity the plan leaves alone with live's, so each is spelled once per run.
 */
const principalIds = new WeakMap<object, string>();
function principalIdOf(fields: object, relationship: { field: string; value: unknown }): string {
  let id = principalIds.get(fields);
  if (id === undefined) principalIds.set(fields, (id = `accepts:${relationship.field}:${canonical(relationship.value)}`));
  return id;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(typeof value === 'string' ? normalizeServicePrincipal(value) : value);
}

/** Adds `p` to the principals, merging the identity records of one relationship (the first address in order names it). */
function addPrincipal(principals: Map<string, Principal>, p: Principal): Principal {
  const known = principals.get(p.id);
  if (!known) {
    principals.set(p.id, p);
    return p;
  }
  if (p.records) for (const r of p.records) if (!known.records?.includes(r)) (known.records ??= []).push(r);
  if (p.identity !== undefined && known.identity !== undefined && p.identity < known.identity) {
    known.identity = p.identity;
    known.name = p.name;
    known.identityKey = p.identityKey;
    known.record = p.record;
  }
  return known;
}

/**
 * The relation of a state. `now` (ms) decides which invites can still be accepted: an expired
 * one grants nothing (without `now`, every invite counts: pure code reads no clock).
 */
export function relationOf(state: AccessStateRecords, now?: number): AccessRelation {
  const groups = new Map<string, { address: string; parent: string | null }>();
  const roles = new Map<string, readonly string[]>();
  const roleNames = new Map<string, string>();
  for (const r of state.records.values()) {
    const part = accessPartOf(r.kind);
    if (part?.is === 'scope') groups.set(r.key, { address: r.address, parent: r.parent });
    else if (part?.is === 'capabilities') {
      const caps = r.fields[part.field];
      roles.set(r.key, Array.isArray(caps) ? (caps.filter((c) => typeof c === 'string') as string[]) : []);
      roleNames.set(r.key, r.address);
    }
  }
  const principals = new Map<string, Principal>();
  const grantsOf = new Map<string, Grant[]>();
  const orgKey = [...groups].find(([, g]) => g.parent === null)?.[0] ?? null;
  // Identities first (a grant names its identity by key), then the grants.
  const identities = new Map<string, Principal>();
  const grantRecords: AccessRecord[] = [];
  for (const r of state.records.values()) {
    const part = accessPartOf(r.kind);
    if (part?.is === 'principal') identities.set(r.key, addPrincipal(principals, identityPrincipal(r.key, r)));
    else if (part?.is === 'grant') grantRecords.push(r);
  }
  for (const r of grantRecords) {
    const part = accessPartOf(r.kind);
    if (part?.is !== 'grant') continue;
    const role = r.fields[part.role];
    if (typeof role !== 'string') continue;
    if (part.expiryField !== undefined) {
      const expiry = Date.parse(String(r.fields[part.expiryField]));
      if (now !== undefined && Number.isFinite(expiry) && expiry <= now) continue;
    }
    const scope = part.scopeField === undefined ? r.parent : r.fields[part.scopeField];
    const on = typeof scope === 'string' ? scope : part.scopeField !== undefined ? orgKey : null;
    if (on === null) continue;
    const found = principalOfGrant(r, part, state, identities);
    if (!found) continue;
    const p = principals.get(found.id) ?? addPrincipal(principals, found);
    const list = grantsOf.get(p.id);
    const grant = { principal: p.id, group: on, role, record: r.key };
    if (list) list.push(grant);
    else grantsOf.set(p.id, [grant]);
  }
  const children = new Map<string, string[]>();
  for (const [key, g] of groups) {
    if (g.parent === null) continue;
    const list = children.get(g.parent);
    if (list) list.push(key);
    else children.set(g.parent, [key]);
  }
  return {
    state,
    groups,
    principals,
    grantsOf,
    children,
    capabilitiesOf: (role) => roles.get(role) ?? state.builtinCapabilities.get(role) ?? [],
    roleName: (role) => state.builtinNames.get(role) ?? roleNames.get(role) ?? `uid:${role}`,
  };
}

/** What `principals` hold together on every group of the relation where they hold anything. */
export function holdingsOf(rel: AccessRelation, ...principals: string[]): Map<string, ReadonlySet<string>> {
  const direct = new Map<string, Set<string>>();
  for (const id of principals) {
    for (const g of rel.grantsOf.get(id) ?? []) {
      if (!rel.groups.has(g.group)) continue;
      let caps = direct.get(g.group);
      if (!caps) direct.set(g.group, (caps = new Set()));
      for (const c of rel.capabilitiesOf(g.role)) caps.add(c);
    }
  }
  const out = new Map<string, ReadonlySet<string>>();
  const visit = (group: string, inherited: ReadonlySet<string>, depth: number): void => {
    if (out.has(group) || depth > MAX_DEPTH) return;
    const own = direct.get(group);
    const caps = own && own.size > 0 ? new Set([...inherited, ...own]) : inherited;
    out.set(group, caps);
    for (const child of rel.children.get(group) ?? []) visit(child, caps, depth + 1);
  };
  // Top-down: a group's ancestors first, so that what it inherits is known when it is visited.
  const tops = [...direct.keys()].sort((x, y) => depthOf(rel, x) - depthOf(rel, y));
  for (const top of tops) if (!out.has(top)) visit(top, inheritedAt(rel, top, direct), 0);
  return out;
}

/** What the ancestors of `group` give through `direct`. */
function inheritedAt(rel: AccessRelation, group: string, direct: ReadonlyMap<string, ReadonlySet<string>>): ReadonlySet<string> {
  const caps = new Set<string>();
  let g = rel.groups.get(group)?.parent ?? null;
  for (let depth = 0; g !== null && depth < MAX_DEPTH; depth++) {
    for (const c of direct.get(g) ?? NONE) caps.add(c);
    g = rel.groups.get(g)?.parent ?? null;
  }
  return caps;
}

function depthOf(rel: AccessRelation, group: string): number {
  let n = 0;
  for (let g = rel.groups.get(group)?.parent ?? null; g !== null && n < MAX_DEPTH; g = rel.groups.get(g)?.parent ?? null) n++;
  return n;
}

/** Whether `group` is `top` or lies below it. */
export function isWithin(rel: AccessRelation, group: string, top: string): boolean {
  for (let g: string | null = group, depth = 0; g !== null && depth <= MAX_DEPTH; g = rel.groups.get(g)?.parent ?? null, depth++) if (g === top) return true;
  return false;
}


/** The built-in role whose capabilities are exactly `caps` (more than a few), if any. */
function roleOfExactly(rel: AccessRelation, caps: readonly string[]): string | undefined {
  if (caps.length < 4) return undefined;
  for (const [key, roleCaps] of rel.state.builtinCapabilities) {
    if (roleCaps.length === caps.length && roleCaps.every((c) => caps.includes(c))) return rel.state.builtinNames.get(key);
  }
  return undefined;
}

/**
 * The nearest group of `rel` at or above `group` of `other` (a group one side lacks takes what its
 * nearest ancestor there holds: DESIGN.md §4 "Scopes the plan creates").
 */
function nearestIn(rel: AccessRelation, other: AccessRelation, group: string): string | undefined {
  for (let g: string | null = group, depth = 0; g !== null && depth <= MAX_DEPTH; g = other.groups.get(g)?.parent ?? null, depth++) if (rel.groups.has(g)) return g;
  return undefined;
}

function heldAt(rel: AccessRelation, other: AccessRelation, holdings: Map<string, ReadonlySet<string>>, group: string): ReadonlySet<string> {
  // `holdings` holds every group below a grant (holdingsOf), so a group it lacks holds nothing.
  const at = rel.groups.has(group) ? group : nearestIn(rel, other, group);
  return at === undefined ? NONE : (holdings.get(at) ?? NONE);
}

/** Principals whose access can differ between two relations: those whose grants, roles or identities changed. */
function touched(before: AccessRelation, after: AccessRelation): Set<string> {
  const out = new Set<string>();
  const changedRecords = new Set<string>();
  for (const r of after.state.records.values()) if (r.step !== undefined || !before.state.records.has(r.key)) changedRecords.add(r.key);
  for (const key of before.state.records.keys()) if (!after.state.records.has(key)) changedRecords.add(key);
  for (const rel of [before, after]) {
    for (const [id, grants] of rel.grantsOf) {
      const p = rel.principals.get(id);
      if (grants.some((g) => changedRecords.has(g.record) || changedRecords.has(g.role)) || (p?.records ?? (p?.record ? [p.record] : [])).some((r) => changedRecords.has(r))) out.add(id);
    }
  }
  return out;
}

/** Steps behind a principal's change: what made, changed or removed its grants, their roles and the principal itself. */
function causesOf(before: AccessRelation, after: AccessRelation, id: string): string[] {
  const out = new Set<string>();
  const stepOf = (key: string): void => {
    const s = after.state.records.get(key)?.step ?? after.state.removed.get(key)?.step;
    if (s !== undefined) out.add(s);
  };
  for (const rel of [before, after]) {
    for (const g of rel.grantsOf.get(id) ?? []) {
      stepOf(g.record);
      stepOf(g.role);
    }
    const p = rel.principals.get(id);
    for (const r of p?.records ?? (p?.record ? [p.record] : [])) stepOf(r);
  }
  return [...out].sort();
}

/** The principals of `rel` that accept every token `p` accepts: itself when there, and every identity whose relationship holds it. */
function covering(rel: AccessRelation, p: Principal): string[] {
  const out = rel.principals.has(p.id) ? [p.id] : [];
  if (p.relationship === undefined) return out;
  const index = (coveringIndexes.get(rel) ?? coveringIndexes.set(rel, anchorIndex(rel)).get(rel))!;
  for (const anchor of anchorsThatMayHold(p.relationship)) {
    for (const q of index.get(anchor) ?? []) {
      if (q.id !== p.id && acceptsWithin(p.relationship, q.relationship!)) out.push(q.id);
    }
  }
  return out;
}

/**
 * Which relationships could accept every token of another, found by an anchor instead of trying
 * every principal of the org (tens of thousands at 100k resources): a relationship can hold only
 * one of its own kind with the same exact issuer and subject (or keys, or account, or service),
 * or one whose subject or issuer is a pattern.
 */
const coveringIndexes = new WeakMap<AccessRelation, Map<string, Principal[]>>();

function anchorOf(rel: { field: string; value: unknown }): string {
  const v = (rel.value !== null && typeof rel.value === 'object' ? rel.value : {}) as Record<string, unknown>;
  switch (rel.field) {
    case 'claimMatch':
      if (typeof v.issuer !== 'string') return 'cm**';
      return typeof v.subject === 'string' ? `cm|${v.issuer}|${v.subject}` : `cm*|${v.issuer}`;
    case 'staticKeys':
      return `sk|${String(v.issuer)}|${String(v.subject)}|${String(v.issuerKeys)}`;
    case 'awsIdentity':
      return `aws|${String(v.awsAccount)}`;
    default:
      return `${rel.field}|${typeof rel.value === 'string' ? rel.value.replace(/^SERVICE_PRINCIPAL_/, '') : JSON.stringify(rel.value)}`;
  }
}

/** The anchors of every relationship that may accept all the tokens `rel` accepts. */
function anchorsThatMayHold(rel: { field: string; value: unknown }): string[] {
  const own = anchorOf(rel);
  if (rel.field !== 'claimMatch') return [own];
  const issuer = (rel.value as Record<string, unknown>).issuer;
  if (own === 'cm**') return ['cm**'];
  return own.startsWith('cm*|') ? [own, 'cm**'] : [own, `cm*|${String(issuer)}`, 'cm**'];
}

function anchorIndex(rel: AccessRelation): Map<string, Principal[]> {
  const index = new Map<string, Principal[]>();
  for (const q of rel.principals.values()) {
    if (q.relationship === undefined || !rel.grantsOf.has(q.id)) continue;
    const anchor = anchorOf(q.relationship);
    const list = index.get(anchor);
    if (list) list.push(q);
    else index.set(anchor, [q]);
  }
  return index;
}

/**
 * The access changes from `before` to `after`, per principal and capability, each once at the
 * highest group where it starts, with the number of groups where it really changes and the steps
 * that cause it. A principal gains what it holds after beyond what every principal that accepted
 * all its tokens held before (an identity made again with the same relationship gains nothing; a
 * widened one gains all it holds), and loses the same way. `principals`: only these (default:
 * every principal either side can change).
 */
export function diffRelations(before: AccessRelation, after: AccessRelation, principals: ReadonlySet<string> = touched(before, after)): AccessChange[] {
  const changes: AccessChange[] = [];
  for (const id of [...principals].sort()) {
    const was = before.principals.get(id);
    const now = after.principals.get(id);
    const candidates = new Set<string>();
    for (const rel of [before, after]) for (const g of rel.grantsOf.get(id) ?? []) collectSubtree(rel, g.group, candidates);
    // Gains: what it holds after beyond what held all its tokens before; losses the other way round.
    const gainedAt = heldBeyond(after, before, id, now, candidates);
    const lostAt = heldBeyond(before, after, id, was, candidates);
    if (gainedAt.size === 0 && lostAt.size === 0) continue;
    const p = now ?? was!;
    const causes = causesOf(before, after, id);
    // An identity that was there with another relationship: who can act as it changed.
    const old = now?.identityKey === undefined || was !== undefined ? undefined : formerRelationship(before, now.identityKey);
    const widened = now?.relationship !== undefined && old !== undefined ? describeRelationship(now.relationship, old) : undefined;
    const gainName = widened !== undefined ? `${now!.name} (${widened})` : p.name;
    // Who each side admits, when broad (admits.ts: what audit judges): a gain by who can act now, a loss by who could.
    const admits = { gained: now ? principalAdmits(now) : [], lost: was ? principalAdmits(was) : [] };
    const saying = admits.gained.length > 0 ? ` — ${admits.gained.join('; ')}` : '';
    const note = widened !== undefined ? `${now!.name} now also accepts ${widened}${saying}` : undefined;
    // The tokens it accepted before and no longer: named by what it accepted.
    const nowRelationship = was?.identityKey === undefined || now !== undefined ? undefined : formerRelationship(after, was.identityKey);
    const lossName = was?.relationship !== undefined && nowRelationship !== undefined ? `${was.name} (${describeRelationship(was.relationship, nowRelationship)})` : (was ?? p).name;
    const byScope = new Map<string, AccessChange>();
    const at = (name: string, scope: string): AccessChange => {
      const k = `${name}\u0000${scope}`;
      let c = byScope.get(k);
      if (!c) byScope.set(k, (c = { principal: name, ...(p.identity ? { identity: p.identity } : {}), scope, gained: [], lost: [], groups: 0, causes }));
      return c;
    };
    const parentOf = (g: string): string | null => after.groups.get(g)?.parent ?? before.groups.get(g)?.parent ?? null;
    const addressOf = (g: string): string => after.groups.get(g)?.address ?? before.groups.get(g)!.address;
    const topOf = new Map<AccessChange, string>();
    for (const [changed, direction, name] of [[gainedAt, 'gained', gainName], [lostAt, 'lost', lossName]] as const) {
      for (const [g, caps] of changed) {
        const parent = parentOf(g);
        const up = parent === null ? undefined : changed.get(parent);
        const top = [...caps].filter((c) => !up?.has(c)).sort();
        if (top.length === 0) continue;
        const c = at(name, addressOf(g));
        topOf.set(c, g);
        c[direction].push(...top);
        if (direction === 'gained' && note !== undefined) c.note = note;
        if (admits[direction].length > 0) c.admits = admits[direction];
      }
    }
    for (const whole of byScope.values()) {
      const top = topOf.get(whole)!;
      const below = [...candidates].filter((g) => isWithinEither(before, after, g, top)).sort();
      // One entry per reach: a capability still held below through another grant is not lost there.
      for (const c of splitByReach(whole, below, (direction, g) => (direction === 'gained' ? gainedAt : lostAt).get(g))) {
        const gainedRole = roleOfExactly(after, c.gained);
        const lostRole = roleOfExactly(before, c.lost);
        if (gainedRole !== undefined) c.gainedRole = gainedRole;
        if (lostRole !== undefined) c.lostRole = lostRole;
        changes.push(c);
      }
    }
  }
  return changes.sort((a, b) => (a.principal < b.principal ? -1 : a.principal > b.principal ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
}

/**
 * Where principal `id` (`p` in `rel`) holds in `rel` what every principal of `other` that accepts
 * all its tokens did not hold there: each candidate group's capabilities beyond.
 */
function heldBeyond(rel: AccessRelation, other: AccessRelation, id: string, p: Principal | undefined, candidates: ReadonlySet<string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  if (p === undefined || !rel.grantsOf.has(id)) return out;
  const mine = holdingsOf(rel, id);
  const theirs = holdingsOf(other, ...covering(other, p));
  for (const g of candidates) {
    const had = heldAt(other, rel, theirs, g);
    const beyond = new Set([...heldAt(rel, other, mine, g)].filter((c) => !had.has(c)));
    if (beyond.size > 0) out.set(g, beyond);
  }
  return out;
}

/** The relationship an identity record had in `rel` (undefined: it was not there). */
function formerRelationship(rel: AccessRelation, key: string): { field: string; value: unknown } | undefined {
  const r = rel.state.records.get(key);
  const part = r ? accessPartOf(r.kind) : undefined;
  return r && part?.is === 'principal' ? relationshipOf(r.fields, part.relationship) : undefined;
}
function collectSubtree(rel: AccessRelation, top: string, into: Set<string>): void {
  const stack = [top];
  while (stack.length > 0) {
    const g = stack.pop()!;
    if (into.has(g) && g !== top) continue;
    into.add(g);
    for (const child of rel.children.get(g) ?? []) if (!into.has(child)) stack.push(child);
  }
}

function isWithinEither(before: AccessRelation, after: AccessRelation, group: string, top: string): boolean {
  return (after.groups.has(group) && isWithin(after, group, top)) || (before.groups.has(group) && isWithin(before, group, top));
}
