/**
 * The invariant suite's org model written as one manifest document (JSON is YAML), with the
 * uids a rendering needs (bindings by uid, hand-made people). The model and its generators:
 * generators.ts.
 */
import { RELATIONSHIPS } from './gen-relationships.js';
import { groupsOf, rolesVisible, SECRET_ENV, type GenSettings, type MGroup, type MOrg } from './generators.js';
import type { GenRule } from './rules-oracle.js';

/** Uids the rendering needs: identities by path (for bindings by uid), and hand-made people. */
export interface Uids {
  identity: Map<string, string>;
  humans: { group: string; name: string; uid: string }[];
}

/** The model as one manifest document (JSON is YAML), for the org named `orgName`. */
export function renderManifest(
  org: MOrg,
  orgName: string,
  settings: GenSettings | undefined,
  uids?: Uids,
  accessRules?: readonly GenRule[],
): string {
  const all = groupsOf(org);
  const render = (g: MGroup, index: number): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (index !== 0) out.name = g.name;
    if (g.renamedFrom !== undefined) out.renamedFrom = g.renamedFrom;
    if (g.description !== undefined) out.description = g.description;
    if (g.identities.length > 0) {
      out.identities = g.identities.map((i) => ({
        name: i.name,
        ...(i.renamedFrom ? { renamedFrom: i.renamedFrom } : {}),
        ...(i.description !== undefined ? { description: i.description } : {}),
        ...RELATIONSHIPS[i.relationship % RELATIONSHIPS.length],
      }));
    }
    if (g.roles.length > 0) {
      out.roles = g.roles.map((r) => ({
        name: r.name,
        ...(r.renamedFrom ? { renamedFrom: r.renamedFrom } : {}),
        ...(r.description !== undefined ? { description: r.description } : {}),
        capabilities: r.capabilities,
      }));
    }
    const roles = rolesVisible(all, index);
    const bindings: Record<string, unknown>[] = [];
    const seen = new Set<string>();
    const path = all[index]!.path;
    for (const b of g.bindings) {
      const role = roles[b.role % roles.length]!;
      let ref: Record<string, string> | undefined;
      if (b.human) {
        const humans = uids?.humans ?? [];
        const human = humans[b.identity % Math.max(1, humans.length)];
        if (human) ref = { identityUid: human.uid };
      } else if (b.up !== undefined && b.up > 0) {
        // An ancestor's identity, by its path from the root (`/bot` for the org's).
        const from = path
          .split('/')
          .slice(0, Math.max(0, path.split('/').length - b.up))
          .join('/');
        const owner = all.find((x) => x.path === from)?.group;
        if (owner && owner.identities.length > 0) {
          const identity = owner.identities[b.identity % owner.identities.length]!.name;
          const full = from === '' ? identity : `${from}/${identity}`;
          const uid = b.byUid ? uids?.identity.get(full) : undefined;
          ref = uid !== undefined ? { identityUid: uid } : { identity: from === '' ? `/${identity}` : full };
        }
      } else if (g.identities.length > 0) {
        const identity = g.identities[b.identity % g.identities.length]!.name;
        const uid = b.byUid ? uids?.identity.get(path === '' ? identity : `${path}/${identity}`) : undefined;
        ref = uid !== undefined ? { identityUid: uid } : { identity };
      }
      if (!ref) continue;
      const key = `${Object.values(ref)[0]}=${role}`;
      if (seen.has(key)) continue;
      seen.add(key);
      bindings.push({ ...ref, role });
    }
    if (bindings.length > 0) out.roleBindings = bindings;
    if (g.repos.length > 0) {
      out.repos = g.repos.map((r) => ({
        name: r.name,
        ...(r.renamedFrom ? { renamedFrom: r.renamedFrom } : {}),
        ...(r.description !== undefined ? { description: r.description } : {}),
        ...(r.readme !== undefined ? { readme: r.readme } : {}),
        ...(r.tier !== undefined ? { tier: r.tier } : {}),
        ...(r.aliases !== undefined ? { aliases: r.aliases } : {}),
      }));
    }
    if (g.subscriptions.length > 0) out.subscriptions = g.subscriptions.map((sink) => ({ sink }));
    if (g.idps.length > 0) {
      out.identityProviders = g.idps.map((idp) => {
        const mappings = new Map<string, { externalGroup: string; role: string }>();
        for (const m of idp.mappings)
          mappings.set(m.externalGroup, { externalGroup: m.externalGroup, role: roles[m.role % roles.length]! });
        return {
          name: idp.name,
          ...(idp.renamedFrom ? { renamedFrom: idp.renamedFrom } : {}),
          defaultRole: roles[idp.defaultRole % roles.length],
          oidc: { issuer: 'https://acme.okta.com', clientId: idp.clientId, clientSecret: { fromEnv: SECRET_ENV } },
          ...(mappings.size > 0 ? { groupMappings: [...mappings.values()] } : {}),
        };
      });
    }
    if (g.association)
      out.accountAssociation = { name: g.association.name, amazon: { account: g.association.account } };
    if (g.groups.length > 0)
      out.groups = g.groups.map((c) =>
        render(
          c,
          all.findIndex((x) => x.group === c),
        ),
      );
    return out;
  };
  const orgBody = {
    name: orgName,
    ...render(org, 0),
    ...(org.terms.length > 0 ? { acceptedTerms: org.terms } : {}),
    ...(accessRules && accessRules.length > 0 ? { accessRules } : {}),
  };
  const doc: Record<string, unknown> = { apiVersion: 'platform-sync/v1', org: orgBody };
  if (settings) doc.settings = settings;
  return JSON.stringify(doc, null, 1);
}
