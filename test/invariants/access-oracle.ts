/**
 * An oracle of effective access of its own (issue 46, STYLE.md 17): written from DESIGN.md §4
 * "Effective access", importing nothing of the product's access model. It decides, by brute
 * force over a finite universe of concrete principals — tokens with a concrete issuer, subject
 * and claims (an outsider's `repo:evil/x:…` among them), AWS callers, service principals,
 * e-mails, identity-provider groups and sign-ins — whether each holds each capability on each
 * group of two states read back from the server, and so which of them gained what.
 */
import { RE2JS } from 're2js';
import type { LiveResource, LiveState } from '../../src/model/resources.js';
import { PROBE_ISSUERS, PROBE_OWNERS, PROBE_SUBJECTS } from './gen-relationships.js';

const ISSUERS = PROBE_ISSUERS;
const SUBJECTS = PROBE_SUBJECTS;
const OWNERS = PROBE_OWNERS;
const ARNS = [
  'arn:aws:sts::123456789012:assumed-role/deploy/x',
  'arn:aws:sts::123456789012:assumed-role/other/x',
  'arn:aws:sts::123456789012:assumed-role/deployer/x',
];
const ACCOUNTS = ['123456789012', '210987654321'];
const SERVICES = ['COSIGNED', 'INGESTER', 'CATALOG_SYNCER', 'APKO_BUILDER'];

/** A concrete principal: who can act. */
export type Concrete =
  | { kind: 'token'; claims: Record<string, string>; label: string }
  | { kind: 'aws'; account: string; arn: string; label: string }
  | { kind: 'service'; name: string; label: string }
  | { kind: 'keys'; iss: string; sub: string; keys: string; aud: string | undefined; label: string }
  | { kind: 'email'; email: string; label: string }
  | { kind: 'code'; invite: string; label: string }
  | { kind: 'idpGroup'; issuer: string; claim: string; group: string; label: string }
  | { kind: 'signIn'; issuer: string; label: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Per pattern: its RE2 (null when invalid) and what it said of each text asked (the probes recur case after case). */
const compiled = new Map<string, { re: ReturnType<typeof RE2JS.compile> | null; said: Map<string, boolean> }>();
/** Whether RE2 `pattern` matches the whole of `text` (the service anchors a pattern at both ends); an invalid pattern matches nothing. */
export const full = (pattern: string, text: string): boolean => {
  let entry = compiled.get(pattern);
  if (entry === undefined) {
    let re: ReturnType<typeof RE2JS.compile> | null;
    try {
      re = RE2JS.compile(pattern);
    } catch {
      re = null;
    }
    compiled.set(pattern, (entry = { re, said: new Map() }));
  }
  let matches = entry.said.get(text);
  if (matches === undefined) {
    matches = entry.re?.matcher(text).matches() ?? false;
    // Bounded: a deep run's thousands of cases meet more texts than a default run's.
    if (entry.said.size < 10_000) entry.said.set(text, matches);
  }
  return matches;
};
const lower = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const pair = (o: Obj, exact: string, pattern: string, value: string | undefined, optional: boolean): boolean =>
  typeof o[exact] === 'string'
    ? value === o[exact]
    : typeof o[pattern] === 'string'
      ? value !== undefined && full(o[pattern] as string, value)
      : optional;

const issuerOf = (idp: LiveResource): string =>
  String(((idp.fields as unknown as Obj).oidc as Obj | undefined)?.issuer);
/** The claim the provider reads groups from: a group of another claim is other people (issue 58). */
const groupsClaimOf = (idp: LiveResource): string =>
  String(((idp.fields as unknown as Obj).oidc as Obj | undefined)?.groupsClaim);

/** Whether an identity (its live fields) accepts the concrete principal. */
export function accepts(identity: LiveResource, who: Concrete): boolean {
  const f = identity.fields as unknown as Obj;
  if (isObj(f.claimMatch) && who.kind === 'token') {
    const m = f.claimMatch;
    if (
      !pair(m, 'issuer', 'issuerPattern', who.claims.iss, false) ||
      !pair(m, 'subject', 'subjectPattern', who.claims.sub, false) ||
      !pair(m, 'audience', 'audiencePattern', who.claims.aud, true)
    )
      return false;
    for (const [k, v] of Object.entries(isObj(m.claims) ? m.claims : {})) if (who.claims[k] !== v) return false;
    for (const [k, v] of Object.entries(isObj(m.claimPatterns) ? m.claimPatterns : {}))
      if (who.claims[k] === undefined || !full(String(v), who.claims[k]!)) return false;
    return true;
  }
  if (isObj(f.awsIdentity) && who.kind === 'aws') {
    const a = f.awsIdentity;
    return (
      a.awsAccount === who.account &&
      pair(a, 'arn', 'arnPattern', who.arn, true) &&
      pair(a, 'userId', 'userIdPattern', undefined, true)
    );
  }
  if (typeof f.servicePrincipal === 'string' && who.kind === 'service')
    return f.servicePrincipal.replace(/^SERVICE_PRINCIPAL_/, '') === who.name;
  if (isObj(f.staticKeys) && who.kind === 'keys') {
    const k = f.staticKeys;
    return (
      k.issuer === who.iss &&
      k.subject === who.sub &&
      k.issuerKeys === who.keys &&
      (!Array.isArray(k.audiences) || (who.aud !== undefined && k.audiences.includes(who.aud)))
    );
  }
  return false;
}

/** The universe: every concrete principal either state could name, and probes beyond them. */
export function universe(states: readonly LiveState[]): Concrete[] {
  const out: Concrete[] = [];
  for (const iss of ISSUERS)
    for (const sub of SUBJECTS)
      for (const owner of OWNERS) {
        const claims: Record<string, string> = { iss, sub, ...(owner ? { repository_owner: owner } : {}) };
        out.push({ kind: 'token', claims, label: `token ${JSON.stringify(claims)}` });
      }
  for (const account of ACCOUNTS)
    for (const arn of ARNS) out.push({ kind: 'aws', account, arn, label: `aws ${account} ${arn}` });
  for (const name of SERVICES) out.push({ kind: 'service', name, label: `service ${name}` });
  const seen = new Set<string>();
  const once = (c: Concrete): void => {
    if (!seen.has(c.label)) {
      seen.add(c.label);
      out.push(c);
    }
  };
  for (const live of states) {
    for (const r of live.resources) {
      const f = r.fields as unknown as Obj;
      if (r.kind === 'identity' && isObj(f.staticKeys)) {
        const k = f.staticKeys;
        const auds = Array.isArray(k.audiences) ? (k.audiences as string[]) : [undefined];
        for (const aud of [...auds, 'other-audience'])
          once({
            kind: 'keys',
            iss: String(k.issuer),
            sub: String(k.subject),
            keys: String(k.issuerKeys),
            aud,
            label: `keys ${String(k.issuer)} ${String(k.subject)} ${String(k.issuerKeys)} /${aud}`,
          });
      }
      if (r.kind === 'identity' && isObj(f.claimMatch)) {
        const m = f.claimMatch;
        if (typeof m.issuer === 'string' && typeof m.subject === 'string') {
          const claims: Record<string, string> = {
            iss: m.issuer,
            sub: m.subject,
            ...(isObj(m.claims) ? (m.claims as Record<string, string>) : {}),
            ...(typeof m.audience === 'string' ? { aud: m.audience } : {}),
          };
          once({ kind: 'token', claims, label: `token ${JSON.stringify(claims)}` });
        }
      }
      if (r.kind === 'groupInvite') {
        if (typeof f.email === 'string' && f.email !== '')
          once({ kind: 'email', email: lower(f.email), label: `email ${lower(f.email)}` });
        else once({ kind: 'code', invite: r.uid, label: `code ${r.uid}` });
      }
      // An identity provider's people are those its issuer signs in, wherever the provider lies.
      if (r.kind === 'identityProvider') once({ kind: 'signIn', issuer: issuerOf(r), label: `sign-in ${issuerOf(r)}` });
      if (r.kind === 'groupMapping') {
        const idp = live.resources.find((x) => x.uid === r.parentUid);
        if (idp)
          once({
            kind: 'idpGroup',
            issuer: issuerOf(idp),
            claim: groupsClaimOf(idp),
            group: String(f.externalGroup),
            label: `idp-group ${issuerOf(idp)} ${groupsClaimOf(idp)} ${String(f.externalGroup)}`,
          });
      }
    }
  }
  return out;
}

/** One state, read for the oracle: groups by uid, each role's capabilities, and what each principal is granted where. */
export class OracleState {
  readonly parent = new Map<string, string | null>();
  readonly address = new Map<string, string>();
  private readonly caps = new Map<string, readonly string[]>();
  private readonly byAddress = new Map<string, LiveResource>();

  constructor(
    readonly live: LiveState,
    private readonly now: number,
  ) {
    for (const r of live.resources) this.byAddress.set(r.address, r);
    for (const r of live.resources) {
      if (r.kind === 'group') {
        this.parent.set(r.uid, r.parentUid);
        this.address.set(r.uid, r.address);
      }
      if (r.kind === 'role') this.caps.set(r.uid, (r.fields as { capabilities?: string[] }).capabilities ?? []);
    }
    for (const [name, uid] of Object.entries(live.builtinRoles))
      this.caps.set(uid, live.builtinRoleCapabilities?.[name] ?? []);
  }

  /** The capabilities of the role a reference names (for the rules oracle). */
  roleCapabilities(ref: unknown): readonly string[] {
    return this.role(ref);
  }

  private role(ref: unknown): readonly string[] {
    if (!isObj(ref)) return [];
    if (typeof ref.builtin === 'string') return this.caps.get(this.live.builtinRoles[ref.builtin] ?? '') ?? [];
    if (typeof ref.uid === 'string') return this.caps.get(ref.uid) ?? [];
    if (typeof ref.path === 'string') return this.caps.get(this.byAddress.get(`role:${ref.path}`)?.uid ?? '') ?? [];
    return [];
  }

  private identity(ref: unknown): LiveResource | undefined {
    if (!isObj(ref)) return undefined;
    if (typeof ref.path === 'string') return this.byAddress.get(`identity:${ref.path}`);
    return typeof ref.uid === 'string'
      ? this.live.resources.find((r) => r.uid === ref.uid && r.kind === 'identity')
      : undefined;
  }

  /** Capabilities granted to `who` directly on each group (uid). */
  grants(who: Concrete): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    const give = (group: string | null, caps: readonly string[]) => {
      if (group === null || !this.parent.has(group)) return;
      const set = out.get(group) ?? new Set<string>();
      for (const c of caps) set.add(c);
      out.set(group, set);
    };
    const org = [...this.parent].find(([, p]) => p === null)?.[0] ?? null;
    for (const r of this.live.resources) {
      const f = r.fields as unknown as Obj;
      if (r.kind === 'roleBinding') {
        const i = this.identity(f.identity);
        if (i && accepts(i, who)) give(r.parentUid, this.role(f.role));
      } else if (r.kind === 'groupInvite') {
        if (Date.parse(String(f.expirationTime)) <= this.now) continue;
        const email = typeof f.email === 'string' && f.email !== '' ? lower(f.email) : undefined;
        if (
          (who.kind === 'email' && email === who.email) ||
          (who.kind === 'code' && email === undefined && who.invite === r.uid)
        )
          give(r.parentUid, this.role(f.role));
      } else if (r.kind === 'identityProvider') {
        if (who.kind === 'signIn' && who.issuer === issuerOf(r) && f.defaultRole !== undefined)
          give(r.parentUid, this.role(f.defaultRole));
      } else if (r.kind === 'groupMapping') {
        const idp = this.live.resources.find((x) => x.uid === r.parentUid);
        if (
          who.kind === 'idpGroup' &&
          idp !== undefined &&
          issuerOf(idp) === who.issuer &&
          groupsClaimOf(idp) === who.claim &&
          who.group === f.externalGroup
        )
          give(org, this.role(f.role));
      }
    }
    return out;
  }

  /** Capabilities the role bindings of the identities `uids` grant on each group (uid), directly. */
  identityGrants(uids: ReadonlySet<string>): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const r of this.live.resources) {
      if (r.kind !== 'roleBinding' || r.parentUid === null || !this.parent.has(r.parentUid)) continue;
      const f = r.fields as unknown as Obj;
      const i = this.identity(f.identity);
      if (!i || !uids.has(i.uid)) continue;
      const set = out.get(r.parentUid) ?? new Set<string>();
      for (const c of this.role(f.role)) set.add(c);
      out.set(r.parentUid, set);
    }
    return out;
  }

  /** What `who` holds on `group` through `direct`: grants on it or any ancestor. */
  held(direct: Map<string, Set<string>>, group: string): Set<string> {
    const out = new Set<string>();
    for (let g: string | null | undefined = group, n = 0; g != null && n < 64; g = this.parent.get(g), n++)
      for (const c of direct.get(g) ?? []) out.add(c);
    return out;
  }

  /** The nearest group here at or above `group` of `other` (a group one side lacks holds what its nearest ancestor holds). */
  nearest(other: OracleState, group: string): string | undefined {
    for (let g: string | null | undefined = group, n = 0; g != null && n < 64; g = other.parent.get(g), n++)
      if (this.parent.has(g)) return g;
    return undefined;
  }
}

export interface Gain {
  who: Concrete;
  capability: string;
  group: string;
  /** Identities of the after state that accept the principal (for tokens). */
  via: string[];
}

/** Every (concrete principal, capability, group) allowed after and not before. */
export function oracleGains(before: LiveState, after: LiveState, now: number): Gain[] {
  const b = new OracleState(before, now);
  const a = new OracleState(after, now);
  const groups = new Set([...b.parent.keys(), ...a.parent.keys()]);
  const gains: Gain[] = [];
  for (const who of universe([before, after])) {
    const db = b.grants(who);
    const da = a.grants(who);
    if (da.size === 0) continue;
    // The identities that accept `who` after: the same for each of its gains, found once.
    let via: string[] | undefined;
    for (const g of groups) {
      const gb = b.parent.has(g) ? g : b.nearest(a, g);
      const ga = a.parent.has(g) ? g : a.nearest(b, g);
      const had = gb === undefined ? new Set<string>() : b.held(db, gb);
      const has = ga === undefined ? new Set<string>() : a.held(da, ga);
      for (const c of has) {
        if (had.has(c)) continue;
        via ??= after.resources.filter((r) => r.kind === 'identity' && accepts(r, who)).map((r) => r.address);
        gains.push({ who, capability: c, group: a.address.get(g) ?? b.address.get(g) ?? g, via });
      }
    }
  }
  return gains;
}

/** Whether a change's principal names the concrete principal of a gain. */
export function namesPrincipal(principal: string, identity: string | undefined, gain: Gain): boolean {
  switch (gain.who.kind) {
    case 'email':
      return principal === `email:${gain.who.email}`;
    case 'code':
      return principal.startsWith('whoever holds the code of ');
    case 'idpGroup':
      return principal.startsWith('idp:') && principal.endsWith(`/group:${gain.who.group}`);
    case 'signIn':
      return principal.startsWith('idp:') && principal.endsWith('/*');
    default:
      return identity !== undefined && gain.via.includes(identity);
  }
}
