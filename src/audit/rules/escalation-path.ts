/**
 * `escalation-path` (high): a principal that does not hold every capability of `owner` on a group
 * can obtain them there through an escalating capability (DESIGN.md §4 "Escalation", §7 rev 6) —
 * who can make itself owner where, and how (the capability, the grant, the path).
 */
import { describePath, holdsOf, obtainableOf, ownerCapabilities } from '../../access/escalation.js';
import { depthOf } from '../../access/relation.js';
import type { AuditRule, Finding } from '../types.js';

export const rule: AuditRule = {
  id: 'escalation-path',
  title: 'A principal can make itself owner through an escalating capability',
  help: 'An escalating capability (role_bindings.create/update, roles.create/update, group_invites.create, identity.update, identity_providers.create/update) lets its holder obtain more: take it out of the role, bind the role on a narrower group, or give the principal owner openly if that is what it is.',
  severity: 'high',
  check(facts) {
    const rel = facts.access;
    if (!rel) return [];
    const owner = ownerCapabilities(rel);
    if (owner.length === 0) return [];
    const findings: Finding[] = [];
    for (const id of [...rel.grantsOf.keys()].sort()) {
      const obtainable = obtainableOf(rel, id);
      if (obtainable.size === 0) continue;
      const held = holdsOf(rel, id);
      // The highest group where it can obtain all of owner without holding it.
      let top: { group: string; depth: number } | undefined;
      for (const [group, extra] of obtainable) {
        const has = held.get(group);
        if (owner.every((c) => has?.has(c))) continue;
        if (!owner.every((c) => has?.has(c) || extra.has(c))) continue;
        const depth = depthOf(rel, group);
        if (top === undefined || depth < top.depth || (depth === top.depth && group < top.group))
          top = { group, depth };
      }
      if (top === undefined) continue;
      const extra = obtainable.get(top.group)!;
      const path = extra.get(owner.find((c) => extra.has(c))!)!;
      const p = rel.principals.get(id);
      const grant = path[0]?.grant;
      const grantAddress =
        grant === undefined ? undefined : (rel.state.records.get(grant.record)?.address ?? grant.record);
      const address = p?.identity ?? p?.name ?? id;
      const location =
        (grantAddress !== undefined ? facts.locationOf(grantAddress) : undefined) ?? facts.locationOf(address);
      const scope = rel.groups.get(top.group)?.address ?? top.group;
      findings.push({
        rule: this.id,
        severity: this.severity,
        address,
        message: `${p?.name ?? id} can obtain all of owner on ${scope} without holding it: ${describePath(rel, path, top.group)}`,
        ...(location ? { location } : {}),
      });
    }
    return findings;
  },
};
