/**
 * Access changes (DESIGN.md §4 "Access changes"): the difference of two relations — live and the
 * state a plan leads to — per principal and capability, each once at the highest group where it
 * starts, with the number of groups where it really changes and the steps that cause it. Pure.
 */
import { describeRelationship } from './relationships.js';
import { principalAdmits } from './admits.js';
import { splitByReach } from './change-reach.js';
import { covering } from './covering.js';
import { holdsOf, obtainsText, ownerCapabilities } from './escalation.js';
import { ESCALATING } from '../service/catalog.js';
import {
  holdingsOf,
  isWithin,
  relationshipOfRecord,
  sameCapabilities,
  type AccessRelation,
  type Principal,
} from './relation.js';
import type { AccessChange } from '../model/plan.js';

const NONE: ReadonlySet<string> = new Set();
const MAX_DEPTH = 64;

/** The built-in role whose capabilities are exactly `caps` (more than a few), if any. */
function roleOfExactly(rel: AccessRelation, caps: readonly string[]): string | undefined {
  if (caps.length < 4) return undefined;
  for (const [key, roleCaps] of rel.state.builtinCapabilities) {
    if (roleCaps.length === caps.length && roleCaps.every((c) => caps.includes(c)))
      return rel.state.builtinNames.get(key);
  }
  return undefined;
}

/**
 * The nearest group of `rel` at or above `group` of `other` (a group one side lacks takes what its
 * nearest ancestor there holds: DESIGN.md §4 "Scopes the plan creates").
 */
function nearestIn(rel: AccessRelation, other: AccessRelation, group: string): string | undefined {
  for (
    let g: string | null = group, depth = 0;
    g !== null && depth <= MAX_DEPTH;
    g = other.groups.get(g)?.parent ?? null, depth++
  )
    if (rel.groups.has(g)) return g;
  return undefined;
}

function heldAt(
  rel: AccessRelation,
  other: AccessRelation,
  holdings: Map<string, ReadonlySet<string>>,
  group: string,
): ReadonlySet<string> {
  // `holdings` holds every group below a grant (holdingsOf), so a group it lacks holds nothing.
  const at = rel.groups.has(group) ? group : nearestIn(rel, other, group);
  return at === undefined ? NONE : (holdings.get(at) ?? NONE);
}

/**
 * Principals whose access can differ between two relations: those whose grants or own records
 * changed, or who hold a grant of a role whose capabilities changed.
 */
export function touchedPrincipals(before: AccessRelation, after: AccessRelation): Set<string> {
  const changed = new Set<string>();
  for (const r of after.state.records.values())
    if (r.step !== undefined || !before.state.records.has(r.key)) changed.add(r.key);
  for (const key of before.state.records.keys()) if (!after.state.records.has(key)) changed.add(key);
  const roles = rolesChanged(before, after, changed);
  const out = new Set<string>();
  addTouched(before, changed, roles, before.grantsOf.keys(), out);
  addTouched(after, changed, roles, after.grantsOf.keys(), out);
  return out;
}

/** The keys among `changed` whose capabilities as a role differ between the two relations. */
export function rolesChanged(
  before: AccessRelation,
  after: AccessRelation,
  changed: Iterable<string>,
): ReadonlySet<string> {
  const out = new Set<string>();
  for (const key of changed) {
    const [was, now] = [before.capabilitiesOf(key), after.capabilitiesOf(key)];
    if (!sameCapabilities(was, now)) out.add(key);
  }
  return out;
}

/**
 * Adds to `out` each of `ids` that holds a grant in `rel` whose record is `changed` or whose role
 * is one of `roles`, or whose own record is `changed`.
 */
export function addTouched(
  rel: AccessRelation,
  changed: ReadonlySet<string>,
  roles: ReadonlySet<string>,
  ids: Iterable<string>,
  out: Set<string>,
): void {
  next: for (const id of ids) {
    if (out.has(id)) continue;
    const grants = rel.grantsOf.get(id);
    if (grants === undefined) continue;
    for (const g of grants)
      if (changed.has(g.record) || roles.has(g.role)) {
        out.add(id);
        continue next;
      }
    const p = rel.principals.get(id);
    if (p?.records !== undefined) {
      for (const r of p.records)
        if (changed.has(r)) {
          out.add(id);
          continue next;
        }
    } else if (p?.record && changed.has(p.record)) out.add(id);
  }
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

/**
 * The access changes from `before` to `after`, per principal and capability, each once at the
 * highest group where it starts, with the number of groups where it really changes and the steps
 * that cause it. A principal gains what it holds after beyond what every principal that accepted
 * all its tokens held before (an identity made again with the same relationship gains nothing; a
 * widened one gains all it holds), and loses the same way. `principals`: only these (default:
 * every principal either side can change). `wholeAfter`: the whole relation `after` holds only some
 * principals of (touched-relations.ts), for what a gain lets a principal obtain (escalation.ts
 * reads every identity below a group for that).
 */
export function diffRelations(
  before: AccessRelation,
  after: AccessRelation,
  principals: ReadonlySet<string> = touchedPrincipals(before, after),
  wholeAfter?: () => AccessRelation,
): AccessChange[] {
  const changes: AccessChange[] = [];
  for (const id of [...principals].sort()) {
    const was = before.principals.get(id);
    const now = after.principals.get(id);
    const candidates = new Set<string>();
    for (const rel of [before, after])
      for (const g of rel.grantsOf.get(id) ?? []) collectSubtree(rel, g.group, candidates);
    // Gains: what it holds after beyond what held all its tokens before; losses the other way round.
    const holdings = holdingsMemo();
    const gainedAt = heldBeyond(holdings, after, before, id, now, candidates);
    const lostAt = heldBeyond(holdings, before, after, id, was, candidates);
    if (gainedAt.size === 0 && lostAt.size === 0) continue;
    const p = now ?? was!;
    const causes = causesOf(before, after, id);
    // An identity that was there with another relationship: who can act as it changed.
    const old =
      now?.identityKey === undefined || was !== undefined ? undefined : formerRelationship(before, now.identityKey);
    const widened =
      now?.relationship !== undefined && old !== undefined ? describeRelationship(now.relationship, old) : undefined;
    const gainName = widened !== undefined ? `${now!.name} (${widened})` : p.name;
    // Who each side admits, when broad (admits.ts: what audit judges): a gain by who can act now, a loss by who could.
    const admits = { gained: now ? principalAdmits(now) : [], lost: was ? principalAdmits(was) : [] };
    const saying = admits.gained.length > 0 ? ` — ${admits.gained.join('; ')}` : '';
    const note = widened !== undefined ? `${now!.name} now also accepts ${widened}${saying}` : undefined;
    // The tokens it accepted before and no longer: named by what it accepted.
    const nowRelationship =
      was?.identityKey === undefined || now !== undefined ? undefined : formerRelationship(after, was.identityKey);
    const lossName =
      was?.relationship !== undefined && nowRelationship !== undefined
        ? `${was.name} (${describeRelationship(was.relationship, nowRelationship)})`
        : (was ?? p).name;
    const byScope = new Map<string, AccessChange>();
    const at = (name: string, scope: string): AccessChange => {
      const k = `${name}\u0000${scope}`;
      let c = byScope.get(k);
      if (!c)
        byScope.set(
          k,
          (c = {
            principal: name,
            ...(p.identity ? { identity: p.identity } : {}),
            scope,
            gained: [],
            lost: [],
            groups: 0,
            causes,
          }),
        );
      return c;
    };
    const parentOf = (g: string): string | null => after.groups.get(g)?.parent ?? before.groups.get(g)?.parent ?? null;
    const addressOf = (g: string): string => after.groups.get(g)?.address ?? before.groups.get(g)!.address;
    const topOf = new Map<AccessChange, string>();
    for (const [changed, direction, name] of [
      [gainedAt, 'gained', gainName],
      [lostAt, 'lost', lossName],
    ] as const) {
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
      for (const c of splitByReach(whole, below, (direction, g) =>
        (direction === 'gained' ? gainedAt : lostAt).get(g),
      )) {
        const gainedRole = roleOfExactly(after, c.gained);
        const lostRole = roleOfExactly(before, c.lost);
        if (gainedRole !== undefined) c.gainedRole = gainedRole;
        if (lostRole !== undefined) c.lostRole = lostRole;
        // A gained escalating capability: what it lets the principal obtain there (escalation.ts).
        const at = c.gained.some((cap) => Object.hasOwn(ESCALATING, cap))
          ? [...after.groups].find(([, g]) => g.address === c.scope)?.[0]
          : undefined;
        const obtains = at === undefined ? undefined : obtainsIn(after, wholeAfter, id, at, c.gained);
        if (obtains !== undefined) c.obtains = obtains;
        changes.push(c);
      }
    }
  }
  return changes.sort((a, b) =>
    a.principal < b.principal ? -1 : a.principal > b.principal ? 1 : a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0,
  );
}

/**
 * `obtainsText` of the whole relation: of `after` itself when it is whole, or when the principal
 * is an owner there (who obtains nothing more worth saying: decided by what it holds alone).
 */
function obtainsIn(
  after: AccessRelation,
  whole: (() => AccessRelation) | undefined,
  id: string,
  at: string,
  gained: readonly string[],
): string | undefined {
  if (whole === undefined) return obtainsText(after, id, at, gained);
  const owner = ownerCapabilities(after);
  const held = holdsOf(after, id).get(at);
  if (owner.length > 0 && owner.every((c) => held?.has(c))) return undefined;
  return obtainsText(whole(), id, at, gained);
}

/**
 * Where principal `id` (`p` in `rel`) holds in `rel` what every principal of `other` that accepts
 * all its tokens did not hold there: each candidate group's capabilities beyond.
 */
function heldBeyond(
  holdings: Holdings,
  rel: AccessRelation,
  other: AccessRelation,
  id: string,
  p: Principal | undefined,
  candidates: ReadonlySet<string>,
): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  if (p === undefined || !rel.grantsOf.has(id)) return out;
  const mine = holdings(rel, [id]);
  const theirs = holdings(other, covering(other, p));
  for (const g of candidates) {
    const had = heldAt(other, rel, theirs, g);
    const held = heldAt(rel, other, mine, g);
    if (held === had) continue;
    let beyond: Set<string> | undefined;
    for (const c of held) if (!had.has(c)) (beyond ??= new Set()).add(c);
    if (beyond !== undefined) out.set(g, beyond);
  }
  return out;
}

/** What some principals hold together in a relation (`holdingsOf`), each set of them worked out once. */
type Holdings = (rel: AccessRelation, ids: readonly string[]) => Map<string, ReadonlySet<string>>;

/**
 * `holdingsOf`, kept per relation and principals for one principal's changes: a principal on both
 * sides is covered by itself, so what it holds before is read for its losses and its gains alike.
 */
function holdingsMemo(): Holdings {
  const memo = new Map<AccessRelation, Map<string, Map<string, ReadonlySet<string>>>>();
  return (rel, ids) => {
    let ofRel = memo.get(rel);
    if (ofRel === undefined) memo.set(rel, (ofRel = new Map()));
    const key = ids.join('\u0000');
    let held = ofRel.get(key);
    if (held === undefined) ofRel.set(key, (held = holdingsOf(rel, ...ids)));
    return held;
  };
}

/** The relationship an identity record had in `rel` (undefined: it was not there). */
function formerRelationship(rel: AccessRelation, key: string): { field: string; value: unknown } | undefined {
  return relationshipOfRecord(rel.state.records.get(key));
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
  return (
    (after.groups.has(group) && isWithin(after, group, top)) ||
    (before.groups.has(group) && isWithin(before, group, top))
  );
}
