/** `pattern-any-owner` (high): a GitHub Actions identity whose subject pattern takes workflows of any owner. */
import { ANY_OWNER_PROBE, githubActionsSubjectPatterns } from '../github-actions.js';
import type { AuditRule } from '../types.js';
import { re2FullMatch } from '../../util/re2.js';

export const rule: AuditRule = {
  id: 'pattern-any-owner',
  title: 'A GitHub Actions identity accepts workflows of any GitHub owner',
  help: 'Anchor subjectPattern to your own owner and repository (repo:acme/app:ref:refs/heads/main), or use subject for one exact workflow. GitHub mints tokens for every repository on github.com: a pattern that matches another owner lets that owner act as this identity.',
  severity: 'high',
  check(facts) {
    return githubActionsSubjectPatterns(facts.identities).flatMap(({ identity: i, subjectPattern }) => {
      if (!re2FullMatch(subjectPattern, ANY_OWNER_PROBE)) return [];
      const message = `subjectPattern ${JSON.stringify(subjectPattern)} accepts GitHub Actions workflows of any owner (it matches ${ANY_OWNER_PROBE})`;
      return [{ rule: this.id, severity: this.severity, address: i.address, message, ...(i.location ? { location: i.location } : {}) }];
    });
  },
};
