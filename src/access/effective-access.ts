/**
 * What the rest of the product asks of effective access (DESIGN.md §4 "Effective access"): the
 * access changes of a plan (the relation of live against the relation of the state the plan
 * leads to), and the answers of `platform-sync access` over one relation. Pure.
 */
import type { AccessChange, Plan } from '../model/plan.js';
import type { LiveState } from '../model/resources.js';
import { UserError } from '../model/errors.js';
import { asciiLower } from '../model/email.js';
import { didYouMean, suggestClosest } from '../util/suggest.js';
import { accessPartOf, stateOfLive } from './state.js';
import { plannedRelation } from './planned-relation.js';
import { indexOfLive, type KnownLive } from './state-index.js';
import { keysOfSteps, referencesOfSteps, touchedRelations } from './touched-relations.js';
import { capabilitiesOfRecord, isWithin, relationOf, type AccessRelation, type Principal } from './relation.js';
import { diffRelations } from './access-diff.js';
import { tokenAccepted, type Token } from './tokens.js';
import { principalAdmits } from './admits.js';
import { accessRuleRefusals, judgeAccessRules, type AccessRuleResult } from './rules.js';
import { describePath, holdsOf, obtainableOf, ownerCapabilities, type EscalationStep } from './escalation.js';
import type { AccessRule } from '../model/access-rules.js';
import { CATALOG } from '../service/catalog.js';

export type { AccessChange } from '../model/plan.js';

/**
 * The access changes of a plan: the relation of live and the relation of the state its steps lead
 * to, compared — each of them only for the principals the plan can change and those that may
 * cover them (touched-relations.ts). A plan with no step of a kind that matters to access has none.
 * `byAddress`: the caller's index of live addresses, when it has one (as `relationsOfPlan`).
 */
export function accessChanges(
  live: LiveState,
  plan: Pick<Plan, 'steps'>,
  now?: number,
  byAddress?: (address: string) => { uid: string } | undefined,
): AccessChange[] {
  return changesOfPlan(live, plan, now, undefined, byAddress);
}

/**
 * `accessChanges`, knowing what the planner's index of live knows of it (`known`, state-index.ts:
 * records found by kind and address rather than by passes of its own).
 */
function changesOfPlan(
  live: LiveState,
  plan: Pick<Plan, 'steps'>,
  now: number | undefined,
  known: KnownLive | undefined,
  byAddress = known?.at,
): AccessChange[] {
  if (!plan.steps.some((s) => accessPartOf(s.kind) !== undefined)) return [];
  // The relations of the principals the plan can change (touched-relations.ts); the whole ones when it cannot tell.
  const index = indexOfLive(live, keysOfSteps(plan.steps), known, referencesOfSteps(plan.steps));
  const touched = touchedRelations(index, plan.steps, now);
  let whole: AccessRelation | undefined;
  const wholePlanned = (): AccessRelation => (whole ??= relationsOfPlan(live, plan, now, byAddress).planned);
  if (touched !== undefined) return diffRelations(touched.live, touched.planned, touched.touched, wholePlanned);
  const relations = relationsOfPlan(live, plan, now, byAddress);
  return diffRelations(relations.live, relations.planned, relations.touched);
}

/**
 * What a plan does to access: its access changes, and — when the manifests declare access rules —
 * how the state it leads to holds to them, with the refusals `access-rule` of those it breaks
 * (DESIGN.md §4 rev 6: judged on the state a plan leads to, whatever live was).
 */
export function accessOfPlan(
  live: LiveState,
  plan: Pick<Plan, 'steps'>,
  rules: readonly AccessRule[],
  now?: number,
  known?: KnownLive,
): { changes: AccessChange[]; rules?: AccessRuleResult[]; refusals: Plan['refusals'] } {
  if (rules.length === 0) return { changes: changesOfPlan(live, plan, now, known), refusals: [] };
  const relations = relationsOfPlan(live, plan, now, known?.at);
  const changes = diffRelations(relations.live, relations.planned, relations.touched);
  const results = judgeAccessRules(relations.planned, rules);
  return { changes, rules: results, refusals: accessRuleRefusals(results) };
}

/**
 * The relations of live and of the state a plan leads to (`byAddress`: the caller's index of live
 * addresses, when it has one), and the principals whose access can differ between them. The
 * planned relation is built from live's by the records the plan changes (planned-relation.ts):
 * live's itself when it changes none.
 */
export function relationsOfPlan(
  live: LiveState,
  plan: Pick<Plan, 'steps'>,
  now?: number,
  byAddress?: (address: string) => { uid: string } | undefined,
): { live: AccessRelation; planned: AccessRelation; touched: ReadonlySet<string> } {
  const before = relationOf(stateOfLive(live, byAddress), now);
  const planned = plannedRelation(before, plan.steps, now);
  return { live: before, planned: planned.relation, touched: planned.touched };
}

/** The `new-access` refusal (--deny-new-access): every gain, naming its principal and the steps that cause it. */
export function newAccessRefusal(changes: readonly AccessChange[]): Plan['refusals'] {
  const gained = changes.filter((c) => c.gained.length > 0);
  if (gained.length === 0) return [];
  return [
    {
      rule: 'new-access',
      message: `the plan gives new access (--deny-new-access): ${gained.map(describeGain).join('; ')}`,
      addresses: [...new Set(gained.flatMap((c) => c.causes))].sort(),
    },
  ];
}

function describeGain(c: AccessChange): string {
  const below = c.groups > 1 ? ` and ${c.groups - 1} group${c.groups === 2 ? '' : 's'} below` : '';
  const by = c.causes.length > 0 ? ` (by ${c.causes.join(', ')})` : '';
  // Who it admits, when broad (admits.ts): the refusal says it as the plan's access section does.
  const admits = c.admits !== undefined ? `, which admits ${c.admits.join('; ')},` : '';
  return `${c.principal}${admits} gains ${c.gainedRole !== undefined ? `all of ${c.gainedRole} (${c.gained.length} capabilities)` : c.gained.join(', ')} on ${c.scope}${below}${by}${c.obtains !== undefined ? ` and ${c.obtains}` : ''}`;
}

/** One answer of `platform-sync access`: who holds what where, and the grant that gives it. */
export interface AccessGrant {
  principal: string;
  identity?: string;
  /** The group the grant is on; it reaches it and every group below. */
  scope: string;
  groups: number;
  capabilities: string[];
  /** The address of what grants it: a binding, an invite, a mapping, a provider. */
  grant: string;
  role: string;
  /** Who the principal admits, when that is broad (admits.ts): `any GitHub workflow`. */
  admits?: string[];
  /** Set when it is not held but can be obtained through an escalating capability (DESIGN.md §4 rev 6): the path, in words. */
  obtainable?: string;
}

export interface AccessQuestion {
  /** An identity's address or uid. */
  identity?: string;
  email?: string;
  /** A token's claims (`{"iss":…,"sub":…}`): what it can act as, and do. */
  as?: Token;
  scope?: string;
  capability?: string;
}

/**
 * What `--capability` may name: every capability of the service's catalog (one no role holds can
 * still be obtained, DESIGN.md §4 "Escalation"), and every one a role of the relation has.
 */
function knownCapabilities(rel: AccessRelation): Set<string> {
  const out = new Set<string>(CATALOG);
  for (const caps of rel.state.builtinCapabilities.values()) for (const c of caps) out.add(c);
  for (const grants of rel.grantsOf.values())
    for (const g of grants) for (const c of rel.capabilitiesOf(g.role)) out.add(c);
  for (const r of rel.state.records.values()) for (const c of capabilitiesOfRecord(r)) out.add(c);
  return out;
}

const unknown = (what: string, name: string, known: Iterable<string>): UserError =>
  new UserError(
    'ACCESS_UNKNOWN',
    `${what} ${JSON.stringify(name)} does not exist in the org${didYouMean(name, known)}; nothing to answer`,
  );

/** The group (key) a `--scope` names: its address, or its path without `group:` (`engineering`); an unknown one is an error. */
function scopeAsked(rel: AccessRelation, scope: string): string {
  const groups = [...rel.groups];
  const found = groups.find(([, g]) => g.address === scope) ?? groups.find(([, g]) => g.address === `group:${scope}`);
  if (!found)
    throw unknown(
      'group',
      scope,
      groups.map(([, g]) => g.address).flatMap((a) => [a, a.replace(/^group:/, '')]),
    );
  return found[0];
}

/** The identity principal an `--identity` names: a uid, an address, a path, or a bare name that one identity alone has. */
function identityAsked(rel: AccessRelation, identities: Principal[], asked: string): Principal {
  const wanted = asked.startsWith('uid:') ? asked.slice(4) : asked;
  const exact =
    identities.find((p) => p.identity === wanted || p.identityKey === wanted) ??
    rel.principals.get(`identity:${wanted}`);
  if (exact) return exact as Principal;
  const byName = identities.filter((p) => p.identity === `identity:${wanted}` || p.identity!.endsWith(`/${wanted}`));
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) {
    const names = byName
      .map((p) => p.identity!)
      .sort()
      .join(', ');
    throw new UserError(
      'ACCESS_UNKNOWN',
      `identity ${JSON.stringify(asked)} names ${byName.length} identities (${names}); name one by its path; nothing to answer`,
    );
  }
  throw unknown(
    'identity',
    asked,
    identities.flatMap((p) => [p.identity!, p.identity!.replace(/^identity:/, '')]),
  );
}

/** Suggests another e-mail only of the same domain and a close local part (an unrelated address is no hint). */
function unknownEmail(asked: string, known: readonly string[]): UserError {
  const at = asked.lastIndexOf('@');
  const domain = asked.slice(at + 1).toLowerCase();
  const local = suggestClosest(
    asked.slice(0, at),
    known.filter((e) => e.slice(e.lastIndexOf('@') + 1) === domain).map((e) => e.slice(0, e.lastIndexOf('@'))),
  );
  const hint = at > 0 && local !== undefined ? ` (did you mean ${JSON.stringify(`${local}@${domain}`)}?)` : '';
  return new UserError(
    'ACCESS_UNKNOWN',
    `e-mail ${JSON.stringify(asked)} does not exist in the org${hint}; nothing to answer`,
  );
}

/** The principals a question names (an identity, an e-mail, a token's identities); undefined: every principal. Unknown names are errors. */
function principalsAsked(
  rel: AccessRelation,
  q: AccessQuestion,
): { ids: Set<string> | undefined; actingAs?: string[] } {
  if (q.scope !== undefined) scopeAsked(rel, q.scope);
  if (q.capability !== undefined) {
    const known = knownCapabilities(rel);
    if (!known.has(q.capability)) throw unknown('capability', q.capability, known);
  }
  const identities = [...rel.principals.values()].filter(
    (p) => p.identityKey !== undefined && p.identity !== undefined,
  );
  if (q.identity !== undefined) {
    return { ids: new Set([identityAsked(rel, identities as Principal[], q.identity).id]) };
  }
  if (q.email !== undefined) {
    const email = asciiLower(q.email);
    const ids = new Set([...rel.principals.values()].filter((p) => p.email === email).map((p) => p.id));
    if (ids.size === 0)
      throw unknownEmail(
        q.email,
        [...rel.principals.values()].flatMap((p) => (p.email ? [p.email] : [])),
      );
    return { ids };
  }
  if (q.as !== undefined) {
    const acting = identities.filter((p) => p.relationship !== undefined && tokenAccepted(p.relationship, q.as!));
    return { ids: new Set(acting.map((p) => p.id)), actingAs: acting.map((p) => p.identity!).sort() };
  }
  return { ids: undefined };
}

/**
 * Answers one question over a relation: every grant of the principals it names (all when it
 * names none) that gives a capability asked (all when none) on the group asked or above it (any
 * group when none). Unknown names are errors with did-you-mean, never an empty answer.
 */
export function answerAccess(rel: AccessRelation, q: AccessQuestion): { grants: AccessGrant[]; actingAs?: string[] } {
  const { ids, actingAs } = principalsAsked(rel, q);
  const scopeKey = q.scope === undefined ? undefined : scopeAsked(rel, q.scope);
  const reach = (group: string): number => {
    let n = 0;
    const stack = [group];
    for (let g = stack.pop(); g !== undefined; g = stack.pop()) {
      n++;
      stack.push(...(rel.children.get(g) ?? []));
    }
    return n;
  };
  const grants: AccessGrant[] = [];
  // What a principal admits, read once per principal (a pattern's language is decided by automata).
  const admitted = new Map<string, string[]>();
  for (const [id, list] of rel.grantsOf) {
    if (ids !== undefined && !ids.has(id)) continue;
    const p = rel.principals.get(id) as Principal;
    for (const g of list) {
      const group = rel.groups.get(g.group);
      if (!group) continue;
      let caps = [...rel.capabilitiesOf(g.role)];
      if (q.capability !== undefined) caps = caps.filter((c) => c === q.capability);
      if (caps.length === 0) continue;
      if (scopeKey !== undefined && !isWithin(rel, scopeKey, g.group)) continue;
      const record = rel.state.records.get(g.record);
      const admits = admitted.get(id) ?? admitted.set(id, principalAdmits(p)).get(id)!;
      grants.push({
        principal: p.name,
        ...(p.identity ? { identity: p.identity } : {}),
        scope: group.address,
        groups: reach(g.group),
        capabilities: caps.sort(),
        grant: record?.address ?? g.record,
        role: rel.roleName(g.role),
        ...(admits.length > 0 ? { admits } : {}),
      });
    }
  }
  for (const id of ids ?? rel.grantsOf.keys())
    grants.push(...obtainableAnswers(rel, id, q.capability, scopeKey, reach));
  grants.sort((a, b) =>
    a.principal < b.principal
      ? -1
      : a.principal > b.principal
        ? 1
        : a.scope < b.scope
          ? -1
          : a.scope > b.scope
            ? 1
            : a.grant < b.grant
              ? -1
              : 1,
  );
  return actingAs === undefined ? { grants } : { grants, actingAs };
}

/**
 * The answers a principal can obtain without holding them (escalation.ts): on the group asked, or
 * else at each group where they start, one per path; each marked `obtainable` with the path.
 */
function obtainableAnswers(
  rel: AccessRelation,
  id: string,
  capability: string | undefined,
  scopeKey: string | undefined,
  reach: (group: string) => number,
): AccessGrant[] {
  const obtainable = obtainableOf(rel, id);
  if (obtainable.size === 0) return [];
  const p = rel.principals.get(id) as Principal;
  let admitted: string[] | undefined;
  const out: AccessGrant[] = [];
  const owner = ownerCapabilities(rel);
  for (const [group, extra] of obtainable) {
    if (scopeKey !== undefined && group !== scopeKey) continue;
    // An owner there can obtain the rest of the catalog (it holds roles.update): said only when a capability is asked.
    const held = holdsOf(rel, id).get(group);
    if (capability === undefined && owner.length > 0 && owner.every((c) => held?.has(c))) continue;
    const above = scopeKey === undefined ? obtainable.get(rel.groups.get(group)?.parent ?? '') : undefined;
    const byPath = new Map<string, { caps: string[]; path: readonly EscalationStep[] }>();
    for (const [c, path] of extra) {
      if ((capability !== undefined && c !== capability) || above?.has(c)) continue;
      const key = describePath(rel, path, group);
      const entry = byPath.get(key);
      if (entry) entry.caps.push(c);
      else byPath.set(key, { caps: [c], path });
    }
    for (const [words, { caps, path }] of byPath) {
      const root = path[0]?.grant;
      const admits = (admitted ??= principalAdmits(p));
      out.push({
        principal: p.name,
        ...(p.identity ? { identity: p.identity } : {}),
        scope: rel.groups.get(group)?.address ?? group,
        groups: reach(group),
        capabilities: caps.sort(),
        grant: root ? (rel.state.records.get(root.record)?.address ?? root.record) : '',
        role: root ? rel.roleName(root.role) : '',
        ...(admits.length > 0 ? { admits } : {}),
        obtainable: words,
      });
    }
  }
  return out;
}
