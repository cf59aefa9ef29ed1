/**
 * What a caller may see and name (DESIGN.md §6): a token's scope hides everything outside its
 * group's subtree (built-in roles and advisories without an org aside), a reference must name a
 * visible resource — a role built-in or custom in the group or an ancestor —, and a clash with
 * a sibling the token cannot see does not tell it the sibling's uid.
 */
import type { ApiKind } from '../model/kinds.js';
import { alreadyExists, type ApiFailure, invalidArgument } from './failures.js';
import { isWithin } from './list-order.js';
import type { Store, StoredResource } from './store.js';

/** Who makes a request: what its token may do, and the group it is scoped to. */
export interface Caller {
  role: 'owner' | 'viewer';
  scope?: string;
}

/** Whether the caller sees `r`: unscoped, global, or within its scope. */
export function visible(caller: Caller, r: StoredResource): boolean {
  return (
    caller.scope === undefined ||
    r.builtin === true ||
    (r.kind === 'advisory' && r.parent === null) ||
    isWithin(r.uid, caller.scope)
  );
}

/**
 * ALREADY_EXISTS for a sibling with the same key. A sibling the token cannot see (outside its
 * scope) is not named: the token learns that the name is taken, not the uid behind it.
 */
export function clashFailure(
  store: Store,
  caller: Caller,
  kind: ApiKind,
  clashUid: string,
  key: string,
  parentUid: string | null,
): ApiFailure {
  const sibling = store.get(kind, clashUid);
  if (sibling && visible(caller, sibling))
    return alreadyExists(kind, clashUid, `${key} already exists under ${parentUid ?? 'the root'} (uid ${clashUid})`);
  return alreadyExists(kind, '', `a sibling with this ${kind === 'subscription' ? 'sink' : 'name'} already exists`);
}

/** A role a resource of `groupUid` references: visible, and built-in or custom in the group or an ancestor. */
export function checkRoleRef(store: Store, caller: Caller, groupUid: string, roleUid: string, field: string): void {
  const role = store.get('role', roleUid);
  if (!role || !visible(caller, role))
    throw invalidArgument([{ field, description: `role ${roleUid} does not exist (or is not visible to this token)` }]);
  if (!role.builtin && !isWithin(groupUid, role.parent!)) {
    throw invalidArgument([
      {
        field,
        description: `role ${role.data.name} (${roleUid}) belongs to group ${role.parent}; use a built-in role or a custom role of this group or its ancestors`,
      },
    ]);
  }
}

/** A binding's identity must be visible; its role built-in or custom in the group or an ancestor. */
export function checkBindingRefs(
  store: Store,
  caller: Caller,
  groupUid: string,
  identityUid: string,
  roleUid: string,
): void {
  const violations = [];
  const identity = store.get('identity', identityUid);
  if (!identity || !visible(caller, identity))
    violations.push({
      field: 'identityUid',
      description: `identity ${identityUid} does not exist (or is not visible to this token)`,
    });
  const role = store.get('role', roleUid);
  if (!role || !visible(caller, role)) {
    violations.push({
      field: 'roleUid',
      description: `role ${roleUid} does not exist (or is not visible to this token)`,
    });
  } else if (!role.builtin && !isWithin(groupUid, role.parent!)) {
    violations.push({
      field: 'roleUid',
      description: `role ${role.data.name} (${roleUid}) belongs to group ${role.parent}; a binding on group ${groupUid} may use built-in roles or custom roles of that group or its ancestors`,
    });
  }
  if (violations.length > 0) throw invalidArgument(violations);
}
