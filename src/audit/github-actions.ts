/**
 * How the pattern rules read a GitHub Actions identity (DESIGN.md §7): which identities take
 * GitHub's tokens by a subject pattern. What such a pattern admits (any owner, more than one,
 * pull-request workflows) is read once, in access/admits.ts, for the rules and every view alike.
 */
import { takesGithubActionsTokens } from '../access/admits.js';
import type { AuditedIdentity } from './facts.js';

export {
  ANY_OWNER_PROBE,
  GITHUB_ACTIONS_ISSUER,
  githubSubjectFacts,
  literalOwnerOf,
  pullRequestProbe,
  takesGithubActionsTokens,
} from '../access/admits.js';

/** Identities that take GitHub Actions tokens by a subject pattern, with that pattern: what the pattern rules probe. */
export function githubActionsSubjectPatterns(
  identities: readonly AuditedIdentity[],
): { identity: AuditedIdentity; subjectPattern: string }[] {
  return identities.flatMap((identity) => {
    const cm = identity.fields.claimMatch;
    return takesGithubActionsTokens(cm) && cm.subjectPattern !== undefined
      ? [{ identity, subjectPattern: cm.subjectPattern }]
      : [];
  });
}
