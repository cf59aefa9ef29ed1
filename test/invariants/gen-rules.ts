/**
 * Generated `org.accessRules` (issue 59, DESIGN §3): each of the three tests over capabilities
 * (escalating ones among them) or a built-in role, on the org or a group of the manifests; the
 * principals, groups and scopes are drawn by index from the org model the rules are rendered
 * with, so that every name a rule uses is one the manifests declare (validate refuses others).
 */
import fc from 'fast-check';
import { groupsOf, rolesVisible, type MGroup, type MOrg } from './generators.js';
import { ISSUER } from './gen-relationships.js';
import { BUILTIN_ROLES, type GenRule } from './rules-oracle.js';

// Escalating ones, what only an owner holds (so what an escalation obtains), and what common roles hold.
const CAPABILITIES = [
  'role_bindings.create',
  'roles.update',
  'roles.create',
  'identity.update',
  'group_invites.create',
  'identity_providers.update',
  'account_associations.create',
  'tag.delete',
  'repo.update',
  'tag.create',
  'repo.list',
];
const ROLES = ['owner', 'editor', 'viewer', 'registry.push', 'registry.pull_token_creator'];
const TOKENS: Record<string, string>[] = [
  { iss: ISSUER, sub: 'repo:acme/app:ref:refs/heads/main', repository_owner: 'acme' },
  { iss: ISSUER, sub: 'repo:acme/app:pull_request' },
  { iss: ISSUER, sub: 'repo:evil/x:ref:refs/heads/main' },
  { iss: ISSUER, sub: 'repo:acme-evil/x:ref:refs/heads/main' },
  { iss: ISSUER, sub: 'repo:acme/docs:ref:refs/heads/main', repository_owner: 'acme' },
];

/** A rule by indexes into the model it is rendered with. */
export interface RuleSpec {
  test: 'only' | 'count' | 'token';
  capabilities?: string[];
  role?: string;
  /** A group of the model (index), or the org. */
  scope?: number;
  /** Identities of the model (indexes). */
  only: number[];
  count: { min?: number; max?: number };
  token: number;
}

export const ruleSpecArb: fc.Arbitrary<RuleSpec> = fc.record(
  {
    test: fc.constantFrom('only' as const, 'only' as const, 'count' as const, 'token' as const),
    capabilities: fc.uniqueArray(fc.constantFrom(...CAPABILITIES), { minLength: 1, maxLength: 3 }),
    role: fc.constantFrom(...ROLES),
    scope: fc.nat(20),
    only: fc.uniqueArray(fc.nat(20), { minLength: 1, maxLength: 2 }),
    count: fc.oneof(
      fc.record({ min: fc.integer({ min: 1, max: 3 }) }),
      fc.record(
        { min: fc.integer({ min: 0, max: 2 }), max: fc.integer({ min: 2, max: 4 }) },
        { requiredKeys: ['max'] },
      ),
    ),
    token: fc.nat(TOKENS.length - 1),
  },
  { requiredKeys: ['test', 'only', 'count', 'token'] },
);

/** Zero to two rules a case: most cases judge one. */
export const rulesArb: fc.Arbitrary<RuleSpec[]> = fc.array(ruleSpecArb, { minLength: 0, maxLength: 2 });

/**
 * Declared identities (addresses) that the model's bindings give one of `caps`, roles resolved as
 * the manifests resolve them (the nearest custom role of that name, else the built-in): an
 * `onlyPrincipals` list that names them leaves a rule to what others can obtain by escalation.
 */
function holdersOf(org: MOrg, caps: readonly string[]): string[] {
  const all = groupsOf(org);
  const byPath = new Map<string, MGroup>(all.map((g) => [g.path, g.group]));
  const up = (path: string, n: number) =>
    path
      .split('/')
      .slice(0, Math.max(0, path.split('/').length - n))
      .join('/');
  const roleCaps = (path: string, name: string): readonly string[] => {
    for (let p = path; ; p = up(p, 1)) {
      const custom = byPath.get(p)?.roles.find((r) => r.name === name);
      if (custom) return custom.capabilities;
      if (p === '') return BUILTIN_ROLES[name] ?? [];
    }
  };
  const out = new Set<string>();
  all.forEach(({ path, group }, index) => {
    const roles = rolesVisible(all, index);
    for (const b of group.bindings) {
      const from = b.up ? up(path, b.up) : path;
      const owner = byPath.get(from);
      if (b.human || !owner || owner.identities.length === 0) continue;
      const name = owner.identities[b.identity % owner.identities.length]!.name;
      if (roleCaps(path, roles[b.role % roles.length]!).some((c) => caps.includes(c)))
        out.add(`identity:${from === '' ? name : `${from}/${name}`}`);
    }
  });
  return [...out];
}

/** The rules as the manifests state them, for `org` (its identities, groups and names after the edits). */
export function renderRules(org: MOrg, specs: readonly RuleSpec[]): GenRule[] {
  const groups = groupsOf(org);
  const identities = groups.flatMap((g) =>
    g.group.identities.map((i) => `identity:${g.path === '' ? i.name : `${g.path}/${i.name}`}`),
  );
  return specs.map((s, n): GenRule => {
    const scopeGroup = s.scope === undefined ? undefined : groups[s.scope % groups.length]!;
    const rule: GenRule = {
      name: `rule-${n}`,
      ...(s.capabilities !== undefined || s.role === undefined
        ? { capabilities: s.capabilities ?? ['role_bindings.create'] }
        : { role: s.role }),
      ...(scopeGroup && scopeGroup.path !== '' ? { scope: scopeGroup.path } : {}),
    };
    if (s.test === 'only' && identities.length > 0) {
      // Those who hold a selected capability (most of the time), and one or two drawn.
      const caps = rule.capabilities ?? BUILTIN_ROLES[rule.role!] ?? [];
      const holders = s.only[0]! % 4 === 0 ? [] : holdersOf(org, caps);
      const drawn = (holders.length === 0 ? s.only : s.only.slice(1)).map((i) => identities[i % identities.length]!);
      return { ...rule, onlyPrincipals: [...new Set([...holders, ...drawn])].slice(0, 8) };
    }
    if (s.test === 'token') return { ...rule, token: TOKENS[s.token % TOKENS.length]!, never: true };
    return { ...rule, count: s.count };
  });
}
