/**
 * Group invites (DESIGN.md §2, §4 "Members and invites"): an invite to hold a role on a group,
 * made for a declared member and consumed when accepted. The manifests never declare one: a
 * `members` line is planned as an invite while its person has no binding (plan/phases/members.ts).
 * The create's answer alone carries the invite's `code`, a secret that goes only to the file the
 * operator names (`apply --invite-codes`); no update (a changed invite is deleted and made anew).
 */
import { asciiLower } from '../email.js';
import { groupInviteAddress, type RoleKey } from '../address.js';
import { declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { DeclaredWith } from './declared-types.js';

/** An invite's fields; its role resolved to a key. */
export type GroupInviteFields = DeclaredWith<'groupInvite', { role: RoleKey }>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.groupInvite, {
  email: { optional: true },
  role: { type: 'roleRef' },
  expirationTime: { instants: [''] },
});

/** The last segment of a uid (`<group uid>/<16 hex>` → the 16 hex): how an invite without an e-mail is addressed. */
function uidTail(uid: string | undefined): string {
  return uid === undefined ? '?' : uid.slice(uid.lastIndexOf('/') + 1);
}

export const groupInvite = defineKind({
  kind: 'groupInvite',
  label: { one: 'group invite', many: 'group invites' },
  api: {
    collection: '/iam/v2/groupInvites',
    plural: 'groupInvites',
  },
  keyField: null,
  fields: FIELDS,
  manifest: null,
  pruneKey: 'groupInvites',
  deleteReliesOn: ['groupInvite', 'role'],
  access: { is: 'grant', role: 'role', to: 'email', principalField: 'email', expiryField: 'expirationTime' },
  address: (groupPath, fields, _parent, uid) => {
    const email = typeof fields.email === 'string' && fields.email !== '' ? asciiLower(fields.email) : uidTail(uid);
    return groupInviteAddress(groupPath, email, (fields.role as RoleKey | undefined) ?? { builtin: '?' });
  },
  describe: (key) => `group invite ${JSON.stringify(key)}`,
});
