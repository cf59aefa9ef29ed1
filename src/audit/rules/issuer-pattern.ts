/** `issuer-pattern` (medium): an identity that takes tokens of any issuer a pattern matches. */
import type { AuditRule } from '../types.js';

export const rule: AuditRule = {
  id: 'issuer-pattern',
  title: 'An identity accepts tokens of any issuer that matches a pattern',
  help: 'Name the one issuer with issuer (https://token.actions.githubusercontent.com). Any issuer the pattern matches can mint tokens for this identity, including one somebody else runs.',
  severity: 'medium',
  check(facts) {
    return facts.identities.flatMap((i) => {
      const pattern = i.fields.claimMatch?.issuerPattern;
      if (pattern === undefined) return [];
      return [
        {
          rule: this.id,
          severity: this.severity,
          address: i.address,
          message: `issuerPattern ${JSON.stringify(pattern)}: any issuer it matches may mint this identity's tokens`,
          ...(i.location ? { location: i.location } : {}),
        },
      ];
    });
  },
};
