/**
 * `org.accessRules` read and checked (DESIGN.md §3, §4 "Access rules (rev 6)"): each rule selects
 * capabilities one way (`capabilities` or `role`), covers a declared group (`scope`, default the
 * org) and holds exactly one test (`onlyPrincipals`, `count`, or `token` with `never: true`).
 * Every name it uses must exist — a capability of the catalog, a role, a group, an identity or
 * identity provider the manifests declare — each problem with its location and a did-you-mean;
 * no rule may be one that can never fire; at most 256 rules (1,000 principals, 64 claims each). Pure.
 */
import type { AccessRule } from '../model/access-rules.js';
import { ACCESS_RULE_TESTS, parsePrincipalSpelling } from '../model/access-rules.js';
import type { RoleKey } from '../model/address.js';
import type { DesiredResource } from '../model/resources.js';
import { descriptorOf } from '../model/kinds.js';
import { unknownCapabilityMessage } from '../model/vocabulary.js';
import { BUILTIN_ROLE_CAPABILITIES } from '../service/catalog.js';
import { didYouMean } from '../util/suggest.js';
import { formatLocation } from './diagnostics.js';
import { asArray, asObject, asString, siteAt, type Obj, type Site } from './resolve-tables.js';

export interface PendingAccessRule {
  site: Site;
  value: Obj;
}

export interface AccessRuleContext {
  /** Every declared group path ('' is the org). */
  groupPaths: ReadonlySet<string>;
  resources: readonly DesiredResource[];
  knownCapabilities?: ReadonlySet<string>;
  resolveRole(site: Site, groupPath: string, ref: string, what: string): RoleKey | undefined;
  report(site: Site, message: string, target?: 'key' | 'value'): void;
}

/** Claims that a relationship reads first: a token without one of them is accepted by no identity. */
const IDENTIFYING_CLAIMS = ['iss', 'awsAccount', 'servicePrincipal'];

const pathOf = (address: string): string => address.slice(address.indexOf(':') + 1);

/** Bounds: a pull request writes the rules, and every plan judges each of them. */
export const MAX_ACCESS_RULES = 256;
const MAX_PRINCIPALS = 1000;
const MAX_CLAIMS = 64;

/** The rules of every document, checked; a rule with a problem is reported and left out. */
export function resolveAccessRules(pending: readonly PendingAccessRule[], ctx: AccessRuleContext): AccessRule[] {
  // Most manifests hold no rules: then nothing is to be judged, and no resource indexed for it.
  if (pending.length === 0) return [];
  // What each kind is to access (its descriptor): identities are principals, providers sign people in, roles hold capabilities.
  const identities = new Set<string>();
  const providers = new Set<string>();
  const roleCapabilities = new Map<string, string[]>();
  // Indexed: one pass over every resource, before V8 optimises it (a for…of allocates then).
  const resources = ctx.resources;
  for (let i = 0; i < resources.length; i++) {
    const r = resources[i]!;
    const access = descriptorOf(r.kind).access;
    if (access?.is === 'principal') identities.add(pathOf(r.address));
    else if (access?.is === 'grant' && access.to === 'signIn') providers.add(pathOf(r.address));
    else if (access?.is === 'capabilities') {
      const caps = (r.fields as unknown as Record<string, unknown>)[access.field];
      roleCapabilities.set(
        r.address,
        Array.isArray(caps) ? caps.filter((c): c is string => typeof c === 'string') : [],
      );
    }
  }
  const names = new Map<string, Site>();
  const out: AccessRule[] = [];
  if (pending.length > MAX_ACCESS_RULES) {
    const first = pending[MAX_ACCESS_RULES]!;
    ctx.report(
      first.site,
      `${pending.length} access rules; at most ${MAX_ACCESS_RULES} are judged on every plan: merge rules that select the same capabilities`,
    );
    return [];
  }
  for (const { site, value } of pending) {
    const name = asString(value.name);
    if (name === undefined) continue; // the schema reports it
    const what = `access rule ${JSON.stringify(name)}`;
    let ok = true;
    const problem = (at: Site, message: string, target: 'key' | 'value' = 'value'): void => {
      ctx.report(at, message, target);
      ok = false;
    };
    const earlier = names.get(name);
    if (earlier)
      problem(
        siteAt(site, 'name'),
        `${what} is declared twice (also at ${formatLocation(earlier.doc.locate(earlier.pointer))}); rule names are unique in the org`,
      );
    else names.set(name, site);

    // The scope: a declared group.
    let scope: string | undefined;
    const scopeText = asString(value.scope);
    if (scopeText !== undefined) {
      scope = scopeText.replace(/^\/+/, '').replace(/\/+$/, '');
      if (!ctx.groupPaths.has(scope)) {
        const known = [...ctx.groupPaths].filter((p) => p !== '');
        problem(
          siteAt(site, 'scope'),
          `unknown group ${JSON.stringify(scopeText)} in the scope of ${what}; expected the path of a declared group (engineering/platform), or leave scope out for the org${didYouMean(scopeText, known)}`,
        );
      }
    }

    // What it selects: capabilities or a role, one of the two.
    const capabilities = asArray(value.capabilities).filter((c): c is string => typeof c === 'string');
    const roleRef = asString(value.role);
    let selected: string[] = [];
    let roleAddress: string | undefined;
    if (value.capabilities !== undefined && roleRef !== undefined)
      problem(siteAt(site, 'role'), `${what} selects by capabilities and by role; give one of the two`, 'key');
    else if (value.capabilities === undefined && roleRef === undefined)
      problem(
        site,
        `${what} selects no capability; give capabilities (a list of the catalog's) or role (every capability of that role)`,
      );
    capabilities.forEach((c, i) => {
      const message = unknownCapabilityMessage(c, what, ctx.knownCapabilities);
      if (message) problem(siteAt(site, 'capabilities', i), message);
    });
    if (value.capabilities !== undefined) selected = [...new Set(capabilities)];
    else if (roleRef !== undefined) {
      const role = ctx.resolveRole(site, ok ? (scope ?? '') : '', roleRef, what);
      if (!role) ok = false;
      else if ('builtin' in role) selected = [...(BUILTIN_ROLE_CAPABILITIES[role.builtin] ?? [])];
      else if ('path' in role) {
        roleAddress = `role:${role.path}`;
        selected = [...(roleCapabilities.get(roleAddress) ?? [])];
      }
    }

    // Exactly one test.
    const tests = ACCESS_RULE_TESTS.filter((t) => value[t] !== undefined);
    if (tests.length === 0 && value.never === undefined)
      problem(
        site,
        `${what} has no test, so it could never fire; give exactly one of onlyPrincipals, count, or token with never: true`,
      );
    if (tests.length > 1)
      problem(
        siteAt(site, tests[1]!),
        `${what} has ${tests.length} tests (${tests.join(', ')}); give exactly one (write two rules for two tests)`,
        'key',
      );
    if (value.never !== undefined && value.token === undefined)
      problem(
        siteAt(site, 'never'),
        `never in ${what} goes with token (the token can never obtain the capabilities); give a token or remove never`,
        'key',
      );
    if (value.token !== undefined && value.never !== true)
      problem(
        siteAt(site, 'token'),
        `token in ${what} needs never: true (the token can never obtain the capabilities)`,
        'key',
      );

    const count = asObject(value.count);
    if (count) {
      const min = typeof count.min === 'number' ? count.min : undefined;
      const max = typeof count.max === 'number' ? count.max : undefined;
      if (min !== undefined && max !== undefined && min > max)
        problem(
          siteAt(site, 'count'),
          `count of ${what} has min ${min} above max ${max}; no number of principals can satisfy it`,
        );
      else if (max === undefined && (min ?? 0) <= 0)
        problem(
          siteAt(site, 'count'),
          `count of ${what} holds for any number of principals, so it could never fire; give max, or a min of at least 1`,
        );
    }

    const only = asArray(value.onlyPrincipals);
    if (only.length > MAX_PRINCIPALS)
      problem(
        siteAt(site, 'onlyPrincipals'),
        `onlyPrincipals of ${what} lists ${only.length} principals; at most ${MAX_PRINCIPALS}`,
      );
    only.forEach((p, i) => {
      if (typeof p !== 'string') return; // the schema reports it
      const at = siteAt(site, 'onlyPrincipals', i);
      const spelled = parsePrincipalSpelling(p);
      if (!spelled) {
        problem(
          at,
          `${JSON.stringify(p)} in onlyPrincipals of ${what} is not a principal; expected identity:<path>, email:<address>, idp:<provider>/group:<external group> or idp:<provider>/*`,
        );
      } else if (spelled.is === 'identity' && !identities.has(spelled.path)) {
        problem(
          at,
          `unknown identity ${JSON.stringify(p)} in onlyPrincipals of ${what}; expected an identity the manifests declare${didYouMean(spelled.path, identities)}`,
        );
      } else if ((spelled.is === 'externalGroup' || spelled.is === 'signIn') && !providers.has(spelled.provider)) {
        problem(
          at,
          `unknown identity provider ${JSON.stringify(spelled.provider)} in onlyPrincipals of ${what}; expected one the manifests declare${didYouMean(spelled.provider, providers)}`,
        );
      }
    });

    const token = asObject(value.token);
    if (token && Object.keys(token).length > MAX_CLAIMS)
      problem(siteAt(site, 'token'), `token of ${what} has ${Object.keys(token).length} claims; at most ${MAX_CLAIMS}`);
    if (token && value.never === true && !IDENTIFYING_CLAIMS.some((c) => Object.hasOwn(token, c))) {
      problem(
        siteAt(site, 'token'),
        `token of ${what} has none of ${IDENTIFYING_CLAIMS.join(', ')}, so no identity can accept it and the rule could never fire; give the claims a real token carries (iss and sub for a workload)`,
      );
    }
    if (!ok) continue;
    out.push({
      name,
      ...(value.capabilities !== undefined ? { capabilities } : {}),
      ...(roleRef !== undefined ? { role: roleRef } : {}),
      ...(scope !== undefined ? { scope } : {}),
      ...(value.onlyPrincipals !== undefined ? { onlyPrincipals: only as string[] } : {}),
      ...(count
        ? {
            count: {
              ...(typeof count.min === 'number' ? { min: count.min } : {}),
              ...(typeof count.max === 'number' ? { max: count.max } : {}),
            },
          }
        : {}),
      ...(token
        ? {
            token: Object.assign(Object.create(null) as Record<string, string | string[]>, token) as Record<
              string,
              string | string[]
            >,
            never: true as const,
          }
        : {}),
      selected,
      ...(roleAddress !== undefined ? { roleAddress } : {}),
      source: site.doc.locate(site.pointer),
    });
  }
  return out;
}
