/**
 * `members` lines (DESIGN.md §3, §4 "Members and invites"): who should hold which role on a
 * group, by e-mail. Read with their group, resolved once every role is declared (a member's role
 * is named as a binding names one), each checked once per group: one (email, role) pair per
 * group, e-mails compared case-insensitively. Also `settings.inviteTtl`. Pure.
 */
import { memberAddress, type RoleKey } from '../model/address.js';
import type { DesiredMember, SourceLocation } from '../model/resources.js';
import { formatLocation } from './diagnostics.js';
import { asString, fieldKey, type Obj, type Site } from './resolve-tables.js';

/** A member line as read with its group, its role not yet resolved. */
export interface PendingMember {
  site: Site;
  groupPath: string;
  value: Obj;
}

export interface MemberResolution {
  resolveRole(site: Site, groupPath: string, ref: string, what: string): RoleKey | undefined;
  report(site: Site, message: string): void;
  groupLabel(path: string): string;
}

/** The declared members, in the order written; a duplicate is reported naming both lines. */
export function resolveMembers(pending: readonly PendingMember[], r: MemberResolution): DesiredMember[] {
  const members: DesiredMember[] = [];
  const seen = new Map<string, SourceLocation>();
  for (const { site, groupPath, value } of pending) {
    const email = asString(value[fieldKey(value, 'email', 'member')]);
    const ref = asString(value[fieldKey(value, 'role', 'member')]);
    if (email === undefined || ref === undefined || ref === '') continue; // the schema reports what is missing
    const what = `member ${JSON.stringify(email)} of ${r.groupLabel(groupPath)}`;
    const role = r.resolveRole(site, groupPath, ref, what);
    if (!role) continue;
    const source = site.doc.locate(site.pointer);
    const address = memberAddress(groupPath, email, role);
    const earlier = seen.get(address);
    if (earlier) {
      r.report(
        site,
        `${what} with role ${JSON.stringify(ref)} is declared twice (address ${address}; e-mails compare case-insensitively); also declared at ${formatLocation(earlier)}`,
      );
      continue;
    }
    seen.set(address, source);
    members.push({ address, groupPath, email, role, source });
  }
  return members;
}

/** The longest an invite may stay open (DESIGN.md §2: at most 30 days ahead). */
export const MAX_INVITE_TTL_MS = 30 * 24 * 3600 * 1000;
export const DEFAULT_INVITE_TTL = '7d';

/** `settings.inviteTtl` (`7d`, `36h`) in milliseconds, or a description of what is wrong. */
export function parseInviteTtl(value: string): number | string {
  const m = /^([1-9][0-9]{0,3})(d|h)$/.exec(value);
  if (!m)
    return `settings.inviteTtl ${JSON.stringify(value)} is not a duration; expected a number of days or hours such as 7d or 36h`;
  const ms = Number(m[1]) * (m[2] === 'd' ? 24 : 1) * 3600 * 1000;
  return ms > MAX_INVITE_TTL_MS
    ? `settings.inviteTtl ${value} is longer than the 30 days an invite may stay open; expected at most 30d`
    : ms;
}
