/**
 * Role-binding references: bringing the desired and live sides to one canonical form, and
 * naming the resource a reference points at. Pure.
 */
import { joinPath, roleBindingAddress } from '../model/address.js';
import type { IdentityKey, RoleKey } from '../model/address.js';
import type { DesiredResource, LiveResource, LiveState } from '../model/resources.js';
import { descriptorOf, IDENTITY_GRANT_KIND } from '../model/kinds.js';

/**
 * What is needed to turn a `{uid}` reference into a path when the uid lies inside the org. Most
 * references are written by path: the uid maps are built on the first `{uid}` reference only.
 */
export interface ReferenceLookup {
  /** Live identity/role uid → its path from the org root. */
  identityPath(uid: string): string | undefined;
  rolePath(uid: string): string | undefined;
  /** Built-in role uid → name. */
  builtinName(uid: string): string | undefined;
}

export function buildReferenceLookup(live: LiveState): ReferenceLookup {
  let paths: { identity: Map<string, string>; role: Map<string, string> } | undefined;
  const pathsByUid = () => {
    if (paths) return paths;
    paths = { identity: new Map(), role: new Map() };
    // The kinds a binding can reference (KindDescriptor `referenceable`), by uid.
    for (const r of live.resources) {
      if (!descriptorOf(r.kind).referenceable) continue;
      paths[r.kind as 'identity' | 'role']?.set(
        r.uid,
        joinPath(r.groupPath, String((r.fields as { name?: unknown }).name)),
      );
    }
    return paths;
  };
  const builtinNameByUid = new Map<string, string>();
  for (const [name, uid] of Object.entries(live.builtinRoles)) builtinNameByUid.set(uid, name);
  return {
    identityPath: (uid) => pathsByUid().identity.get(uid),
    rolePath: (uid) => pathsByUid().role.get(uid),
    builtinName: (uid) => builtinNameByUid.get(uid),
  };
}

function normaliseIdentityKey(key: IdentityKey, lookup: ReferenceLookup): IdentityKey {
  if ('uid' in key) {
    const path = lookup.identityPath(key.uid);
    if (path !== undefined) return { path };
  }
  return key;
}

function normaliseRoleKey(key: RoleKey, lookup: ReferenceLookup): RoleKey {
  if ('uid' in key) {
    const builtin = lookup.builtinName(key.uid);
    if (builtin !== undefined) return { builtin };
    const path = lookup.rolePath(key.uid);
    if (path !== undefined) return { path };
  }
  return key;
}

/**
 * A binding written with `identityUid`/`roleUid` that name something inside the org is the
 * same binding as one written by path: rewrite it (and its address) so the two match.
 * Other resources are returned unchanged.
 */
export function normaliseBinding<R extends DesiredResource | LiveResource>(resource: R, lookup: ReferenceLookup): R {
  if (resource.kind !== IDENTITY_GRANT_KIND) return resource;
  const identity = normaliseIdentityKey(resource.fields.identity, lookup);
  const role = normaliseRoleKey(resource.fields.role, lookup);
  if (identity === resource.fields.identity && role === resource.fields.role) return resource;
  return {
    ...resource,
    address: roleBindingAddress(resource.groupPath, identity, role),
    fields: { identity, role },
  };
}

/**
 * The address a reference points at. Identities and roles in the org have their own address;
 * outside uids and built-ins get a form no real address can take (names never contain ':').
 */
export function identityRefAddress(key: IdentityKey): string {
  return referenceAddress('identity', key);
}

/** The address a reference of a kind's `references` names (`identity`, `role`): one form for every kind. */
export function referenceAddress(kind: string, key: IdentityKey | RoleKey): string {
  if ('builtin' in key) return `${kind}:builtin:${key.builtin}`;
  return 'uid' in key ? `${kind}:uid:${key.uid}` : `${kind}:${key.path}`;
}

export function roleRefAddress(key: RoleKey): string {
  return referenceAddress('role', key);
}

/** The role's name or path as a manifest writes it, for messages. */
export function describeRoleKey(key: RoleKey): string {
  if ('builtin' in key) return key.builtin;
  return 'uid' in key ? `uid:${key.uid}` : key.path;
}

/**
 * A reference address as a reader should see it: built-ins by name, outside uids said plainly
 * (the uid itself is shown beside it), addresses in the org as they are.
 */
export function describeRefAddress(address: string): string {
  const m = /^(identity|role):(builtin|uid):(.*)$/.exec(address);
  if (!m) return address;
  return m[2] === 'builtin' ? `built-in role ${m[3]}` : `${m[1]} outside the org`;
}
