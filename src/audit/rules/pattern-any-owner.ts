/** `pattern-any-owner` (high): a GitHub Actions identity whose subject pattern takes workflows of any owner. */
import { ANY_OWNER_PROBE, githubActionsSubjectPatterns, literalOwnerOf } from '../github-actions.js';
import type { AuditRule } from '../types.js';
import { re2FullMatch } from '../../util/re2.js';

export const rule: AuditRule = {
  id: 'pattern-any-owner',
  title: 'A GitHub Actions identity accepts workflows of any GitHub owner',
  help: 'Anchor subjectPattern to your own owner and repository (repo:<owner>/<repo>:ref:refs/heads/main), or use subject for one exact workflow. GitHub mints tokens for every repository on github.com: a pattern that matches another owner lets that owner act as this identity.',
  severity: 'high',
  check(facts) {
    return githubActionsSubjectPatterns(facts.identities).flatMap(({ identity: i, subjectPattern }) => {
      // Read from the pattern's syntax (DESIGN.md §7 rev 4); the probe subject still catches a
      // pattern whose owner part reads as literal but that takes any owner by other means.
      const literalOwner = literalOwnerOf(subjectPattern);
      const matchesProbe = re2FullMatch(subjectPattern, ANY_OWNER_PROBE);
      if (literalOwner !== undefined && !matchesProbe) return [];
      const message = matchesProbe
        ? `subjectPattern ${JSON.stringify(subjectPattern)} accepts GitHub Actions workflows of any owner (it matches ${ANY_OWNER_PROBE})`
        : `subjectPattern ${JSON.stringify(subjectPattern)} accepts GitHub Actions workflows of more than one owner: its owner part (between "repo:" and the first "/") is not one literal owner`;
      return [{ rule: this.id, severity: this.severity, address: i.address, message, ...(i.location ? { location: i.location } : {}) }];
    });
  },
};
