/**
 * `sso-write-access`: an identity provider gives a write role to everyone who signs in through it
 * (its default role: high) or to everyone in one of its groups (a group mapping: medium — an
 * admins group is common, but the IdP's admins then decide who writes) — read from
 * the effective-access relation, as the org will be once the manifests apply (DESIGN.md §4).
 */
import type { AuditRule, Finding } from '../types.js';
import { principalAdmits } from '../../access/admits.js';
import { writeGrantsOf } from '../write-grants.js';

export const rule: AuditRule = {
  id: 'sso-write-access',
  title: 'Single sign-on gives a write role to a whole group of people',
  help: 'Map identity-provider groups to read roles and grant write roles to named people (members) or to narrow groups; a default role should be a read role (viewer).',
  severity: 'high',
  check(facts) {
    return writeGrantsOf(facts, (p) => p.kind === 'externalGroup' || p.kind === 'signIn').map(
      ({ principal, grant, role, scope }): Finding => ({
        rule: this.id,
        severity: principal.kind === 'signIn' ? 'high' : 'medium',
        address: grant,
        // Who it lets in, in the words every access view uses (access/admits.ts).
        message: `${principal.name}: ${principalAdmits(principal).join('; ')} holds role ${role} on ${scope}, which can write`,
      }),
    );
  },
};
