/**
 * The planner's re-addressing as it was before issue 61's incremental one (src/plan/readdress.ts):
 * every live resource rebuilt from the uid tree, and all sorted. Kept as the test oracle the new
 * one must equal, byte for byte and in order (test/unit/readdress.test.ts).
 */
import { joinPath, ORG_ADDRESS, type IdentityKey, type RoleKey } from '../../src/model/address.js';
import { descriptorOf, IDENTITY_GRANT_KIND, roleRefFields } from '../../src/model/kinds.js';
import type { LiveResource, LiveState } from '../../src/model/resources.js';

/**
 * Live state re-addressed with `newNames` (uid → name) applied: every path, address, parent
 * address and binding reference is computed again from the uid tree. Fields are kept as read,
 * names included, so the renamed resources still differ from the manifests in `name`.
 */
export function readdressOracle(live: LiveState, newNames: ReadonlyMap<string, string>): LiveState {
  const byUid = new Map(live.resources.filter((r) => !descriptorOf(r.kind).uidIsParent).map((r) => [r.uid, r]));
  // New names are by uid of what is renamed; a kind that shares its parent's uid keeps its own.
  const nameOf = (r: LiveResource): string =>
    (descriptorOf(r.kind).uidIsParent ? undefined : newNames.get(r.uid)) ??
    String((r.fields as { name?: unknown }).name ?? '');
  // Keyed by kind and uid: an account association has its group's uid, and its own address.
  const keyOf = (r: LiveResource): string => `${r.kind}\u0000${r.uid}`;
  const paths = new Map<string, string>();
  /** The group path a resource owns (a group) or sits in (anything else). */
  const groupPathOf = (r: LiveResource): string => {
    const known = paths.get(keyOf(r));
    if (known !== undefined) return known;
    const parent = r.parentUid === null ? undefined : byUid.get(r.parentUid);
    let path: string;
    if (r.address === ORG_ADDRESS || !parent) path = r.address === ORG_ADDRESS ? '' : r.groupPath;
    else if (descriptorOf(r.kind).ownsGroupPath) path = joinPath(groupPathOf(parent), nameOf(r));
    else path = groupPathOf(parent);
    paths.set(keyOf(r), path);
    return path;
  };
  // Old path → new path of each identity and role, for the references of bindings.
  const refPaths = new Map<string, string>();
  for (const r of live.resources) {
    if (!descriptorOf(r.kind).referenceable) continue;
    refPaths.set(
      `${r.kind}:${joinPath(r.groupPath, String((r.fields as { name?: unknown }).name))}`,
      joinPath(groupPathOf(r), nameOf(r)),
    );
  }
  const rekey = <K extends IdentityKey | RoleKey>(kind: string, key: K): K => {
    if (!('path' in key)) return key;
    const path = refPaths.get(`${kind}:${key.path}`);
    return path === undefined || path === key.path ? key : ({ path } as K);
  };
  const addresses = new Map<string, string>();
  const addressOf = (r: LiveResource): string => {
    const known = addresses.get(keyOf(r));
    if (known !== undefined) return known;
    let address: string;
    if (r.address === ORG_ADDRESS) address = ORG_ADDRESS;
    else {
      const parent = r.parentUid === null ? undefined : byUid.get(r.parentUid);
      const fields = { ...(r.fields as unknown as Record<string, unknown>), name: nameOf(r) };
      const place = parent
        ? { groupPath: groupPathOf(parent), fields: { name: nameOf(parent) } }
        : { groupPath: '', fields: {} };
      address = descriptorOf(r.kind).address(groupPathOf(r), fields, place);
    }
    addresses.set(keyOf(r), address);
    return address;
  };

  const resources = live.resources.map((r): LiveResource => {
    if (r.address === ORG_ADDRESS) return r;
    const parent = r.parentUid === null ? undefined : byUid.get(r.parentUid);
    const moved = {
      ...r,
      groupPath: groupPathOf(r),
      parentAddress: parent ? addressOf(parent) : r.parentAddress,
    } as LiveResource;
    if (moved.kind === IDENTITY_GRANT_KIND) {
      moved.fields = { identity: rekey('identity', moved.fields.identity), role: rekey('role', moved.fields.role) };
    } else {
      // Any other role reference (an identity provider's default role, a group mapping's role)
      // follows a renamed role too, or a rename would read as a change of what it references.
      const refs = roleRefFields(moved.kind);
      if (refs.length > 0) {
        const fields = { ...(moved.fields as unknown as Record<string, unknown>) };
        for (const { name } of refs)
          if (fields[name] !== undefined) fields[name] = rekey('role', fields[name] as RoleKey);
        (moved as { fields: unknown }).fields = fields;
      }
    }
    moved.address = addressOf(moved);
    return moved;
  });
  resources.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return { ...live, resources };
}
