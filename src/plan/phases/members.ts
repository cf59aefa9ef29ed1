/**
 * Phase 0 (prepare), members (DESIGN.md §4 "Members and invites", peribolos's model): each `members` line
 * — who should hold which role on a group, by e-mail — becomes what brings it about, before
 * anything is matched:
 *
 * - *present*: a live binding on that group binds that role to an identity whose `email` is the
 *   member's. The binding and the identity are then declared by the member line (kept, never
 *   pruned while the line stays).
 * - *pending*: a live, unexpired invite on that group carries that e-mail and role. It is kept
 *   as it is; the plan says when it expires.
 * - *invited*: neither. The plan creates an invite (`expirationTime` = now + `settings.inviteTtl`,
 *   single use). An expired invite of the member is moved aside (addressed by its uid), so that
 *   it is deleted like any invite no member declares, and a new one made in the same plan.
 *
 * Pure: the clock is the planner's `now` option.
 */
import { asciiLower } from '../../model/email.js';
import { groupAddress, groupInviteAddress, joinPath, referenceText, roleBindingAddress } from '../../model/address.js';
import type { DesiredMember, DesiredResource, DesiredState, LiveResource, LiveState } from '../../model/resources.js';
import type { MemberStatus } from '../../model/plan.js';
import { pushTo } from '../../util/multimap.js';
import { rfc3339Millis } from '../../util/time.js';
import { IDENTITY_GRANT_KIND, INVITE_KIND, PRINCIPAL_KIND } from '../../model/kinds.js';

/** How long an invite stays open when `settings.inviteTtl` does not say (DESIGN.md §4). */
export const DEFAULT_INVITE_TTL_MS = 7 * 24 * 3600 * 1000;

export interface MembersResult {
  desired: DesiredState;
  live: LiveState;
  members: MemberStatus[];
  /** The addresses expired invites of members were moved aside to: deleted by the plan whatever prune says (DESIGN.md §4). */
  replaced: string[];
  /** Member address → the addresses of the steps its line causes (`--target member:…`): an invite's create, an expired one's delete. */
  stepsByMember: Map<string, string[]>;
}

const NO_REINVITE: ReadonlySet<string> = new Set();

/** Desired state with the member lines turned into resources; live with expired invites of members moved aside. */
export function planMembers(
  desired: DesiredState,
  live: LiveState,
  nowMs: number,
  reinvite: ReadonlySet<string> = NO_REINVITE,
): MembersResult {
  const lines = desired.members ?? [];
  if (lines.length === 0) return { desired, live, members: [], replaced: [], stepsByMember: new Map() };
  const identitiesByEmail = new Map<string, LiveResource[]>();
  const byAddress = new Map<string, LiveResource>();
  for (const r of live.resources) {
    byAddress.set(r.address, r);
    if (r.kind === PRINCIPAL_KIND && r.email !== undefined) pushTo(identitiesByEmail, asciiLower(r.email), r);
  }
  const declared = new Set(desired.resources.map((r) => r.address));
  const added: DesiredResource[] = [];
  const movedAside = new Map<LiveResource, string>();
  const members: MemberStatus[] = [];
  const stepsByMember = new Map<string, string[]>();
  const ttl = desired.settings.inviteTtlMs ?? DEFAULT_INVITE_TTL_MS;
  const declare = (r: DesiredResource): void => {
    if (declared.has(r.address)) return;
    declared.add(r.address);
    added.push(r);
  };
  for (const m of lines) {
    const email = asciiLower(m.email);
    const base = {
      address: m.address,
      group: groupAddress(m.groupPath),
      email: m.email,
      role: referenceText(m.groupPath, m.role),
    };
    const present = presentBinding(m, identitiesByEmail.get(email) ?? [], byAddress);
    if (present) {
      const { identity, binding } = present;
      declare(
        memberResource(m, {
          kind: 'identity',
          address: identity.address,
          groupPath: identity.groupPath,
          parentAddress: identity.parentAddress,
          fields: { name: identity.fields.name },
        }),
      );
      declare(
        memberResource(m, {
          kind: 'roleBinding',
          address: binding.address,
          groupPath: binding.groupPath,
          parentAddress: binding.parentAddress,
          fields: binding.fields,
        }),
      );
      members.push({ ...base, state: 'present', identity: identity.address });
      continue;
    }
    const inviteAddress = groupInviteAddress(m.groupPath, email, m.role);
    const open = byAddress.get(inviteAddress);
    // An open invite is pending, unless --reinvite asks for a new one (its code was lost): then it is replaced like an expired one.
    if (
      open !== undefined &&
      open.kind === INVITE_KIND &&
      !expired(open.fields.expirationTime, nowMs) &&
      !reinvite.has(email)
    ) {
      declare(
        memberResource(m, {
          kind: 'groupInvite',
          address: open.address,
          groupPath: open.groupPath,
          parentAddress: open.parentAddress,
          fields: { ...open.fields },
        }),
      );
      members.push({ ...base, state: 'pending', expirationTime: open.fields.expirationTime });
      continue;
    }
    const status: MemberStatus = { ...base, state: 'invited' };
    if (open !== undefined && open.kind === INVITE_KIND) {
      const aside = groupInviteAddress(m.groupPath, open.uid.slice(open.uid.lastIndexOf('/') + 1), m.role);
      movedAside.set(open, aside);
      status.replaces = aside;
      if (!expired(open.fields.expirationTime, nowMs)) status.reinvited = true;
      pushTo(stepsByMember, m.address, aside);
    }
    if (Number.isFinite(nowMs)) {
      pushTo(stepsByMember, m.address, inviteAddress);
      // In the service's own form (milliseconds and Z), to the second: what it answers back, and what the codes file keeps.
      const expirationTime = rfc3339Millis(Math.floor((nowMs + ttl) / 1000) * 1000);
      declare(
        memberResource(m, {
          kind: 'groupInvite',
          address: inviteAddress,
          groupPath: m.groupPath,
          parentAddress: groupAddress(m.groupPath),
          fields: { email: m.email, role: m.role, expirationTime, singleUse: true },
        }),
      );
      status.expirationTime = expirationTime;
      status.invite = inviteAddress;
    }
    members.push(status);
  }
  const resources =
    movedAside.size === 0
      ? live.resources
      : live.resources.map((r) => (movedAside.has(r) ? { ...r, address: movedAside.get(r)! } : r));
  members.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return {
    desired: { ...desired, resources: [...desired.resources, ...added] },
    live: resources === live.resources ? live : { ...live, resources },
    members,
    replaced: [...movedAside.values()],
    stepsByMember,
  };
}

/** The live binding that makes a member present, and its identity, if any. */
function presentBinding(
  m: DesiredMember,
  identities: readonly LiveResource[],
  byAddress: ReadonlyMap<string, LiveResource>,
): { identity: LiveResource & { kind: 'identity' }; binding: LiveResource & { kind: 'roleBinding' } } | undefined {
  for (const identity of identities) {
    if (identity.kind !== PRINCIPAL_KIND) continue;
    const path = joinPath(identity.groupPath, identity.fields.name);
    const binding = byAddress.get(roleBindingAddress(m.groupPath, { path }, m.role));
    if (binding !== undefined && binding.kind === IDENTITY_GRANT_KIND) return { identity, binding };
  }
  return undefined;
}

function expired(expirationTime: string, nowMs: number): boolean {
  const at = Date.parse(expirationTime);
  return !Number.isFinite(at) || !(at > nowMs);
}

/** A resource declared by a member line: where the line is. */
function memberResource(
  m: DesiredMember,
  r: Pick<DesiredResource, 'kind' | 'address' | 'groupPath' | 'parentAddress'> & { fields: object },
): DesiredResource {
  return { ...r, source: m.source } as DesiredResource;
}
