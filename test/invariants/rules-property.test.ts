/**
 * Access rules and escalation as a property of their own (issue 59 item 4): generated orgs —
 * nested groups, identities of every relationship, custom roles holding escalating capabilities,
 * bindings at every depth (no people or identity providers, who hold so much that escalation
 * rarely decides) — with generated `org.accessRules`, planned from nothing and applied. The
 * oracle (rules-oracle.ts, brute force, nothing of src/access) judges each rule on the state the
 * plan led to, read back from the server; the plan with the rules in the manifests must be refused
 * with `access-rule` naming exactly the rules it finds broken. 10 cases (INVARIANT_RUNS when set), seeded by
 * INVARIANT_SEED like the invariants; a counterexample becomes a named case in regressions.test.ts.
 * The invariants (check-case.ts, R1) judge rules on edited orgs with people and providers too.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apply } from '../../src/apply/index.js';
import { plan } from '../../src/plan/index.js';
import { Harness, RULES_UNKNOWN, RUNS, SEED } from './check-case.js';

/** Cases: 10 in `npm test` (each plans and applies a whole org), INVARIANT_RUNS when that is set (test:deep, CI's bounded run: 300). */
const RULES_RUNS = process.env.INVARIANT_RUNS ? RUNS : 10;
import { groupsOf, orgArb, rolesVisible, SECRET_VALUE, type MGroup, type MOrg } from './generators.js';
import { renderManifest } from './render-manifest.js';
import { RELATIONSHIPS } from './gen-relationships.js';
import { renderRules, ruleSpecArb, type RuleSpec } from './gen-rules.js';
import { holdRulesToOracle, newRuleStats } from './check-access.js';

/** The org without what does not bear on escalation and costs requests: repos, subscriptions, associations, providers. */
function lean(g: MGroup): MGroup {
  return { ...g, repos: [], subscriptions: [], idps: [], association: undefined, groups: g.groups.map(lean) } as MGroup;
}
const leanOrgArb: fc.Arbitrary<MOrg> = orgArb.map((o) => ({ ...(lean(o) as MOrg), terms: [] }));

/** A custom role of the org holding escalating capabilities (and roles.list), bound to an identity of its own in some group. */
interface Escalator {
  caps: string[];
  group: number;
  relationship: number;
}

interface RulesCase {
  org: MOrg;
  rules: RuleSpec[];
  escalator?: Escalator;
}
const ESCALATING = [
  'roles.update',
  'role_bindings.create',
  'role_bindings.update',
  'group_invites.create',
  'identity.update',
  'identity_providers.create',
  'roles.create',
  'identity.create',
];
const rulesCaseArb: fc.Arbitrary<RulesCase> = fc.record(
  {
    org: leanOrgArb,
    rules: fc.array(ruleSpecArb, { minLength: 1, maxLength: 3 }),
    escalator: fc.record({
      caps: fc.uniqueArray(fc.constantFrom(...ESCALATING), { minLength: 1, maxLength: 2 }),
      group: fc.nat(20),
      relationship: fc.nat(RELATIONSHIPS.length - 1),
    }),
  },
  { requiredKeys: ['org', 'rules'] },
);

/** The org with the escalator's role declared on the org and bound in its group (issue 59's bot with roles.update). */
function withEscalator(org: MOrg, e: Escalator | undefined): MOrg {
  if (!e) return org;
  const next = structuredClone(org);
  next.roles = [
    ...next.roles.filter((r) => r.name !== 'escalator'),
    { name: 'escalator', capabilities: [...e.caps, 'roles.list'] },
  ];
  const all = groupsOf(next);
  const at = e.group % all.length;
  const g = all[at]!.group;
  g.identities = [...g.identities, { name: 'escalated', relationship: e.relationship }];
  g.bindings = [...g.bindings, { identity: g.identities.length - 1, role: rolesVisible(all, at).indexOf('escalator') }];
  return next;
}

const rulesStats = newRuleStats();

/** Plans the org from nothing with and without its rules, applies it, and holds the refusals to the oracle's verdicts. */
async function checkRulesCase(h: Harness, c: RulesCase): Promise<void> {
  const orgName = h.nextOrgName();
  const org = withEscalator(c.org, c.escalator);
  const desired = h.load(renderManifest(org, orgName, undefined));
  const before = await h.read(desired);
  const rules = renderRules(org, c.rules);
  const ruled = plan(h.load(renderManifest(org, orgName, undefined, undefined, rules)), before, { bootstrap: true });
  const p = plan(desired, before, { bootstrap: true });
  expect(p.refusals.map((r) => r.message)).toEqual([]);
  const result = await apply(p, h.client, { readSecret: () => SECRET_VALUE });
  expect(result.failed).toEqual([]);
  holdRulesToOracle(rules, ruled, await h.read(desired), rulesStats);
}

describe('access rules and escalation over generated orgs', () => {
  if (RULES_UNKNOWN !== undefined) {
    it.skip(`are not judged: the product does not know org.accessRules yet (validate: ${RULES_UNKNOWN})`, () => {});
    return;
  }
  const h = new Harness();
  beforeAll(() => h.start());
  afterAll(async () => {
    await h.stop();
    process.stdout.write(
      `access rules property: ${rulesStats.judged} judged, ${rulesStats.broken} broken (${rulesStats.byEscalation} by escalation alone), ${rulesStats.either} either way\n`,
    );
  });

  it(
    `a plan is refused with access-rule exactly when the oracle finds a rule broken on the state it leads to: ${RULES_RUNS} cases (seed ${SEED})`,
    async () => {
      await fc.assert(
        fc.asyncProperty(rulesCaseArb, (c) => checkRulesCase(h, c)),
        { numRuns: RULES_RUNS, seed: SEED, endOnFailure: process.env.INVARIANT_SHRINK !== '1', verbose: 1 },
      );
    },
    120_000 + RULES_RUNS * 2_000,
  );
});
