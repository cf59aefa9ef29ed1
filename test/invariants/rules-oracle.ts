/**
 * The oracle of access rules and escalation (issue 59 item 4), written from DESIGN.md §4
 * "Escalation (rev 6)" and "Access rules (rev 6)" and the service's catalog
 * (src/service/capabilities.json: `catalog`, `builtinRoles`, `escalating`), importing nothing of
 * src/access. It judges a state read back from the server by brute force over the access
 * oracle's concrete principals (tokens, AWS callers, e-mails, an IdP's groups and sign-ins):
 *
 * - *holds*: what a concrete principal's grants give on a group or an ancestor (access-oracle.ts);
 * - *can obtain*: holds, then to a fixpoint — on a group G where it can obtain
 *   `role_bindings.create|update`, `group_invites.create` or `identity_providers.create|update`:
 *   every capability of every role visible at G (the built-ins and the custom roles of G and its
 *   ancestors); `roles.update`: any capability; `roles.create` with one of those binding
 *   capabilities: any capability; `identity.update`: what every identity homed at G or below holds,
 *   where it holds it; `identity_providers.update`: besides, what every identity provider homed at
 *   G or below grants, where it grants it (its default role on its group, its mappings on the org:
 *   repointed, its people are whoever the holder says); `identity.create` alone: nothing. What it
 *   can obtain on G it can obtain below.
 *
 * Rules: `onlyPrincipals` — nobody outside the list can obtain a selected capability on the scope
 * or below; `count {min, max}` — how many principals hold every selected capability on the scope;
 * `token` + `never` — that token can obtain none of them on the scope or below.
 *
 * Where DESIGN reads two ways, the oracle computes both and answers `either` when they disagree
 * (the property then accepts either answer, and counts how often). DESIGN says an identity's
 * relationship is the principal: read *by principal*, identities with one relationship are one
 * principal (listed when one of them is, holding what all of them are granted, taken over together
 * by `identity.update`, counted once); read *by concrete principal*, a token is outside an
 * `onlyPrincipals` list when no listed identity accepts it, and holds what every identity that
 * accepts it is granted (taking over an identity gives that identity's grants). They differ when
 * an unlisted identity accepts only tokens a listed one accepts too, and a `count` differs when
 * two relationships written differently accept the same tokens.
 */
import { readFileSync } from 'node:fs';
import type { LiveResource, LiveState } from '../../src/model/resources.js';
import { accepts, OracleState, universe, type Concrete } from './access-oracle.js';

interface Catalog {
  catalog: string[];
  builtinRoles: Record<string, string[]>;
  escalating: Record<string, string>;
}
const CATALOG = JSON.parse(
  readFileSync(new URL('../../src/service/capabilities.json', import.meta.url), 'utf8'),
) as Catalog;
/** The built-in roles' capabilities, as the catalog lists them. */
export const BUILTIN_ROLES: Readonly<Record<string, readonly string[]>> = CATALOG.builtinRoles;
/** Capabilities that obtain every capability of every role visible where they are held. */
const BINDERS = [
  'role_bindings.create',
  'role_bindings.update',
  'group_invites.create',
  'identity_providers.create',
  'identity_providers.update',
];
// The catalog must say so: a binder the catalog does not call escalating is a misreading here.
for (const c of [...BINDERS, 'roles.update', 'roles.create', 'identity.update', 'identity.create'])
  if (!(c in CATALOG.escalating)) throw new Error(`rules oracle: ${c} is not escalating in the catalog`);

/** A rule as the manifests state it (the generator's, DESIGN §3). */
export interface GenRule {
  name: string;
  capabilities?: string[];
  role?: string;
  scope?: string;
  onlyPrincipals?: string[];
  count?: { min?: number; max?: number };
  token?: Record<string, string>;
  never?: true;
}

/** A rule's verdict: broken, kept, or `either` where DESIGN's two readings disagree. */
export interface Verdict {
  rule: string;
  broken: boolean | 'either';
  /** Who breaks it, how (for messages). */
  why: string;
  /** Broken by what someone obtains through escalation only (what they hold keeps it): the closure decides. */
  byEscalation?: boolean;
}

type Caps = Map<string, Set<string>>;
type Reading = 'record' | 'class';

const relationshipOf = (r: LiveResource): string => {
  const f = r.fields as unknown as Record<string, unknown>;
  return JSON.stringify(['claimMatch', 'awsIdentity', 'staticKeys', 'servicePrincipal'].map((k) => f[k] ?? null));
};

/** One state prepared for the rules: groups top-down, children, roles visible, identities by home. */
class RulesState {
  readonly st: OracleState;
  readonly groups: string[];
  readonly children = new Map<string, string[]>();
  readonly everything: Set<string>;
  private readonly visible = new Map<string, Set<string>>();
  readonly identities: LiveResource[];
  readonly providers: LiveResource[];
  private readonly pulls = new Map<string, Caps>();

  constructor(
    readonly live: LiveState,
    now: number,
  ) {
    this.st = new OracleState(live, now);
    const depth = (g: string): number => {
      let n = 0;
      for (let p = this.st.parent.get(g); p != null && n < 64; p = this.st.parent.get(p)) n++;
      return n;
    };
    this.groups = [...this.st.parent.keys()].sort((a, b) => depth(a) - depth(b));
    for (const [g, p] of this.st.parent) if (p !== null) this.children.set(p, [...(this.children.get(p) ?? []), g]);
    const roles = live.resources.filter((r) => r.kind === 'role');
    this.everything = new Set([
      ...CATALOG.catalog,
      ...Object.values(live.builtinRoleCapabilities ?? {}).flat(),
      ...roles.flatMap((r) => (r.fields as { capabilities?: string[] }).capabilities ?? []),
    ]);
    const builtin = Object.values(live.builtinRoleCapabilities ?? {}).flat();
    for (const g of this.groups) {
      const parent = this.st.parent.get(g);
      const set = new Set(parent == null ? builtin : this.visible.get(parent)!);
      for (const r of roles)
        if (r.parentUid === g) for (const c of (r.fields as { capabilities?: string[] }).capabilities ?? []) set.add(c);
      this.visible.set(g, set);
    }
    this.identities = live.resources.filter((r) => r.kind === 'identity');
    this.providers = live.resources.filter((r) => r.kind === 'identityProvider');
  }

  /** Whether group `g` is `top` or below it. */
  within(g: string, top: string): boolean {
    for (let x: string | null | undefined = g, n = 0; x != null && n < 64; x = this.st.parent.get(x), n++)
      if (x === top) return true;
    return false;
  }

  /** Inherited holdings of `direct` on every group. */
  held(direct: Map<string, Set<string>>): Caps {
    const out: Caps = new Map();
    for (const g of this.groups) {
      const p = this.st.parent.get(g);
      out.set(g, new Set([...(p == null ? [] : out.get(p)!), ...(direct.get(g) ?? [])]));
    }
    return out;
  }

  /** What taking over identity `x` (by `identity.update`) gives: its own bindings', or those of every identity accepting the same tokens. */
  private pulled(x: LiveResource, reading: Reading): Caps {
    const key = `${reading}:${x.uid}`;
    let caps = this.pulls.get(key);
    if (!caps) {
      const uids =
        reading === 'record'
          ? [x.uid]
          : this.identities.filter((i) => relationshipOf(i) === relationshipOf(x)).map((i) => i.uid);
      this.pulls.set(key, (caps = this.held(this.st.identityGrants(new Set(uids)))));
    }
    return caps;
  }

  /** What repointing identity provider `idp` gives: its default role on its group, each of its mappings' roles on the org. */
  private providerGrants(idp: LiveResource): Caps {
    const direct = new Map<string, Set<string>>();
    const give = (g: string | null, caps: readonly string[]): void => {
      if (g === null || !this.st.parent.has(g)) return;
      direct.set(g, new Set([...(direct.get(g) ?? []), ...caps]));
    };
    const org = this.groups.find((g) => this.st.parent.get(g) === null) ?? null;
    give(idp.parentUid, this.st.roleCapabilities((idp.fields as { defaultRole?: unknown }).defaultRole));
    for (const m of this.live.resources)
      if (m.kind === 'groupMapping' && m.parentUid === idp.uid)
        give(org, this.st.roleCapabilities((m.fields as { role?: unknown }).role));
    return this.held(direct);
  }

  /** Holds, then the closure through escalating capabilities, to a fixpoint (see the file's comment). */
  canObtain(held: Caps, reading: Reading): Caps {
    const can: Caps = new Map([...held].map(([g, c]) => [g, new Set(c)]));
    const add = (g: string, caps: Iterable<string>): boolean => {
      const set = can.get(g);
      if (!set) return false;
      const n = set.size;
      for (const c of caps) set.add(c);
      return set.size > n;
    };
    const taken = new Set<string>();
    for (let changed = true, round = 0; changed && round < 64; round++) {
      changed = false;
      for (const g of this.groups) {
        const caps = can.get(g)!;
        const binder = BINDERS.some((b) => caps.has(b));
        if (binder) changed = add(g, this.visible.get(g)!) || changed;
        if (caps.has('roles.update') || (caps.has('roles.create') && binder))
          changed = add(g, this.everything) || changed;
        if (caps.has('identity_providers.update')) {
          for (const idp of this.providers) {
            if (idp.parentUid === null || !this.within(idp.parentUid, g) || taken.has(idp.uid)) continue;
            taken.add(idp.uid);
            for (const [h, theirs] of this.providerGrants(idp)) changed = add(h, theirs) || changed;
          }
        }
        if (caps.has('identity.update')) {
          for (const x of this.identities) {
            if (x.parentUid === null || !this.within(x.parentUid, g) || taken.has(x.uid)) continue;
            taken.add(x.uid);
            for (const [h, theirs] of this.pulled(x, reading)) changed = add(h, theirs) || changed;
          }
        }
      }
      // What it can obtain on a group it can obtain below it (a role bound there is bound below).
      for (const g of this.groups) for (const c of this.children.get(g) ?? []) changed = add(c, can.get(g)!) || changed;
    }
    return can;
  }
}

/** The capabilities a rule selects in this state: a built-in role's as the server lists it, a custom role's as it reads. */
function selected(rule: GenRule, live: LiveState): string[] {
  if (rule.capabilities) return rule.capabilities;
  const builtin = live.builtinRoleCapabilities?.[rule.role!];
  if (builtin) return [...builtin];
  const role = live.resources.find((r) => r.kind === 'role' && r.address === `role:${rule.role}`);
  return (role?.fields as { capabilities?: string[] } | undefined)?.capabilities ?? [];
}

/** Every rule's verdict on `live` (the state a plan led to, read back). */
export function judgeRules(
  live: LiveState,
  rules: readonly GenRule[],
  now: number,
  aliases: (address: string) => string[] = (a) => [a],
): Verdict[] {
  const rs = new RulesState(live, now);
  const who = universe([live]);
  const cache = new Map<string, { held: Caps; record: Caps }>();
  const views = (w: Concrete) => {
    let v = cache.get(w.label);
    if (!v) {
      const held = rs.held(rs.st.grants(w));
      cache.set(w.label, (v = { held, record: rs.canObtain(held, 'record') }));
    }
    return v;
  };
  const orgUid = rs.groups[0];
  return rules.map((rule) => {
    const scopeAddress = rule.scope === undefined || rule.scope === '' ? 'org' : `group:${rule.scope}`;
    // The scope names a declared group: the live one it is, under the manifests' renames too.
    const scope =
      rule.scope === undefined || rule.scope === ''
        ? orgUid
        : [...rs.st.address].find(([, a]) => aliases(scopeAddress).includes(a))?.[0];
    if (scope === undefined) return { rule: rule.name, broken: false, why: `${scopeAddress} is not there` };
    const caps = selected(rule, live);
    const inScope = rs.groups.filter((g) => rs.within(g, scope));
    const obtains = (can: Caps): string | undefined => {
      for (const g of inScope) {
        const c = caps.find((x) => can.get(g)?.has(x));
        if (c !== undefined) return `${c} on ${rs.st.address.get(g)}`;
      }
      return undefined;
    };
    if (rule.token) {
      const token: Concrete = { kind: 'token', claims: rule.token, label: `rule token ${JSON.stringify(rule.token)}` };
      // The token as a concrete principal (what every identity accepting it is granted), or each
      // identity class accepting it on its own (by principal); either answer where they differ.
      const concrete = obtains(views(token).record);
      const classes = new Map<string, string[]>();
      for (const i of rs.identities)
        if (accepts(i, token)) classes.set(relationshipOf(i), [...(classes.get(relationshipOf(i)) ?? []), i.uid]);
      const principal = [...classes.values()]
        .map((uids) => obtains(rs.canObtain(rs.held(rs.st.identityGrants(new Set(uids))), 'class')))
        .find((x) => x !== undefined);
      const broken = (concrete !== undefined) === (principal !== undefined) ? concrete !== undefined : 'either';
      return {
        rule: rule.name,
        broken,
        why: `${token.label} can obtain ${concrete ?? `by principal only: ${principal}`}`,
        byEscalation: broken === true && obtains(views(token).held) === undefined,
      };
    }
    if (rule.onlyPrincipals) return judgeOnly(rule, rs, who, views, obtains, aliases);
    return judgeCount(rule, rs, who, views, caps, scope);
  });
}

type Views = (w: Concrete) => { held: Caps; record: Caps };

/**
 * `onlyPrincipals`, read two ways: by principal (an identity's relationship is the principal:
 * identities that accept the same tokens are one, listed when one of them is, holding what all of
 * them are granted) and by concrete principal (a token is outside the list when no listed identity
 * accepts it, and holds what every identity accepting it is granted). Either answer where they differ.
 */
function judgeOnly(
  rule: GenRule,
  rs: RulesState,
  who: Concrete[],
  views: Views,
  obtains: (can: Caps) => string | undefined,
  aliases: (address: string) => string[],
): Verdict {
  // A listed identity is a declared one: the live one it is, under the manifests' renames too.
  const listed = new Set(
    rule
      .onlyPrincipals!.filter((p) => p.startsWith('identity:'))
      .flatMap((p) => aliases(p.replace(/^identity:\/?/, 'identity:'))),
  );
  const emails = new Set(
    rule.onlyPrincipals!.filter((p) => p.startsWith('email:')).map((p) => p.slice('email:'.length).toLowerCase()),
  );
  const listedIdentities = rs.identities.filter((i) => listed.has(i.address));
  const people = (w: Concrete): boolean => ['email', 'code', 'idpGroup', 'signIn'].includes(w.kind);
  // By principal: each unlisted identity class, and each person, provider group or sign-in.
  let byPrincipal: string | undefined;
  const classes = new Map<string, string[]>();
  for (const i of rs.identities) classes.set(relationshipOf(i), [...(classes.get(relationshipOf(i)) ?? []), i.uid]);
  for (const [relationship, uids] of classes) {
    if (listedIdentities.some((l) => relationshipOf(l) === relationship)) continue;
    const hit = obtains(rs.canObtain(rs.held(rs.st.identityGrants(new Set(uids))), 'class'));
    if (hit !== undefined) {
      byPrincipal = `${rs.identities.find((i) => i.uid === uids[0])!.address} can obtain ${hit}`;
      break;
    }
  }
  for (const w of who) {
    if (byPrincipal !== undefined) break;
    if (!people(w) || (w.kind === 'email' && emails.has(w.email))) continue;
    const hit = obtains(views(w).record);
    if (hit !== undefined) byPrincipal = `${w.label} can obtain ${hit}`;
  }
  // By concrete principal: whoever no listed identity accepts (nor a listed e-mail names).
  let byConcrete: string | undefined;
  let holding = false;
  for (const w of who) {
    if (w.kind === 'email' && emails.has(w.email)) continue;
    if (!people(w) && listedIdentities.some((l) => accepts(l, w))) continue;
    if (obtains(views(w).held) !== undefined) holding = true;
    const hit = byConcrete === undefined ? obtains(views(w).record) : undefined;
    if (hit !== undefined) byConcrete = `${w.label} can obtain ${hit}`;
  }
  const broken = (byPrincipal !== undefined) === (byConcrete !== undefined) ? byPrincipal !== undefined : 'either';
  const why =
    byPrincipal !== undefined && byConcrete !== undefined
      ? byConcrete
      : byPrincipal !== undefined
        ? `by principal only: ${byPrincipal}`
        : byConcrete !== undefined
          ? `by concrete principal only: ${byConcrete}`
          : 'nobody outside the list can obtain them';
  return { rule: rule.name, broken, why, byEscalation: broken === true && !holding };
}

function judgeCount(
  rule: GenRule,
  rs: RulesState,
  who: Concrete[],
  views: Views,
  caps: readonly string[],
  scope: string,
): Verdict {
  // Principals: an identity class by its relationship as written (text), or classes that accept the
  // same concrete principals merged (meaning); people by e-mail, an invite's code, an IdP group or sign-in each one.
  const holdsAll = (held: Caps): boolean => caps.length > 0 && caps.every((c) => held.get(scope)?.has(c));
  const byText = new Map<string, string[]>();
  for (const i of rs.identities) byText.set(relationshipOf(i), [...(byText.get(relationshipOf(i)) ?? []), i.uid]);
  const holdingClasses = [...byText.values()].filter((uids) => holdsAll(rs.held(rs.st.identityGrants(new Set(uids)))));
  const signature = (uids: string[]): string =>
    who
      .filter((w) => rs.identities.some((i) => uids.includes(i.uid) && accepts(i, w)))
      .map((w) => w.label)
      .join('\n');
  const people = who.filter(
    (w) => !['token', 'aws', 'service', 'keys'].includes(w.kind) && holdsAll(views(w).held),
  ).length;
  const text = holdingClasses.length + people;
  const meaning = new Set(holdingClasses.map(signature)).size + people;
  const { min, max } = rule.count!;
  const broken = (n: number): boolean => (min !== undefined && n < min) || (max !== undefined && n > max);
  return {
    rule: rule.name,
    broken: broken(text) === broken(meaning) ? broken(text) : 'either',
    why: `${text} principals hold them (${meaning} by what they accept)`,
  };
}
