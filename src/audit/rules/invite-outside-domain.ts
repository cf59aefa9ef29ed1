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
    // The people of each domain, counted once (not once per grant).
    const people = new Map<string, Set<string>>();
    for (const p of rel.principals.values()) {
      if (p.email === undefined) continue;
      const domain = domainOf(p.email);
      if (!people.has(domain)) people.set(domain, new Set());
      people.get(domain)!.add(p.email);
    }
    return writeGrantsOf(facts, (p) => p.kind === 'email').flatMap(({ principal, grant, role, scope }): Finding[] => {
      const domain = domainOf(principal.email!);
      if ([...(people.get(domain) ?? [])].some((email) => email !== principal.email)) return [];
      return [
        {
          rule: this.id,
          severity: 'high',
          address: grant,
          message: `${principal.email!} is invited to role ${role} on ${scope}, which can write, and no other person of the org uses ${domain}`,
        },
      ];
    });
  },
};
