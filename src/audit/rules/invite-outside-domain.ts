/**
 * `invite-outside-domain` (high): an invite — live, or one the manifests make — gives a write
 * role to an e-mail whose domain no other person of the org uses (no other member line, invite
 * or signed-in identity): an owner invite to `mallory@evil.example` is what a reviewer must see.
 * Read from the effective-access relation, as the org will be once the manifests apply.
 */
import { asciiLower } from '../../model/email.js';
import type { AuditRule, Finding } from '../types.js';
import { writeGrantsOf } from '../write-grants.js';

const domainOf = (email: string): string => asciiLower(email.slice(email.lastIndexOf('@') + 1));

export const rule: AuditRule = {
  id: 'invite-outside-domain',
  title: 'An invite gives a write role to an e-mail outside the org',
  help: "Check that the person is who the pull request says; grant write roles to people of the org's own domains, and outsiders a read role.",
  severity: 'high',
  check(facts) {
    const rel = facts.access;
    if (!rel) return [];
    const grants = writeGrantsOf(facts, (p) => p.kind === 'email');
    return grants.flatMap(({ principal, grant, role, scope }): Finding[] => {
      const domain = domainOf(principal.email!);
      const others = [...rel.principals.values()].some((p) => p.email !== undefined && p.email !== principal.email && domainOf(p.email) === domain);
      if (others) return [];
      return [{ rule: this.id, severity: 'high', address: grant, message: `${principal.email!} is invited to role ${role} on ${scope}, which can write, and no other person of the org uses ${domain}` }];
    });
  },
};
