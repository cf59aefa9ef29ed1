/** `outside-identity` (low): a role binding to an identity outside the org. */
import type { AuditRule } from '../types.js';

export const rule: AuditRule = {
  id: 'outside-identity',
  title: 'A role binding grants a role to an identity outside the org',
  help: 'Check that the outside identity (bound by identityUid) should have this access; prefer an identity of the org, which the manifests describe and review.',
  severity: 'low',
  check(facts) {
    return facts.bindings.flatMap((b) => {
      if (!('uid' in b.identity)) return [];
      return [
        {
          rule: this.id,
          severity: this.severity,
          address: b.address,
          message: `binds identity ${b.identity.uid}, which is outside the org`,
          ...(b.location ? { location: b.location } : {}),
        },
      ];
    });
  },
};
