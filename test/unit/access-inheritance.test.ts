/**
 * Inheritance in the access relation (src/access/relation.ts, DESIGN.md §4 "Effective access"):
 * a principal holds a capability on a group when a grant on that group or any ancestor gives it
 * — at every depth. A property over generated group trees up to seven levels deep (chains, so
 * that most grants sit three levels down or more), custom roles and bindings on any group,
 * against the definition read off the paths (issue 63: inheritance cut below the second level
 * passed most default invariant runs; this fails on it every run).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdingsOf, relationOf } from '../../src/access/relation.js';
import { stateOfLive } from '../../src/access/state.js';
import { liveState, r, type Shape } from './plan-builders.js';

const RUNS = Number(process.env.ACCESS_INHERITANCE_RUNS ?? 30);
const SEED = Number(process.env.INVARIANT_SEED ?? 63);

const CAPABILITIES = ['repos.list', 'repos.create', 'groups.update', 'roles.list', 'advisories.approve'];
const ROLES = ['r0', 'r1', 'r2'];
const BOTS = ['bot', 'ci'];

/** Group paths of a tree: each group has up to two children named a and b, down to `depth` levels. */
const tree = (depth: number): fc.Arbitrary<string[]> =>
  depth === 0
    ? fc.constant([])
    : fc
        .subarray(['a', 'b'], { minLength: 1 })
        .chain((names) =>
          fc.tuple(...names.map((n) => tree(depth - 1).map((below) => [n, ...below.map((p) => `${n}/${p}`)]))),
        )
        .map((lists) => lists.flat());

const world = tree(7).chain((groups) =>
  fc.record({
    groups: fc.constant(groups),
    roles: fc.tuple(...ROLES.map(() => fc.subarray(CAPABILITIES, { minLength: 1 }))),
    // A binding: bot, role, and the group it is on ('' is the org).
    bindings: fc.uniqueArray(
      fc.tuple(fc.constantFrom(...BOTS), fc.constantFrom(...ROLES), fc.constantFrom('', ...groups)),
      { maxLength: 6, selector: ([b, role, g]) => `${b} ${role} ${g}` },
    ),
  }),
);

/** Whether `ancestor` is `group` or one of the groups above it ('' is the org). */
const within = (group: string, ancestor: string) =>
  ancestor === '' || group === ancestor || group.startsWith(`${ancestor}/`);

describe('access inheritance at every depth', () => {
  it('a principal holds on a group exactly what the grants on it and on every ancestor give', () => {
    fc.assert(
      fc.property(world, ({ groups, roles, bindings }) => {
        const shapes: Shape[] = [
          ...groups.map((g) => r.group(g)),
          ...BOTS.map((b) => r.identity('', b, { claimMatch: { issuer: 'https://issuer.acme.dev', subject: b } })),
          ...ROLES.map((role, i) => r.role('', role, { capabilities: roles[i]! })),
          ...bindings.map(([bot, role, group]) => r.binding(group, `/${bot}`, `/${role}`)),
        ];
        const rel = relationOf(stateOfLive(liveState(shapes)));
        const keyOf = new Map([...rel.groups].map(([key, g]) => [g.address, key]));
        for (const bot of BOTS) {
          const principal = [...rel.principals.values()].find((p) => p.identity === `identity:${bot}`)!.id;
          const held = holdingsOf(rel, principal);
          for (const group of ['', ...groups]) {
            const want = new Set(
              bindings
                .filter(([b, , on]) => b === bot && within(group, on))
                .flatMap(([, role]) => roles[ROLES.indexOf(role)]!),
            );
            const key = keyOf.get(group === '' ? 'org' : `group:${group}`)!;
            expect([...(held.get(key) ?? [])].sort(), `${bot} on ${group || 'org'}`).toEqual([...want].sort());
          }
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
