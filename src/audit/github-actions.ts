/**
 * How the pattern rules read a GitHub Actions identity (DESIGN.md §7): which identities take
 * GitHub's tokens, and the probe subjects their `subjectPattern` is tried on, matched in full
 * with RE2 as the service matches claims.
 */
import type { ClaimMatch } from '../model/identity-relationships.js';
import type { AuditedIdentity } from './facts.js';
import { re2FullMatch } from '../util/re2.js';

export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';
/** A workflow of an owner and repository nobody has: a pattern that takes it takes any owner's. */
export const ANY_OWNER_PROBE = 'repo:platform-sync-audit-probe/probe:ref:refs/heads/main';
const PROBE_PREFIX = 'repo:platform-sync-audit-probe/probe';

/** Whether the identity's claim match takes tokens GitHub Actions mints (by issuer, or a pattern that matches it). */
export function takesGithubActionsTokens(claimMatch: ClaimMatch | undefined): claimMatch is ClaimMatch {
  if (!claimMatch) return false;
  if (claimMatch.issuer !== undefined) return claimMatch.issuer === GITHUB_ACTIONS_ISSUER;
  return claimMatch.issuerPattern !== undefined && re2FullMatch(claimMatch.issuerPattern, GITHUB_ACTIONS_ISSUER);
}

/** A regular expression's metacharacters: a part with any of them (unescaped) is not a literal. */
const META = /[*+?[\](){}|^$\\]/;

/** A part of a pattern read as the literal it stands for (`app\.web` → `app.web`), or undefined when it is no literal. */
function literal(part: string): string | undefined {
  const unescaped = part.replace(/\\([.\-/_])/g, '$1');
  return part !== '' && !META.test(unescaped) ? unescaped : undefined;
}

/**
 * The pull-request subject a pattern is probed with: `<prefix>:pull_request`, `<prefix>` being
 * the pattern's literal `repo:<owner>/<repo>` (a repo part that is no literal, such as `.*`, is
 * probed as `probe`; an owner that is no literal, as the probe owner).
 */
export function pullRequestProbe(subjectPattern: string): string {
  const m = /^\^?repo:([^/:]*)\/([^:]*)/.exec(subjectPattern);
  const owner = m ? literal(m[1]!) : undefined;
  if (!m || owner === undefined) return `${PROBE_PREFIX}:pull_request`;
  return `repo:${owner}/${literal(m[2]!) ?? 'probe'}:pull_request`;
}

/** Identities that take GitHub Actions tokens by a subject pattern, with that pattern: what the pattern rules probe. */
export function githubActionsSubjectPatterns(identities: readonly AuditedIdentity[]): { identity: AuditedIdentity; subjectPattern: string }[] {
  return identities.flatMap((identity) => {
    const cm = identity.fields.claimMatch;
    return takesGithubActionsTokens(cm) && cm.subjectPattern !== undefined ? [{ identity, subjectPattern: cm.subjectPattern }] : [];
  });
}

/**
 * The owner part of a GitHub subject pattern (between `repo:` and the first `/` outside a
 * character class), when it is one literal owner: no RE2 operator, class or escape that is not a
 * literal character (DESIGN.md §7 rev 4). Undefined when the pattern admits more than one owner
 * (an owner part `initech.*` admits `initech-evil`, `[^/]+` every owner) or does not
 * start with a literal `repo:` at all. Leading `^` and flag groups (`(?i)`) are read past.
 */
export function literalOwnerOf(subjectPattern: string): string | undefined {
  const rest = subjectPattern.replace(/^\^/, '').replace(/^(\(\?[a-zA-Z]+\))+/, '');
  if (!rest.startsWith('repo:')) return undefined;
  let owner = '';
  for (let i = 'repo:'.length; i < rest.length; i++) {
    const c = rest[i]!;
    if (c === '/') return owner === '' ? undefined : owner;
    if (c === '\\') {
      // An escape is literal only for a punctuation character (`\.`, `\-`); `\w`, `\d`, `\p{…}` are classes.
      const next = rest[i + 1];
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return undefined;
      owner += next;
      i++;
      continue;
    }
    // `.` is any character; the others are operators, classes or groups.
    if ('.*+?[](){}|^$'.includes(c)) return undefined;
    owner += c;
  }
  return undefined;
}

