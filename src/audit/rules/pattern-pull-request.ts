/** `pattern-pull-request` (high with a write role, else medium): a subject pattern that pull-request workflows match. */
import { githubActionsSubjectPatterns, githubSubjectFacts } from '../github-actions.js';
import type { AuditRule } from '../types.js';

export const rule: AuditRule = {
  id: 'pattern-pull-request',
  title: 'Pull-request workflows can act as a GitHub Actions identity',
  help: 'Match only the refs that should act, e.g. subjectPattern "repo:<owner>/<repo>:ref:refs/heads/.*" or subject "repo:<owner>/<repo>:ref:refs/heads/main". A pull request from a fork or a branch runs code nobody has reviewed yet; a token it gets must not carry this identity\'s roles.',
  severity: 'high',
  check(facts) {
    return githubActionsSubjectPatterns(facts.identities).flatMap(({ identity: i, subjectPattern }) => {
      const { pullRequest, pullRequestProbe: probe } = githubSubjectFacts(subjectPattern);
      if (!pullRequest) return [];
      const writes = facts.writeRolesOf(i.address);
      return [
        {
          rule: this.id,
          severity: writes.length > 0 ? 'high' : 'medium',
          address: i.address,
          message: `subjectPattern ${JSON.stringify(subjectPattern)} matches ${probe}: pull-request workflows can act as this identity${writes.length > 0 ? `, which holds the write role${writes.length === 1 ? '' : 's'} ${writes.join(', ')}` : ''}`,
          ...(i.location ? { location: i.location } : {}),
        },
      ];
    });
  },
};
