/** `pattern-any-owner` (high): a GitHub Actions identity whose subject pattern takes workflows of any owner, or of more than one. */
import { ANY_OWNER_PROBE, githubActionsSubjectPatterns, githubSubjectFacts } from '../github-actions.js';
import type { AuditRule } from '../types.js';

export const rule: AuditRule = {
  id: 'pattern-any-owner',
  title: 'A GitHub Actions identity accepts workflows of any GitHub owner',
  help: 'Anchor subjectPattern to your own owner and repository (repo:<owner>/<repo>:ref:refs/heads/main), or use subject for one exact workflow. GitHub mints tokens for every repository on github.com: a pattern that matches another owner lets that owner act as this identity.',
  severity: 'high',
  check(facts) {
    return githubActionsSubjectPatterns(facts.identities).flatMap(({ identity: i, subjectPattern }) => {
      // What the pattern admits is read once (access/admits.ts): the views say the same words.
      const { anyOwner, owner } = githubSubjectFacts(subjectPattern);
      if (!anyOwner && owner !== undefined) return [];
      const message = anyOwner
        ? `subjectPattern ${JSON.stringify(subjectPattern)} accepts GitHub Actions workflows of any owner (it matches ${ANY_OWNER_PROBE})`
        : `subjectPattern ${JSON.stringify(subjectPattern)} accepts GitHub Actions workflows of more than one owner: ` +
          'its owner part (between "repo:" and the first "/") is not one literal owner, or the pattern admits subjects of other owners';
      return [
        {
          rule: this.id,
          severity: this.severity,
          address: i.address,
          message,
          ...(i.location ? { location: i.location } : {}),
        },
      ];
    });
  },
};
