/**
 * fast-check generators for the invariant suite: an org as a small model (groups at depth with
 * every kind a manifest declares), edits that turn one org's manifests into the next (adds,
 * removals, field changes, `renamedFrom` at every level, moves to another group, bindings by
 * uid), settings (prune per kind, ignore and protect globs), hand edits made behind a saved
 * plan's back, and faults during an apply. Names come from small pools so that two draws meet:
 * matched resources, renames onto taken names, protected and ignored addresses.
 */
import fc from 'fast-check';
import { FAMILIES, ISSUER, PATTERN_BASE, RELATIONSHIPS } from './gen-relationships.js';

export { ISSUER };

export const SECRET_ENV = 'PLATFORM_SYNC_SECRET_OKTA';
export const SECRET_VALUE = 'invariant-suite-secret-value-0001';
const BUILTINS = [
  'viewer',
  'editor',
  'owner',
  'registry.pull',
  'registry.push',
  'registry.pull_token_creator',
] as const;
// Escalating capabilities among them (issue 59): a custom role that can change roles, bind, invite or widen identities.
const CAPABILITIES = [
  'repo.list',
  'tag.create',
  'identity.list',
  'groups.list',
  'repo.update',
  'roles.update',
  'role_bindings.create',
  'identity.update',
  'group_invites.create',
] as const;

export interface MIdentity {
  name: string;
  description?: string;
  relationship: number;
}
export interface MRole {
  name: string;
  description?: string;
  capabilities: string[];
}
/** A binding: an identity of its group (by index) or a hand-made person by uid, and a role by index. */
/** `up`: the identity is one of the group `up` levels above (named by its path from the org root). */
export interface MBinding {
  identity: number;
  role: number;
  byUid?: boolean;
  human?: boolean;
  up?: number;
}
export interface MRepo {
  name: string;
  description?: string;
  readme?: string;
  tier?: string;
  aliases?: string[];
}
export interface MIdp {
  name: string;
  defaultRole: number;
  clientId: string;
  mappings: { externalGroup: string; role: number }[];
}
export interface MGroup {
  name: string;
  renamedFrom?: string;
  description?: string;
  identities: (MIdentity & { renamedFrom?: string })[];
  roles: (MRole & { renamedFrom?: string })[];
  bindings: MBinding[];
  repos: (MRepo & { renamedFrom?: string })[];
  subscriptions: string[];
  idps: (MIdp & { renamedFrom?: string })[];
  association?: { name: string; account: string };
  groups: MGroup[];
}
export interface MOrg extends MGroup {
  terms: string[];
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const description = maybe(fc.constantFrom('', 'team', 'Team of builders', 'x'));

const identityArb = (name: string) =>
  fc.record({
    name: fc.constant(name),
    description,
    relationship: fc.oneof(fc.nat(RELATIONSHIPS.length - 1), fc.constant(PATTERN_BASE)),
  });
const roleArb = (name: string) =>
  fc.record({
    name: fc.constant(name),
    description,
    capabilities: fc.uniqueArray(fc.constantFrom(...CAPABILITIES), { minLength: 1, maxLength: 3 }),
  });
const repoArb = (name: string) =>
  fc.record(
    {
      name: fc.constant(name),
      description,
      readme: maybe(fc.constantFrom('', '# app\n', '# readme\n\ntext\n')),
      tier: fc.constantFrom('FIPS', 'BASE'),
      aliases: fc.uniqueArray(fc.constantFrom(`${name}:a`, `docker.io/acme/${name}:1.0`), { maxLength: 2 }),
    },
    { requiredKeys: ['name', 'description', 'readme'] },
  );
const idpArb = (name: string) =>
  fc.record({
    name: fc.constant(name),
    defaultRole: fc.nat(10),
    clientId: fc.constantFrom('c-1', 'c-2'),
    mappings: fc.uniqueArray(fc.record({ externalGroup: fc.constantFrom('admins', 'devs'), role: fc.nat(10) }), {
      maxLength: 2,
      selector: (m) => `${m.externalGroup}`,
    }),
  });

/** Some of `pool`, each drawn with its own fields. */
function subsetOf<T>(
  pool: readonly string[],
  item: (name: string) => fc.Arbitrary<T>,
  max = pool.length,
): fc.Arbitrary<T[]> {
  return fc
    .subarray([...pool], { maxLength: max })
    .chain((names) => (names.length === 0 ? fc.constant([] as T[]) : fc.tuple(...names.map(item))));
}

/** Groups nest this deep (the org is depth 0): renames of nested groups meet people and globs beneath them. */
const MAX_DEPTH = 5;

function groupArb(name: string, depth: number): fc.Arbitrary<MGroup> {
  // Below the org a group has one child more often than none, so that grants three levels deep and
  // below are routine (issue 58: inheritance broken below the second level must fail the default run).
  const one = fc.constantFrom('a', 'b').chain((n) => groupArb(n, depth + 1).map((g) => [g]));
  const children: fc.Arbitrary<MGroup[]> =
    depth >= MAX_DEPTH
      ? fc.constant([])
      : depth === 0
        ? fc
            .subarray(['a', 'b', 'c'], { maxLength: 2 })
            .chain((names) =>
              names.length === 0 ? fc.constant([]) : fc.tuple(...names.map((n) => groupArb(n, depth + 1))),
            )
        : fc.oneof({ weight: 3, arbitrary: one }, { weight: 1, arbitrary: fc.constant([] as MGroup[]) });
  const deep = depth >= 2;
  // A binding below the org may name an identity of an ancestor (`up` levels up, by its path from the root).
  const up =
    depth === 0 ? fc.constant(undefined) : fc.option(fc.integer({ min: 1, max: depth }), { nil: undefined, freq: 2 });
  return fc.record({
    name: fc.constant(name),
    description,
    identities: subsetOf(['bot', 'ci', 'deploy', 'signer', 'builder'], identityArb, deep ? 2 : 3),
    roles: subsetOf(['reader', 'writer', 'auditor'], roleArb, 2),
    bindings: fc.array(
      fc.record({ identity: fc.nat(5), role: fc.nat(10), up }, { requiredKeys: ['identity', 'role'] }),
      { maxLength: deep ? 3 : 2 },
    ),
    repos: subsetOf(['app', 'web', 'legacy', 'api', 'docs'], repoArb, deep ? 1 : 3),
    subscriptions: fc.subarray(['https://hooks.acme.dev/a', 'https://hooks.acme.dev/b'], { maxLength: 1 }),
    idps: depth <= 1 ? subsetOf(['okta'], idpArb) : fc.constant([]),
    association: maybe(
      fc.record({ name: fc.constantFrom('cloud', 'code'), account: fc.constantFrom('123456789012', '210987654321') }),
    ),
    groups: children,
  });
}

export const orgArb: fc.Arbitrary<MOrg> = groupArb('org', 0).chain((g) =>
  fc.subarray(['tos-2026', 'dpa-v2']).map((terms) => ({ ...g, terms })),
);

/** An edit of the manifests, applied to a copy of the org model by index (modulo what is there). */
export type Edit =
  | { op: 'remove'; at: number }
  | { op: 'describe'; at: number; text: string }
  | { op: 'rename'; at: number; to: string; declare: boolean }
  | { op: 'move'; at: number; to: number }
  | { op: 'add'; at: number; what: 'identity' | 'repo' | 'role' | 'group' | 'binding' | 'subscription' }
  | { op: 'role'; at: number; role: number }
  | { op: 'byUid'; at: number }
  | { op: 'bindHuman'; at: number; role: number }
  | { op: 'pattern'; at: number; to: number }
  | { op: 'rebind'; at: number };

export const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ op: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('describe' as const),
    at: fc.nat(),
    text: fc.constantFrom('', 'changed', 'Team of builders'),
  }),
  fc.record({
    op: fc.constant('rename' as const),
    at: fc.nat(),
    to: fc.constantFrom('x1', 'x2', 'b', 'web', 'api', 'c'),
    declare: fc.boolean(),
  }),
  fc.record({ op: fc.constant('move' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({
    op: fc.constant('add' as const),
    at: fc.nat(),
    what: fc.constantFrom(
      'identity' as const,
      'repo' as const,
      'role' as const,
      'group' as const,
      'binding' as const,
      'subscription' as const,
    ),
  }),
  fc.record({ op: fc.constant('role' as const), at: fc.nat(), role: fc.nat(14) }),
  fc.record({ op: fc.constant('byUid' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('bindHuman' as const), at: fc.nat(), role: fc.nat(4) }),
  { arbitrary: fc.record({ op: fc.constant('pattern' as const), at: fc.nat(), to: fc.nat(30) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('rebind' as const), at: fc.nat() }), weight: 2 },
);

export interface GenSettings {
  prune: boolean | Record<string, boolean>;
  ignore: string[];
  protect: string[];
}

export const settingsArb: fc.Arbitrary<GenSettings> = fc.record({
  prune: fc.oneof(
    fc.boolean(),
    fc.record(
      {
        identities: fc.boolean(),
        repos: fc.boolean(),
        roleBindings: fc.boolean(),
        groups: fc.boolean(),
        roles: fc.boolean(),
        subscriptions: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  ),
  // Declared resources never match these (no declared identity is named human-*, no repo *hand*).
  ignore: fc.subarray([
    'identity:*human-*',
    'identity:human-*',
    'repo:*hand*',
    'identity:a/*human*',
    'identity:a/b/*human*',
  ]),
  protect: fc.subarray([
    'repo:*legacy*',
    'repo:a/*',
    'repo:x1/*',
    'group:a',
    'group:a/b',
    'identity:*bot',
    'subscription:*',
    'repo:*hand*',
  ]),
});

/** What is done by hand after the first apply: people (ignored or not) with bindings, tags, an unmanaged repo. */
export interface Extras {
  humans: { group: number; name: string; role: (typeof BUILTINS)[number] }[];
  tags: number[];
  handRepo?: number;
}

export const extrasArb: fc.Arbitrary<Extras> = fc.record({
  humans: fc.uniqueArray(
    fc.record({
      group: fc.nat(10),
      name: fc.constantFrom('human-ann', 'human-bob', 'human-cid'),
      role: fc.constantFrom(...BUILTINS),
    }),
    { maxLength: 3, selector: (h) => h.name },
  ),
  tags: fc.uniqueArray(fc.nat(8), { maxLength: 2 }),
  handRepo: maybe(fc.nat(6)),
});

/** A change made by hand between `plan --out` and `apply plan.json`. */
export type HandEdit =
  | { op: 'none' }
  | { op: 'describe'; at: number }
  | { op: 'delete'; at: number }
  | { op: 'create'; at: number };
export const handEditArb: fc.Arbitrary<HandEdit> = fc.oneof(
  fc.constant({ op: 'none' as const }),
  fc.record({ op: fc.constant('describe' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('create' as const), at: fc.nat() }),
);

/** Faults while applying: resets and 500s (some after the change was made), or an interrupt after a few steps. */
export type ApplyFault = { kind: 'none' } | { kind: 'resets'; seed: number } | { kind: 'interrupt'; after: number };
export const faultArb: fc.Arbitrary<ApplyFault> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resets' as const), seed: fc.nat(1_000_000) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('interrupt' as const), after: fc.integer({ min: 1, max: 6 }) }),
  },
);

/** Every group of the model, depth first, with its path from the org root ('' for the org). */
export function groupsOf(org: MGroup): { path: string; group: MGroup; depth: number }[] {
  const out: { path: string; group: MGroup; depth: number }[] = [];
  const walk = (g: MGroup, path: string, depth: number) => {
    out.push({ path, group: g, depth });
    for (const c of g.groups) walk(c, path === '' ? c.name : `${path}/${c.name}`, depth + 1);
  };
  walk(org, '', 0);
  return out;
}

/** Role names a binding in the group at `index` of groupsOf may use: built-ins, then custom roles of it and its ancestors. */
export function rolesVisible(all: { path: string; group: MGroup }[], index: number): string[] {
  const path = all[index]!.path;
  const custom = all
    .filter((g) => g.path === '' || path === g.path || path.startsWith(`${g.path}/`))
    .flatMap((g) => g.group.roles.map((r) => r.name));
  // The nearest one wins for a bare name: list each name once.
  return [...BUILTINS, ...new Set(custom)];
}

type Item = {
  group: MGroup;
  list: 'identities' | 'roles' | 'bindings' | 'repos' | 'subscriptions' | 'idps' | 'groups' | 'association';
  index: number;
  path: string;
};

/** Every declared item of the model, for edits by index. */
function itemsOf(org: MGroup): Item[] {
  const items: Item[] = [];
  for (const { group, path } of groupsOf(org)) {
    for (const list of ['identities', 'roles', 'bindings', 'repos', 'subscriptions', 'idps', 'groups'] as const) {
      (group[list] as unknown[]).forEach((_, index) => items.push({ group, list, index, path }));
    }
    if (group.association) items.push({ group, list: 'association', index: 0, path });
  }
  return items;
}

/** The org model with `edits` applied (a deep copy; an edit that does not fit what is there does nothing). */
export function applyEdits(org: MOrg, edits: readonly Edit[]): MOrg {
  const next = structuredClone(org);
  for (const edit of edits) {
    const items = itemsOf(next);
    if (items.length === 0) break;
    const item = items[edit.at % items.length]!;
    const list =
      item.list === 'association' ? undefined : (item.group[item.list] as unknown as Record<string, unknown>[]);
    const target = list ? list[item.index]! : (item.group.association as unknown as Record<string, unknown>);
    const groups = groupsOf(next);
    switch (edit.op) {
      case 'remove':
        if (list) list.splice(item.index, 1);
        else delete item.group.association;
        break;
      case 'describe':
        if (['identities', 'roles', 'repos', 'groups'].includes(item.list)) target.description = edit.text;
        break;
      case 'rename': {
        if (!['identities', 'roles', 'repos', 'groups', 'idps'].includes(item.list) || !list) break;
        if (list.some((x) => x.name === edit.to) || target.renamedFrom !== undefined) break;
        if (edit.declare) target.renamedFrom = target.name;
        target.name = edit.to;
        break;
      }
      case 'move': {
        if (!['identities', 'repos'].includes(item.list) || !list) break;
        const to = groups[edit.to % groups.length]!.group;
        const into = to[item.list as 'identities' | 'repos'] as unknown as Record<string, unknown>[];
        if (to === item.group || into.some((x) => x.name === target.name)) break;
        list.splice(item.index, 1);
        into.push(target);
        break;
      }
      case 'add': {
        const g = groups[edit.at % groups.length]!;
        const fresh = (names: string[], taken: { name: string }[]) =>
          names.find((n) => !taken.some((t) => t.name === n));
        if (edit.what === 'identity') {
          const name = fresh(['deploy', 'ci', 'bot'], g.group.identities);
          if (name) g.group.identities.push({ name, relationship: edit.at % 4 });
        } else if (edit.what === 'repo') {
          const name = fresh(['legacy', 'web', 'app'], g.group.repos);
          if (name) g.group.repos.push({ name, readme: '# new\n' });
        } else if (edit.what === 'role') {
          const name = fresh(['writer', 'reader'], g.group.roles);
          if (name) g.group.roles.push({ name, capabilities: ['repo.list'] });
        } else if (edit.what === 'group' && g.depth < MAX_DEPTH) {
          const name = fresh(['c', 'a', 'b'], g.group.groups);
          // A new group binds its own identity and one of its parent's (a grant it may already inherit).
          const bindings: MBinding[] = [
            { identity: 0, role: 0 },
            ...(g.depth > 0 ? [{ identity: edit.at >> 3, role: edit.at >> 5, up: 1 }] : []),
          ];
          if (name)
            g.group.groups.push({
              name,
              identities: [{ name: 'bot', relationship: 0 }],
              roles: [],
              bindings,
              repos: [],
              subscriptions: [],
              idps: [],
              groups: [],
            });
        } else if (edit.what === 'binding') {
          const up = g.depth > 0 ? (edit.at >> 4) % (g.depth + 1) : 0;
          g.group.bindings.push({ identity: edit.at, role: edit.at >> 2, ...(up > 0 ? { up } : {}) });
        } else if (edit.what === 'subscription' && !g.group.subscriptions.includes('https://hooks.acme.dev/c')) {
          g.group.subscriptions.push('https://hooks.acme.dev/c');
        }
        break;
      }
      case 'role':
        // A binding's role, an identity's relationship (widened or narrowed), a provider's default role.
        if (item.list === 'bindings') target.role = edit.role;
        else if (item.list === 'identities') target.relationship = edit.role;
        else if (item.list === 'idps') target.defaultRole = edit.role;
        break;
      case 'byUid':
        if (item.list === 'bindings') target.byUid = true;
        break;
      case 'pattern': {
        // A pattern edited within its family (the base widened or narrowed), an ARN pattern widened; any other relationship becomes the base.
        const identities = groups.flatMap((g) => g.group.identities);
        const identity = identities[edit.at % Math.max(1, identities.length)];
        if (!identity) break;
        const now = identity.relationship % RELATIONSHIPS.length;
        const family = FAMILIES.find((f) => f.includes(now));
        identity.relationship = family ? family[edit.to % family.length]! : PATTERN_BASE;
        break;
      }
      case 'rebind': {
        // A binding repeated on a group below its own (three levels down and more, where it can):
        // the same identity and role, which that group already inherits — no gain (issue 58).
        const holders = groups.filter((g) => g.group.bindings.some((b) => !b.human));
        if (holders.length === 0) break;
        const at = holders[edit.at % holders.length]!;
        const own = at.group.bindings.filter((b) => !b.human);
        const b = own[(edit.at >> 3) % own.length]!;
        const below = groups
          .filter((g) => g.depth > at.depth && (at.path === '' || g.path.startsWith(`${at.path}/`)))
          .sort((x, y) => y.depth - x.depth);
        if (below.length === 0) break;
        const to = below[(edit.at >> 6) % Math.min(2, below.length)]!;
        const roles = rolesVisible(groups, groups.indexOf(at)).length;
        to.group.bindings.push({
          identity: b.identity,
          role: b.role % roles,
          up: to.depth - at.depth + (b.up ?? 0),
          ...(b.byUid ? { byUid: true } : {}),
        });
        break;
      }
      case 'bindHuman': {
        const g = groups[edit.at % groups.length]!;
        g.group.bindings.push({ identity: edit.at, role: edit.role, human: true });
        break;
      }
    }
  }
  return next;
}
