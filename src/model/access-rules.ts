/**
 * Access rules (DESIGN.md §3 `org.accessRules`, §4 "Access rules (rev 6)"): what must never be
 * true of the org's effective access. A rule selects capabilities (`capabilities`, or `role`:
 * every capability of that role) in a `scope` (a group path; the org when left out, and every
 * group below it) and has exactly one test: `onlyPrincipals`, `count`, or `token` with `never`.
 * Kept as written in the manifests, with where: src/access/rules.ts judges them.
 */
import type { SourceLocation } from './resources.js';

export interface AccessRule {
  name: string;
  /** As written: the capabilities it selects. */
  capabilities?: string[];
  /** As written: a role whose every capability it selects (a built-in name or a custom role's name or path). */
  role?: string;
  /** The group path it covers (with every group below); absent: the org. */
  scope?: string;
  /** Nobody outside this list can obtain a selected capability in scope. */
  onlyPrincipals?: string[];
  /** How many principals hold every selected capability at the scope. */
  count?: { min?: number; max?: number };
  /** A concrete token that can obtain none of them in scope (with `never: true`). */
  token?: Record<string, string | string[]>;
  never?: true;
  /** Resolved when the rule is read: every capability it selects (a custom role's as declared). */
  selected: string[];
  /** Resolved: the custom role's address (`role:engineering/deployer`) when `role` names one. */
  roleAddress?: string;
  source: SourceLocation;
}

/** The test a rule holds to. */
export type AccessRuleTest = 'onlyPrincipals' | 'count' | 'token';
export const ACCESS_RULE_TESTS: readonly AccessRuleTest[] = ['onlyPrincipals', 'count', 'token'];

/**
 * A principal as rules and access changes spell it: `identity:<path>`, `email:<address>`,
 * `idp:<provider path>/group:<external group>`, `idp:<provider path>/*`. Undefined: not one.
 */
export type PrincipalSpelling =
  | { is: 'identity'; path: string }
  | { is: 'email'; email: string }
  | { is: 'externalGroup'; provider: string; group: string }
  | { is: 'signIn'; provider: string };

export function parsePrincipalSpelling(text: string): PrincipalSpelling | undefined {
  if (text.startsWith('identity:')) {
    const path = text.slice('identity:'.length).replace(/^\//, '');
    return path === '' ? undefined : { is: 'identity', path };
  }
  if (text.startsWith('email:')) {
    const email = text.slice('email:'.length);
    return /^[^@\s]+@[^@\s]+$/.test(email) ? { is: 'email', email } : undefined;
  }
  if (text.startsWith('idp:')) {
    const rest = text.slice('idp:'.length);
    if (rest.endsWith('/*')) return rest.length > 2 ? { is: 'signIn', provider: rest.slice(0, -2) } : undefined;
    const at = rest.indexOf('/group:');
    if (at <= 0 || at + '/group:'.length >= rest.length) return undefined;
    return { is: 'externalGroup', provider: rest.slice(0, at), group: rest.slice(at + '/group:'.length) };
  }
  return undefined;
}

export interface AccessRuleViolation {
  /** The principal as access changes spell it (`identity:ci-bot`); for a count, every holder. */
  principal: string;
  identity?: string;
  capabilities: string[];
  /** The group where it starts (`org`, `group:engineering`). */
  scope: string;
  /** The grants, or the escalation path, that cause it — in words. */
  causes: string[];
  /** Addresses of the grants that cause it. */
  grants: string[];
}

/** One rule's result over a state. */
export interface AccessRuleResult {
  rule: string;
  test: AccessRuleTest;
  /** `org`, `group:engineering`: what it covers. */
  scope: string;
  passed: boolean;
  /** What it found, in one line (a count's number; why a rule judged nothing). */
  summary: string;
  violations: AccessRuleViolation[];
  /** Where the manifests declare it: `file:line:col`. */
  location?: string;
}
