/**
 * The grants of a write role in the effective-access relation (facts.access), for the rules that
 * judge who holds one: each with its principal, the address of what grants it, the role and the
 * group. A role can write as facts.ts's canWrite says.
 */
import type { Principal } from '../access/relation.js';
import { canWrite, type AuditFacts } from './facts.js';

export function writeGrantsOf(
  facts: AuditFacts,
  which: (p: Principal) => boolean,
): { principal: Principal; grant: string; role: string; scope: string }[] {
  const rel = facts.access;
  if (!rel) return [];
  const out: { principal: Principal; grant: string; role: string; scope: string }[] = [];
  for (const [id, grants] of rel.grantsOf) {
    const principal = rel.principals.get(id);
    if (!principal || !which(principal)) continue;
    for (const g of grants) {
      if (!canWrite(rel.capabilitiesOf(g.role))) continue;
      out.push({
        principal,
        grant: rel.state.records.get(g.record)?.address ?? g.record,
        role: rel.roleName(g.role),
        scope: rel.groups.get(g.group)?.address ?? g.group,
      });
    }
  }
  return out;
}
