/** `pattern-pull-request` (high with a write role, else medium): a subject pattern that pull-request workflows match. */
import { pullRequestProbe, takesGithubActionsTokens } from '../github-actions.js';
import type { AuditRule } from '../types.js';
import { re2FullMatch } from '../../util/re2.js';

export const rule: AuditRule = {
  id: 'pattern-pull-request',
  title: 'Pull-request workflows can act as a GitHub Actions identity',
  help: 'Match only the refs that should act, e.g. subjectPattern "repo:acme/app:ref:refs/heads/.*" or subject "repo:acme/app:ref:refs/heads/main". A pull request from a fork or a branch runs code nobody has reviewed yet; a token it gets must not carry this identity\'s roles.',
  severity: 'high',
  check(facts) {
    return facts.identities.flatMap((i) => {
      const cm = i.fields.claimMatch;
      if (!takesGithubActionsTokens(cm) || cm.subjectPattern === undefined) return [];
      const probe = pullRequestProbe(cm.subjectPattern);
      if (!re2FullMatch(cm.subjectPattern, probe)) return [];
      const writes = facts.writeRolesOf(i.address);
      return [
        {
          rule: this.id,
          severity: writes.length > 0 ? 'high' : 'medium',
          address: i.address,
          message: `subjectPattern ${JSON.stringify(cm.subjectPattern)} matches ${probe}: pull-request workflows can act as this identity${writes.length > 0 ? `, which holds the write role${writes.length === 1 ? '' : 's'} ${writes.join(', ')}` : ''}`,
          ...(i.location ? { location: i.location } : {}),
        },
      ];
    });
  },
};
