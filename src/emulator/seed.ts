/**
 * Seed documents: the emulator's starting state, nested like a manifest so a demo reads
 * naturally. A seed is checked completely before anything is inserted (every problem named
 * with its location), and inserted through the same `createResource` the HTTP API uses, so it
 * can only hold what the API would accept.
 */
import type { Kind } from '../model/kinds.js';
import { BUILTIN_ROLE_NAMES } from './builtin-roles.js';
import { ApiFailure } from './failures.js';
import type { EmulatorService } from './service.js';
import type { BadRequestDetail } from '../api/errors.js';
import { checkSeedField, TERMS_DOCUMENT_ID, validateCreate } from './validate.js';
import type { ResourceData, StoredResource } from './store.js';
import { EMAIL as SEED_EMAIL, hashInviteCode } from './invites.js';
import { KEYS, SeedError, type SeedResult, type SeedRoleBinding } from './seed-document.js';
import { RELATIONSHIPS } from './relationships.js';

/** One insertion, in order: a parent always precedes its children. */
interface PlannedInsert {
  key: string;
  kind: Kind | 'advisory';
  /** Key of the parent insert, or null (root / global). */
  parentKey: string | null;
  /** Fixed parent uid (advisories under an org resolved later use parentKey). */
  data: ResourceData;
  uid?: string;
  /** For role bindings: keys of the identity and the role (a built-in role is `builtin:<name>`). */
  identityKey?: string;
  roleKey?: string;
  /** The body field `roleKey` fills, when it is not a binding's (`defaultRole`, a mapping's `roleUid`). */
  roleField?: 'defaultRole' | 'roleUid' | 'role';
  /** A group mapping: `scope` is the org's uid, the org named by this key. */
  scopeKey?: string;
  /** An account association: its uid is its parent's. */
  uidIsParent?: boolean;
  location: string;
}

interface GroupScope {
  path: string; // org/engineering
  identities: Set<string>;
  roles: Set<string>;
  parent: GroupScope | null;
}

/** Checks the whole document and lays out the inserts; throws SeedError with every problem. */
function planSeed(doc: unknown, source: string): PlannedInsert[] {
  const problems: string[] = [];
  const inserts: PlannedInsert[] = [];
  const bindings: { binding: SeedRoleBinding; scope: GroupScope; orgPath: string; location: string }[] = [];
  const scopes = new Map<string, GroupScope>();

  const isObject = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  const checkKeys = (v: Record<string, unknown>, what: string, location: string): void => {
    for (const k of Object.keys(v))
      if (!KEYS[what]!.includes(k))
        problems.push(`${location}: unknown field ${JSON.stringify(k)} (allowed: ${KEYS[what]!.join(', ')})`);
  };
  const listAt = (v: unknown, location: string): unknown[] => {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      problems.push(`${location}: must be a list`);
      return [];
    }
    return v;
  };
  /** Runs the API's own create validation and records its field violations here. */
  const apiCheck = (kind: Kind, body: Record<string, unknown>, location: string): ResourceData | undefined => {
    try {
      return validateCreate(kind, body);
    } catch (err) {
      if (!(err instanceof ApiFailure)) throw err;
      const br = err.details.find((d) => d['@type'].endsWith('BadRequest')) as BadRequestDetail | undefined;
      for (const v of br?.fieldViolations ?? [{ field: '', description: err.message }])
        problems.push(`${location}.${v.field}: ${v.description}`);
      return undefined;
    }
  };
  const pick = (v: Record<string, unknown>, keys: string[]): Record<string, unknown> =>
    Object.fromEntries(keys.filter((k) => v[k] !== undefined).map((k) => [k, v[k]]));
  const unique = (seen: Set<string>, key: string, what: string, location: string): void => {
    if (seen.has(key)) problems.push(`${location}: ${what} ${JSON.stringify(key)} is declared twice in the same place`);
    seen.add(key);
  };

  const walkGroup = (
    g: unknown,
    location: string,
    path: string,
    parentKey: string | null,
    parentScope: GroupScope | null,
    isOrg: boolean,
  ): void => {
    if (!isObject(g)) {
      problems.push(`${location}: must be an object with at least a name`);
      return;
    }
    checkKeys(g, isOrg ? 'org' : 'group', location);
    const data = apiCheck('group', pick(g, ['name', 'description']), location);
    const name = typeof g.name === 'string' ? g.name : '?';
    const myPath = parentScope ? `${path}/${name}` : name;
    const key = `group:${myPath}`;
    let uid: string | undefined;
    if (isOrg && g.uid !== undefined) {
      if (typeof g.uid !== 'string' || !/^[0-9a-f]{40}$/.test(g.uid))
        problems.push(`${location}.uid: must be 40 lowercase hex characters`);
      else uid = g.uid;
    }
    if (data) inserts.push({ key, kind: 'group', parentKey, data, location, ...(uid ? { uid } : {}) });
    const scope: GroupScope = { path: myPath, identities: new Set(), roles: new Set(), parent: parentScope };
    scopes.set(myPath, scope);

    const children = (field: string, kind: Kind, fn: (item: Record<string, unknown>, loc: string) => void): void => {
      listAt(g[field], `${location}.${field}`).forEach((item, i) => {
        const loc = `${location}.${field}[${i}]`;
        if (!isObject(item)) problems.push(`${loc}: must be an object`);
        else {
          checkKeys(item, kind, loc);
          fn(item, loc);
        }
      });
    };
    const seenIdentities = new Set<string>();
    children('identities', 'identity', (item, loc) => {
      const d = apiCheck('identity', pick(item, ['name', 'description', ...RELATIONSHIPS]), loc);
      if (!d) return;
      // When it last logged in (the service sets it; a seed may, to show an unused identity).
      if (item.lastSeenTime !== undefined) {
        const ms =
          typeof item.lastSeenTime === 'string' && /^\d{4}-\d\d-\d\dT/.test(item.lastSeenTime)
            ? Date.parse(item.lastSeenTime)
            : NaN;
        if (Number.isNaN(ms))
          problems.push(`${loc}.lastSeenTime: must be an RFC 3339 time such as 2025-01-31T09:00:00Z`);
        else d.lastSeenMs = ms;
      }
      if (item.email !== undefined) {
        if (typeof item.email !== 'string' || !SEED_EMAIL.test(item.email))
          problems.push(`${loc}.email: must be an e-mail address`);
        else d.email = item.email;
      }
      unique(seenIdentities, d.name!, 'identity', loc);
      scope.identities.add(d.name!);
      inserts.push({ key: `identity:${myPath}/${d.name}`, kind: 'identity', parentKey: key, data: d, location: loc });
    });
    const seenRoles = new Set<string>();
    children('roles', 'role', (item, loc) => {
      const d = apiCheck('role', pick(item, ['name', 'description', 'capabilities']), loc);
      if (!d) return;
      unique(seenRoles, d.name!, 'role', loc);
      scope.roles.add(d.name!);
      inserts.push({ key: `role:${myPath}/${d.name}`, kind: 'role', parentKey: key, data: d, location: loc });
    });
    const seenRepos = new Set<string>();
    children('repos', 'repo', (item, loc) => {
      const d = apiCheck('repo', pick(item, ['name', 'description']), loc);
      if (item.readme !== undefined) {
        const p = checkSeedField('repo', 'content', item.readme);
        if (p) problems.push(`${loc}.readme: ${p}`);
      }
      if (!d) return;
      unique(seenRepos, d.name!, 'repo', loc);
      const repoKey = `repo:${myPath}/${d.name}`;
      inserts.push({
        key: repoKey,
        kind: 'repo',
        parentKey: key,
        data: { ...d, readme: typeof item.readme === 'string' ? item.readme : '' },
        location: loc,
      });
      const seenTags = new Set<string>();
      listAt(item.tags, `${loc}.tags`).forEach((t, i) => {
        const tloc = `${loc}.tags[${i}]`;
        if (!isObject(t)) return void problems.push(`${tloc}: must be an object {name, digest}`);
        checkKeys(t, 'tag', tloc);
        const td = apiCheck('tag', pick(t, ['name', 'digest']), tloc);
        if (t.deprecated !== undefined) {
          const p = checkSeedField('tag', 'deprecated', t.deprecated);
          if (p) problems.push(`${tloc}.deprecated: ${p}`);
        }
        if (!td) return;
        unique(seenTags, td.name!, 'tag', tloc);
        inserts.push({
          key: `tag:${myPath}/${d.name}:${td.name}`,
          kind: 'tag',
          parentKey: repoKey,
          data: { ...td, deprecated: t.deprecated === true },
          location: tloc,
        });
      });
    });
    const seenSinks = new Set<string>();
    children('subscriptions', 'subscription', (item, loc) => {
      const d = apiCheck('subscription', pick(item, ['sink']), loc);
      if (!d) return;
      unique(seenSinks, d.sink!, 'subscription', loc);
      inserts.push({
        key: `subscription:${myPath}/${d.sink}`,
        kind: 'subscription',
        parentKey: key,
        data: d,
        location: loc,
      });
    });
    const orgKey = `group:${myPath.split('/')[0]}`;
    const seenProviders = new Set<string>();
    children('identityProviders', 'identityProvider' as Kind, (item, loc) => {
      const roleKey = typeof item.defaultRole === 'string' ? resolveRole(item.defaultRole, scope) : undefined;
      if (!roleKey)
        problems.push(
          `${loc}.defaultRole: must name a custom role of group ${scope.path} or an ancestor, or a built-in (${BUILTIN_ROLE_NAMES.join(', ')})`,
        );
      // The real uid is filled in when the role is; a stand-in passes the shape check here.
      const d = apiCheck(
        'identityProvider',
        { ...pick(item, ['name', 'description', 'oidc']), defaultRole: 'stand-in' },
        loc,
      );
      if (!d || !roleKey) return;
      unique(seenProviders, d.name!, 'identity provider', loc);
      const idpKey = `identityProvider:${myPath}/${d.name}`;
      inserts.push({
        key: idpKey,
        kind: 'identityProvider',
        parentKey: key,
        data: d,
        roleKey,
        roleField: 'defaultRole',
        location: loc,
      });
      listAt(item.groupMappings, `${loc}.groupMappings`).forEach((m, j) => {
        const mloc = `${loc}.groupMappings[${j}]`;
        if (!isObject(m)) return void problems.push(`${mloc}: must be an object {externalGroup, role}`);
        checkKeys(m, 'groupMapping', mloc);
        const mappedRole = typeof m.role === 'string' ? resolveRole(m.role, scope) : undefined;
        if (!mappedRole)
          problems.push(`${mloc}.role: must name a custom role of group ${scope.path} or an ancestor, or a built-in`);
        if (typeof m.externalGroup !== 'string' || m.externalGroup === '')
          problems.push(`${mloc}.externalGroup: must be a non-empty string`);
        else if (mappedRole) {
          inserts.push({
            key: `groupMapping:${myPath}/${d.name}/${m.externalGroup}=${m.role}`,
            kind: 'groupMapping',
            parentKey: idpKey,
            data: { externalGroupId: m.externalGroup },
            roleKey: mappedRole,
            roleField: 'roleUid',
            scopeKey: orgKey,
            location: mloc,
          });
        }
      });
    });
    if (g.accountAssociation !== undefined) {
      const loc = `${location}.accountAssociation`;
      if (!isObject(g.accountAssociation)) problems.push(`${loc}: must be an object {name, …}`);
      else {
        checkKeys(g.accountAssociation, 'accountAssociation', loc);
        const d = apiCheck('accountAssociation', g.accountAssociation, loc);
        if (d)
          inserts.push({
            key: `accountAssociation:${myPath}`,
            kind: 'accountAssociation',
            parentKey: key,
            data: d,
            uidIsParent: true,
            location: loc,
          });
      }
    }
    if (isOrg) {
      listAt(g.acceptedTerms, `${location}.acceptedTerms`).forEach((docId, i) => {
        if (typeof docId !== 'string' || !TERMS_DOCUMENT_ID.test(docId))
          return void problems.push(
            `${location}.acceptedTerms[${i}]: must be a document id (${TERMS_DOCUMENT_ID.source})`,
          );
        inserts.push({
          key: `terms:${myPath}/${docId}`,
          kind: 'terms',
          parentKey: key,
          data: { docId },
          location: `${location}.acceptedTerms[${i}]`,
        });
      });
    }
    children('groupInvites', 'groupInvite', (item, loc) => {
      const roleKey = typeof item.role === 'string' ? resolveRole(item.role, scope) : undefined;
      if (!roleKey)
        return void problems.push(
          `${loc}.role: must name a custom role of group ${scope.path} or an ancestor, or a built-in (${BUILTIN_ROLE_NAMES.join(', ')})`,
        );
      // Past times are allowed here (an expired invite stays listed); the stand-in role passes the shape check.
      const d = apiCheck(
        'groupInvite',
        { ...pick(item, ['email', 'expirationTime', 'singleUse']), role: '0'.repeat(40) },
        loc,
      );
      if (!d) return;
      if (item.code !== undefined) {
        if (typeof item.code !== 'string' || item.code.length < 16)
          return void problems.push(`${loc}.code: must be a string of at least 16 characters`);
        d.codeHash = hashInviteCode(item.code);
      }
      inserts.push({
        key: `groupInvite:${myPath}/${String(item.email ?? inserts.length)}=${String(item.role)}`,
        kind: 'groupInvite',
        parentKey: key,
        data: d,
        roleKey,
        roleField: 'role',
        location: loc,
      });
    });
    children('roleBindings', 'roleBinding', (item, loc) => {
      if (typeof item.identity !== 'string' || item.identity === '')
        problems.push(`${loc}.identity: must name an identity (sibling name or path from the org root)`);
      if (typeof item.role !== 'string' || item.role === '')
        problems.push(`${loc}.role: must name a role (custom role of this group or an ancestor, or a built-in)`);
      else
        bindings.push({
          binding: item as unknown as SeedRoleBinding,
          scope,
          orgPath: myPath.split('/')[0]!,
          location: loc,
        });
    });
    const seenGroups = new Set<string>();
    listAt(g.groups, `${location}.groups`).forEach((child, i) => {
      if (isObject(child) && typeof child.name === 'string')
        unique(seenGroups, child.name, 'group', `${location}.groups[${i}]`);
      walkGroup(child, `${location}.groups[${i}]`, myPath, key, scope, false);
    });
  };

  if (!isObject(doc)) throw new SeedError(source, ['the document must be an object with `orgs` and/or `advisories`']);
  checkKeys(doc, 'document', '(document)');
  const seenOrgs = new Set<string>();
  listAt(doc.orgs, 'orgs').forEach((org, i) => {
    if (isObject(org) && typeof org.name === 'string') unique(seenOrgs, org.name, 'org', `orgs[${i}]`);
    walkGroup(org, `orgs[${i}]`, '', null, null, true);
  });

  // Bindings last: they may point anywhere in the org.
  const seenBindings = new Set<string>();
  for (const { binding, scope, orgPath, location } of bindings) {
    const identityKey = resolveIdentity(binding.identity, scope, orgPath, scopes);
    if (!identityKey && typeof binding.identity === 'string')
      problems.push(
        `${location}.identity: no identity ${JSON.stringify(binding.identity)} ${binding.identity.includes('/') ? `at that path from org ${orgPath}` : `in group ${scope.path}`}`,
      );
    const roleKey = resolveRole(binding.role, scope);
    if (!roleKey)
      problems.push(
        `${location}.role: no custom role ${JSON.stringify(binding.role)} in group ${scope.path} or its ancestors, and no built-in of that name (built-ins: ${BUILTIN_ROLE_NAMES.join(', ')})`,
      );
    if (!identityKey || !roleKey) continue;
    const key = `roleBinding:${scope.path}/${identityKey.slice('identity:'.length)}=${binding.role}`;
    // A binding is unique per group: the same identity may hold one role in several groups.
    unique(seenBindings, `${scope.path}:${identityKey}=${roleKey}`, 'role binding', location);
    inserts.push({
      key,
      kind: 'roleBinding',
      parentKey: `group:${scope.path}`,
      data: {},
      identityKey,
      roleKey,
      location,
    });
  }

  listAt(doc.advisories, 'advisories').forEach((a, i) => {
    const loc = `advisories[${i}]`;
    if (!isObject(a)) return void problems.push(`${loc}: must be an object {advisoryId, artifactName, org?}`);
    checkKeys(a, 'advisory', loc);
    for (const f of ['advisoryId', 'artifactName'] as const)
      if (typeof a[f] !== 'string' || a[f] === '') problems.push(`${loc}.${f}: must be a non-empty string`);
    if (a.org !== undefined && (typeof a.org !== 'string' || !seenOrgs.has(a.org)))
      problems.push(`${loc}.org: must name an org declared in this seed (${[...seenOrgs].join(', ') || 'none'})`);
    inserts.push({
      key: `advisory:${a.advisoryId}`,
      kind: 'advisory',
      parentKey: typeof a.org === 'string' ? `group:${a.org}` : null,
      data: { advisoryId: a.advisoryId as string, artifactName: a.artifactName as string },
      location: loc,
    });
  });

  if (problems.length > 0) throw new SeedError(source, problems);
  return inserts;
}

function resolveIdentity(
  ref: string,
  scope: GroupScope,
  orgPath: string,
  scopes: Map<string, GroupScope>,
): string | undefined {
  if (!ref.includes('/')) return scope.identities.has(ref) ? `identity:${scope.path}/${ref}` : undefined;
  const rel = ref.replace(/^\//, '');
  const i = rel.lastIndexOf('/');
  const groupPath = i < 0 ? orgPath : `${orgPath}/${rel.slice(0, i)}`;
  const name = rel.slice(i + 1);
  return scopes.get(groupPath)?.identities.has(name) ? `identity:${groupPath}/${name}` : undefined;
}

function resolveRole(name: string, scope: GroupScope): string | undefined {
  for (let s: GroupScope | null = scope; s; s = s.parent) if (s.roles.has(name)) return `role:${s.path}/${name}`;
  return (BUILTIN_ROLE_NAMES as readonly string[]).includes(name) ? `builtin:${name}` : undefined;
}

/**
 * Checks `doc` completely, then inserts it into `service`. An org whose name (or pinned uid)
 * already exists is refused before anything is inserted.
 */
export function applySeed(service: EmulatorService, doc: unknown, source = '(in-process seed)'): SeedResult {
  const inserts = planSeed(doc, source);
  const clashes: string[] = [];
  for (const ins of inserts) {
    if (ins.kind !== 'group' || ins.parentKey !== null) continue;
    const existing = service.store.findSibling('group', null, ins.data);
    if (existing)
      clashes.push(
        `${ins.location}: a root group named ${JSON.stringify(ins.data.name)} already exists (uid ${existing})`,
      );
    if (ins.uid && service.store.hasUid(ins.uid)) clashes.push(`${ins.location}.uid: ${ins.uid} is already in use`);
  }
  if (clashes.length > 0) throw new SeedError(source, clashes);
  const uids: Record<string, string> = {};
  const builtins = service.builtinRoleUids();
  const uidOf = (key: string): string =>
    key.startsWith('builtin:') ? builtins[key.slice('builtin:'.length)]! : uids[key]!;
  const orgUids: Record<string, string> = {};
  // Bulk insert: the uid-sorted views are rebuilt once at the end, not kept sorted per insert.
  service.store.invalidateSortedViews();
  for (const ins of inserts) {
    const parentUid = ins.parentKey === null ? null : uidOf(ins.parentKey);
    let data =
      ins.kind === 'roleBinding' ? { identityUid: uidOf(ins.identityKey!), roleUid: uidOf(ins.roleKey!) } : ins.data;
    if (ins.roleField)
      data = { ...data, [ins.roleField]: uidOf(ins.roleKey!), ...(ins.scopeKey ? { scope: uidOf(ins.scopeKey) } : {}) };
    let created: StoredResource;
    try {
      created = service.createResource(
        ins.kind,
        parentUid,
        data,
        undefined,
        ins.uidIsParent ? (parentUid ?? undefined) : ins.uid,
      );
    } catch (err) {
      if (err instanceof ApiFailure) throw new SeedError(source, [`${ins.location}: ${err.message}`]);
      throw err;
    }
    uids[ins.key] = created.uid;
    if (ins.kind === 'group' && parentUid === null) orgUids[ins.data.name!] = created.uid;
  }
  service.store.invalidateSortedViews();
  return { orgUids, uids, count: inserts.length };
}
