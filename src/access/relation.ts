/**
 * Effective access as one relation of (principal, capability, group) (DESIGN.md §4 "Effective
 * access" rev 5, STYLE.md 17), computed from a state (state.ts) — live, or the state a plan leads
 * to — and read by every view and gate: a plan's access changes and `--deny-new-access`,
 * `access`, `audit`, drift. Its two other views beside what a principal holds: access-diff.ts
 * (what changes between two relations) and escalation.ts (what a principal can obtain).
 *
 * A principal is who can act: whoever can present a token an identity accepts (`identity:`), a
 * person by e-mail through an invite (`email:`; an invite without one, whoever holds its code),
 * everyone in an identity provider's external group (`idp:<provider>/group:<name>`) and everyone
 * who signs in through it (`idp:<provider>/*`). A principal holds a capability on a group when a
 * grant on that group or an ancestor gives it a role that has it. What a kind is to access comes
 * from its descriptor; nothing here names a kind.
 */
import { accessPartOf, type AccessRecord, type AccessStateRecords } from './state.js';
import { relationshipOf } from './relationships.js';
import { type AccessPart, canonicalJson } from '../model/kind-descriptor.js';
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
function principalOfGrant(
  r: AccessRecord,
  part: Extract<AccessPart, { is: 'grant' }>,
  state: AccessStateRecords,
  identities: { get(key: string): Principal | undefined },
): Principal | undefined {
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
      return {
        id: `idp:${issuerOf(idp) ?? r.parent}/claim:${groupsClaimOf(idp)}/group:${value}`,
        kind: 'externalGroup',
        name: `idp:${idpPath(idp?.address ?? r.parent)}/group:${value}`,
        record: r.parent,
      };
    }
    case 'signIn':
      return {
        id: `idp:${issuerOf(r) ?? r.key}/*`,
        kind: 'signIn',
        name: `idp:${idpPath(r.address)}/*`,
        record: r.key,
      };
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
  return oidc !== null && typeof oidc === 'object' && typeof (oidc as Record<string, unknown>).issuer === 'string'
    ? ((oidc as Record<string, unknown>).issuer as string)
    : undefined;
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
export function identityPrincipal(key: string, identity: AccessRecord | undefined): Principal {
  if (!identity) return { id: `identity:${key}`, kind: 'identity', name: `uid:${key}`, identityKey: key };
  const relationship = relationshipOfRecord(identity);
  const email = typeof identity.fields.email === 'string' ? asciiLower(identity.fields.email) : undefined;
  const id = relationship ? principalIdOf(relationship) : `identity:${key}`;
  return {
    id,
    kind: 'identity',
    name: identity.address,
    identity: identity.address,
    identityKey: key,
    record: key,
    records: [key],
    ...(relationship ? { relationship } : {}),
    ...(email ? { email } : {}),
  };
}

/** An identity record's relationship: the field that holds it and its value (undefined: none, or not an identity). */
export function relationshipOfRecord(r: AccessRecord | undefined): { field: string; value: unknown } | undefined {
  const part = r && accessPartOf(r.kind);
  return part?.is === 'principal' ? relationshipOf(r!.fields, part.relationship) : undefined;
}

/** A role record's capabilities: the strings it lists (none when it lists none, or is no role). */
export function capabilitiesOfRecord(r: AccessRecord): string[] {
  const part = accessPartOf(r.kind);
  const caps = part?.is === 'capabilities' ? r.fields[part.field] : undefined;
  return Array.isArray(caps) ? (caps.filter((c) => typeof c === 'string') as string[]) : [];
}

/** The id of a relationship: one spelling of a service principal (short or in full); every other value as it is. */
function principalIdOf(relationship: { field: string; value: unknown }): string {
  const value =
    relationship.field === 'servicePrincipal' ? normalizeServicePrincipal(relationship.value) : relationship.value;
  return `accepts:${relationship.field}:${canonicalJson(value)}`;
}

/** Adds `p` to the principals, merging the identity records of one relationship (the first address in order names it). */
export function addPrincipal(principals: Map<string, Principal>, p: Principal): Principal {
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

/** What a relation is built from beyond what it shows: kept for the planned relation (planned-relation.ts) to start from. */
export interface RelationParts {
  roles: Map<string, readonly string[]>;
  roleNames: Map<string, string>;
  /** Identity records → their principal. */
  identities: Map<string, Principal>;
  /** The org's group: where a grant whose scope field is not a key lies. */
  orgKey: string | null;
  now: number | undefined;
}

const partsOfRelation = new WeakMap<AccessRelation, RelationParts>();

/** The parts `relationOf` built `rel` from (undefined: it was not built by `relationOf`). */
export function relationParts(rel: AccessRelation): RelationParts | undefined {
  return partsOfRelation.get(rel);
}

/**
 * The grant a grant record gives in `state`, with the principal it names (undefined: none — no
 * role, expired at `now`, no group, no principal it can name).
 */
export function grantOfRecord(
  r: AccessRecord,
  state: AccessStateRecords,
  identities: { get(key: string): Principal | undefined },
  orgKey: string | null,
  now: number | undefined,
): { principal: Principal; grant: Grant } | undefined {
  const part = accessPartOf(r.kind);
  if (part?.is !== 'grant') return undefined;
  const role = r.fields[part.role];
  if (typeof role !== 'string') return undefined;
  if (part.expiryField !== undefined) {
    const expiry = Date.parse(String(r.fields[part.expiryField]));
    if (now !== undefined && Number.isFinite(expiry) && expiry <= now) return undefined;
  }
  const scope = part.scopeField === undefined ? r.parent : r.fields[part.scopeField];
  const on = typeof scope === 'string' ? scope : part.scopeField !== undefined ? orgKey : null;
  if (on === null) return undefined;
  const principal = principalOfGrant(r, part, state, identities);
  if (!principal) return undefined;
  return { principal, grant: { principal: principal.id, group: on, role, record: r.key } };
}

/** The children of each group, in the groups' order. */
export function childrenOf(groups: ReadonlyMap<string, { parent: string | null }>): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const [key, g] of groups) {
    if (g.parent === null) continue;
    const list = children.get(g.parent);
    if (list) list.push(key);
    else children.set(g.parent, [key]);
  }
  return children;
}

/** A relation of its parts. */
export function assembleRelation(
  state: AccessStateRecords,
  shown: Pick<AccessRelation, 'groups' | 'principals' | 'grantsOf' | 'children'>,
  roles: ReadonlyMap<string, readonly string[]>,
  roleNames: ReadonlyMap<string, string>,
): AccessRelation {
  return {
    state,
    groups: shown.groups,
    principals: shown.principals,
    grantsOf: shown.grantsOf,
    children: shown.children,
    capabilitiesOf: (role) => roles.get(role) ?? state.builtinCapabilities.get(role) ?? [],
    roleName: (role) => state.builtinNames.get(role) ?? roleNames.get(role) ?? `uid:${role}`,
  };
}

/** The org's group: the first group without a parent. */
export function orgKeyOf(groups: ReadonlyMap<string, { parent: string | null }>): string | null {
  for (const [key, g] of groups) if (g.parent === null) return key;
  return null;
}

/** Whether two lists of capabilities hold the same ones, however often each is listed (a live role's list is untrusted). */
export function sameCapabilities(a: readonly string[], b: readonly string[]): boolean {
  return a.every((c) => b.includes(c)) && b.every((c) => a.includes(c));
}

/**
 * The relation of a state, from scratch (the reference the planned relation is held to). `now`
 * (ms) decides which invites can still be accepted: an expired one grants nothing (without
 * `now`, every invite counts: pure code reads no clock).
 */
export function relationOf(state: AccessStateRecords, now?: number): AccessRelation {
  const groups = new Map<string, { address: string; parent: string | null }>();
  const roles = new Map<string, readonly string[]>();
  const roleNames = new Map<string, string>();
  for (const r of state.records.values()) {
    const part = accessPartOf(r.kind);
    if (part?.is === 'scope') groups.set(r.key, { address: r.address, parent: r.parent });
    else if (part?.is === 'capabilities') {
      roles.set(r.key, capabilitiesOfRecord(r));
      roleNames.set(r.key, r.address);
    }
  }
  const principals = new Map<string, Principal>();
  const grantsOf = new Map<string, Grant[]>();
  const orgKey = orgKeyOf(groups);
  // Identities first (a grant names its identity by key), then the grants.
  const identities = new Map<string, Principal>();
  const grantRecords: AccessRecord[] = [];
  for (const r of state.records.values()) {
    const part = accessPartOf(r.kind);
    if (part?.is === 'principal') identities.set(r.key, addPrincipal(principals, identityPrincipal(r.key, r)));
    else if (part?.is === 'grant') grantRecords.push(r);
  }
  for (const r of grantRecords) {
    const found = grantOfRecord(r, state, identities, orgKey, now);
    if (!found) continue;
    const p = principals.get(found.principal.id) ?? addPrincipal(principals, found.principal);
    const list = grantsOf.get(p.id);
    if (list) list.push(found.grant);
    else grantsOf.set(p.id, [found.grant]);
  }
  const rel = assembleRelation(state, { groups, principals, grantsOf, children: childrenOf(groups) }, roles, roleNames);
  partsOfRelation.set(rel, { roles, roleNames, identities, orgKey, now });
  return rel;
}

/** What `principals` hold together on every group of the relation where they hold anything. */
export function holdingsOf(rel: AccessRelation, ...principals: string[]): Map<string, ReadonlySet<string>> {
  return holdingsOfGrants(
    rel,
    principals.flatMap((id) => rel.grantsOf.get(id) ?? []),
  );
}

/** What some grants give, per group: each grant's role on its group and every group below. */
export function holdingsOfGrants(rel: AccessRelation, grants: Iterable<Grant>): Map<string, ReadonlySet<string>> {
  const direct = new Map<string, Set<string>>();
  for (const g of grants) {
    if (!rel.groups.has(g.group)) continue;
    let caps = direct.get(g.group);
    if (!caps) direct.set(g.group, (caps = new Set()));
    for (const c of rel.capabilitiesOf(g.role)) caps.add(c);
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
function inheritedAt(
  rel: AccessRelation,
  group: string,
  direct: ReadonlyMap<string, ReadonlySet<string>>,
): ReadonlySet<string> {
  const caps = new Set<string>();
  let g = rel.groups.get(group)?.parent ?? null;
  for (let depth = 0; g !== null && depth < MAX_DEPTH; depth++) {
    for (const c of direct.get(g) ?? NONE) caps.add(c);
    g = rel.groups.get(g)?.parent ?? null;
  }
  return caps;
}

/** How many groups lie above `group`. */
export function depthOf(rel: AccessRelation, group: string): number {
  let n = 0;
  for (
    let g = rel.groups.get(group)?.parent ?? null;
    g !== null && n < MAX_DEPTH;
    g = rel.groups.get(g)?.parent ?? null
  )
    n++;
  return n;
}

/** Whether `group` is `top` or lies below it. */
export function isWithin(rel: AccessRelation, group: string, top: string): boolean {
  for (
    let g: string | null = group, depth = 0;
    g !== null && depth <= MAX_DEPTH;
    g = rel.groups.get(g)?.parent ?? null, depth++
  )
    if (g === top) return true;
  return false;
}
