/**
 * Access rules judged over one relation (DESIGN.md §4 "Access rules (rev 6)"): the state a plan
 * leads to (every path: plan, apply, apply plan.json, the Action — a violation is the refusal
 * `access-rule`), or live (drift, audit: the finding `access-rule`). A rule's tests:
 *
 * - `onlyPrincipals`: no principal outside the list *can obtain* (escalation.ts) a selected
 *   capability on the scope or a group below it;
 * - `count`: how many principals *hold* every selected capability at the scope, within min..max;
 * - `token` + `never`: every identity that accepts the token (as `access --as` matches it) can
 *   obtain none of them in scope.
 *
 * Each violation names the rule, the principal, the capabilities, the group, and the grants or
 * the escalation path that cause it. Pure.
 */
import type {
  AccessRule,
  AccessRuleResult,
  AccessRuleTest,
  AccessRuleViolation,
  PrincipalSpelling,
} from '../model/access-rules.js';
import { parsePrincipalSpelling } from '../model/access-rules.js';
import { groupAddress } from '../model/address.js';
import { asciiLower } from '../model/email.js';
import type { PlanRefusal } from '../model/plan.js';
import { canObtainAt, describePath, grantOf, holdsOf, obtainableOf } from './escalation.js';
import { depthOf, isWithin, type AccessRelation, type Principal } from './relation.js';
import { tokenAccepted } from './tokens.js';

export type { AccessRuleResult, AccessRuleViolation } from '../model/access-rules.js';

const MAX_VIOLATIONS = 50;

/** Every rule over `rel`, in the manifests' order. */
export function judgeAccessRules(rel: AccessRelation, rules: readonly AccessRule[]): AccessRuleResult[] {
  return rules.map((rule) => judgeRule(rel, rule));
}

function judgeRule(rel: AccessRelation, rule: AccessRule): AccessRuleResult {
  const test: AccessRuleTest =
    rule.onlyPrincipals !== undefined ? 'onlyPrincipals' : rule.count !== undefined ? 'count' : 'token';
  const scopeAddress = groupAddress(rule.scope ?? '');
  const base = {
    rule: rule.name,
    test,
    scope: scopeAddress,
    ...(rule.source ? { location: `${rule.source.file}:${rule.source.line}:${rule.source.column}` } : {}),
  };
  const scope = [...rel.groups].find(([, g]) => g.address === scopeAddress)?.[0];
  if (scope === undefined)
    return {
      ...base,
      passed: true,
      summary: `${scopeAddress} does not exist in this state: nothing to judge`,
      violations: [],
    };
  const selected = selectedCapabilities(rel, rule);
  if (test === 'count') {
    const holders = [...rel.grantsOf.keys()].filter((id) => {
      const held = holdsOf(rel, id).get(scope);
      return held !== undefined && selected.every((c) => held.has(c));
    });
    const n = holders.length;
    const { min, max } = rule.count!;
    const passed = (min === undefined || n >= min) && (max === undefined || n <= max);
    const bounds =
      min !== undefined && max !== undefined
        ? `${min} to ${max}`
        : min !== undefined
          ? `at least ${min}`
          : `at most ${max}`;
    const summary = `${n} principal${n === 1 ? '' : 's'} hold${n === 1 ? 's' : ''} ${what(rule, selected)} on ${scopeAddress} (expected ${bounds})`;
    const violations = passed
      ? []
      : holders.slice(0, MAX_VIOLATIONS).map((id) => violation(rel, id, scope, selected, selected));
    return { ...base, passed, summary, violations };
  }
  let candidates: string[];
  if (test === 'onlyPrincipals') {
    const allowed = (rule.onlyPrincipals ?? [])
      .map(parsePrincipalSpelling)
      .filter((s): s is PrincipalSpelling => s !== undefined);
    candidates = [...rel.grantsOf.keys()].filter(
      (id) => !allowed.some((s) => isPrincipal(rel, rel.principals.get(id), s)),
    );
  } else {
    const token = rule.token!;
    candidates = [...rel.grantsOf.keys()].filter((id) => {
      const p = rel.principals.get(id);
      return p?.relationship !== undefined && tokenAccepted(p.relationship, token);
    });
  }
  const violations: AccessRuleViolation[] = [];
  for (const id of candidates.sort()) {
    const found = topViolation(rel, id, scope, selected);
    if (found) violations.push(violation(rel, id, found.group, found.capabilities, selected));
    if (violations.length >= MAX_VIOLATIONS) break;
  }
  const summary =
    violations.length === 0
      ? `nobody it forbids can obtain ${what(rule, selected)} in ${scopeAddress}`
      : `${violations.length} principal${violations.length === 1 ? '' : 's'} it forbids can obtain ${what(rule, selected)} in ${scopeAddress}`;
  return { ...base, passed: violations.length === 0, summary, violations };
}

const what = (rule: AccessRule, selected: readonly string[]): string =>
  rule.role !== undefined
    ? `all of ${rule.role}`
    : selected.length === 1
      ? selected[0]!
      : `${selected.length === 0 ? 'none' : 'any'} of ${selected.join(', ')}`;

/** The capabilities a rule selects in this state: a role's as the state holds it, else as the manifests declared it. */
function selectedCapabilities(rel: AccessRelation, rule: AccessRule): string[] {
  if (rule.role !== undefined && rule.roleAddress === undefined) {
    for (const [key, name] of rel.state.builtinNames) if (name === rule.role) return [...rel.capabilitiesOf(key)];
  }
  if (rule.roleAddress !== undefined) {
    for (const r of rel.state.records.values())
      if (r.address === rule.roleAddress) return [...rel.capabilitiesOf(r.key)];
  }
  return rule.selected;
}

/** Whether principal `p` is the one a rule spells. */
function isPrincipal(rel: AccessRelation, p: Principal | undefined, s: PrincipalSpelling): boolean {
  if (!p) return false;
  // An identity principal is every identity record that accepts its tokens: the rule may name any of them.
  if (s.is === 'identity')
    return (
      p.identityKey !== undefined &&
      (p.records ?? []).some((key) => rel.state.records.get(key)?.address === `identity:${s.path}`)
    );
  if (s.is === 'email') return p.email !== undefined && p.email === asciiLower(s.email);
  return (
    p.identityKey === undefined &&
    p.name === (s.is === 'signIn' ? `idp:${s.provider}/*` : `idp:${s.provider}/group:${s.group}`)
  );
}

/** The highest group of the scope where `id` can obtain a selected capability, with those capabilities. */
function topViolation(
  rel: AccessRelation,
  id: string,
  scope: string,
  selected: readonly string[],
): { group: string; capabilities: string[] } | undefined {
  const groups = new Set([...holdsOf(rel, id).keys(), ...obtainableOf(rel, id).keys()]);
  let best: { group: string; capabilities: string[]; depth: number } | undefined;
  for (const g of groups) {
    if (!isWithin(rel, g, scope)) continue;
    const can = canObtainAt(rel, id, g);
    const caps = selected.filter((c) => can.has(c));
    if (caps.length === 0) continue;
    const depth = depthOf(rel, g);
    if (best === undefined || depth < best.depth || (depth === best.depth && g < best.group))
      best = { group: g, capabilities: caps, depth };
  }
  return best && { group: best.group, capabilities: best.capabilities };
}

/** How `id` has `capabilities` on `group`: the grants that give the ones it holds, the paths to the ones it can obtain. */
function violation(
  rel: AccessRelation,
  id: string,
  group: string,
  capabilities: readonly string[],
  _selected: readonly string[],
): AccessRuleViolation {
  const p = rel.principals.get(id);
  const held = holdsOf(rel, id).get(group);
  const obtained = obtainableOf(rel, id).get(group);
  const causes = new Set<string>();
  const grants = new Set<string>();
  for (const c of capabilities) {
    if (held?.has(c)) {
      const g = grantOf(rel, id, group, c);
      if (!g) continue;
      const record = rel.state.records.get(g.record)?.address ?? g.record;
      const role = rel.roleName(g.role);
      causes.add(`held through ${role.startsWith('role:') ? role : `role ${role}`} (${record})`);
      grants.add(record);
    } else {
      const path = obtained?.get(c);
      if (!path) continue;
      causes.add(`obtainable: ${describePath(rel, path, group)}`);
      for (const s of path) if (s.grant) grants.add(rel.state.records.get(s.grant.record)?.address ?? s.grant.record);
    }
  }
  return {
    principal: p?.name ?? id,
    ...(p?.identity !== undefined ? { identity: p.identity } : {}),
    capabilities: [...capabilities].sort(),
    scope: rel.groups.get(group)?.address ?? group,
    causes: [...causes],
    grants: [...grants].sort(),
  };
}

/** A violation in words: "identity:bot can obtain role_bindings.create on org (can obtain it: holds roles.update there through …)". */
export function describeViolation(v: AccessRuleViolation, test: AccessRuleTest): string {
  const verb = test === 'count' ? 'holds' : 'can obtain';
  const caps =
    v.capabilities.length > 6
      ? `${v.capabilities.slice(0, 6).join(', ')} and ${v.capabilities.length - 6} more`
      : v.capabilities.join(', ');
  return `${v.principal} ${verb} ${caps} on ${v.scope}${v.causes.length > 0 ? ` (${v.causes.join('; ')})` : ''}`;
}

/** The refusals `access-rule` of the results that fail: one per rule, naming each principal and how. */
export function accessRuleRefusals(results: readonly AccessRuleResult[]): PlanRefusal[] {
  return results
    .filter((r) => !r.passed)
    .map((r) => ({
      rule: 'access-rule' as const,
      message: `access rule ${JSON.stringify(r.rule)}${r.location ? ` (${r.location})` : ''} is broken: ${[...(r.test === 'count' ? [r.summary] : []), ...r.violations.map((v) => describeViolation(v, r.test))].join('; ')}`,
      addresses: [...new Set(r.violations.flatMap((v) => v.grants))].sort(),
    }));
}
