/**
 * What a principal admits, in the words a reviewer acts on (issue 58, DESIGN.md §4 and §7): who
 * can present what an identity accepts, or who an identity provider lets in, said when that is
 * broad — "any GitHub workflow", "pull-request workflows of nw/infra", "anyone who signs in to
 * okta". One reading of these facts: the audit rules (pattern-any-owner, pattern-pull-request,
 * issuer-pattern, sso-write-access) judge by them and every view of access says them (plan text,
 * markdown and JSON, drift, `access`).
 *
 * A GitHub subject pattern is matched in full with RE2 as the service matches claims; whether it
 * keeps to one owner is decided on its language (pattern-language.ts), from the literal owner its
 * syntax names (DESIGN.md §7 rev 4): `repo:acme/?.*` names `acme` but also admits `repo:acmeevil/…`.
 */
import type { ClaimMatch } from '../model/identity-relationships.js';
import { re2FullMatch } from '../util/re2.js';
import { commonText, within, type ValueSpec } from './pattern-language.js';

export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';
/** A workflow of an owner and repository nobody has: a pattern that takes it takes any owner's. */
export const ANY_OWNER_PROBE = 'repo:platform-sync-audit-probe/probe:ref:refs/heads/main';
const PROBE_OWNER = 'platform-sync-audit-probe';
const PROBE_REPO = 'probe';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

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
  const m = /^repo:([^/:]*)\/([^:]*)/.exec(subjectPattern.replace(/^\^/, '').replace(/^(\(\?[a-zA-Z]+\))+/, ''));
  const owner = m ? literal(m[1]!) : undefined;
  if (!m || owner === undefined) return `repo:${PROBE_OWNER}/${PROBE_REPO}:pull_request`;
  return `repo:${owner}/${literal(m[2]!) ?? PROBE_REPO}:pull_request`;
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

const quoteMeta = (text: string): string => text.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');

/** A character of a pattern that stands for itself: printable ASCII that is no RE2 metacharacter. */
const plain = (c: string): boolean => c >= ' ' && c <= '~' && !'\\.+*?()|[]{}^$'.includes(c);

/** Patterns longer than this are left to the automata (the service's own patterns are far shorter). */
const MAX_PLAIN_PATTERN = 256;

/**
 * Whether the pattern is spelled `repo:<owner>/` and then only characters that stand for
 * themselves and `.`, each perhaps followed by one `*`, `+` or `?` (`repo:acme/app:.*`,
 * `repo:acme/.*:ref:refs/heads/main`): valid RE2 every text of which starts with `repo:<owner>/`,
 * so it keeps to the owner — the automata's own answer, known without loading them (refa:
 * ≈70 ms of a cold `plan`). Short ones only, well inside the automata's size bound.
 */
export function ownerThenPlainText(subjectPattern: string, owner: string): boolean {
  const prefix = `repo:${owner}/`;
  if (subjectPattern.length > MAX_PLAIN_PATTERN || !subjectPattern.startsWith(prefix)) return false;
  if (![...`repo:${owner}`].every(plain)) return false;
  let afterAtom = false;
  for (const c of subjectPattern.slice(prefix.length)) {
    if (c === '*' || c === '+' || c === '?') {
      if (!afterAtom) return false;
      afterAtom = false;
    } else if (c === '.' || plain(c)) afterAtom = true;
    else return false;
  }
  return true;
}

/** The texts that are a workflow of `owner` (GitHub owner names are case-insensitive) or no GitHub subject at all. */
export function ownerLanguage(owner: string): ValueSpec {
  const notRepo = '[^r].*|r(?:[^e].*)?|re(?:[^p].*)?|rep(?:[^o].*)?|repo(?:[^:].*)?|';
  return { pattern: `(?is)repo:${quoteMeta(owner)}/.*|(?s:${notRepo})` };
}

/**
 * Whether every GitHub subject the pattern admits is a workflow of `owner`: L(pattern) within
 * {@link ownerLanguage}. False when the pattern cannot be read exactly (the safe side: more than one owner).
 */
function keepsToOwner(subjectPattern: string, owner: string): boolean {
  return ownerThenPlainText(subjectPattern, owner) || within({ pattern: subjectPattern }, ownerLanguage(owner));
}

/** What a GitHub subject pattern admits, as the pattern rules judge it. */
export interface GithubSubjectFacts {
  /** It matches a workflow of an owner nobody has: any owner's workflows. */
  anyOwner: boolean;
  /** The one owner it keeps to; undefined when it admits workflows of more than one. */
  owner: string | undefined;
  /** The pull-request subject it was probed with, and whether it matches it. */
  pullRequestProbe: string;
  pullRequest: boolean;
}

export function githubSubjectFacts(subjectPattern: string): GithubSubjectFacts {
  const anyOwner = re2FullMatch(subjectPattern, ANY_OWNER_PROBE);
  const literalOwner = literalOwnerOf(subjectPattern);
  const owner =
    !anyOwner && literalOwner !== undefined && keepsToOwner(subjectPattern, literalOwner) ? literalOwner : undefined;
  const probe = pullRequestProbe(subjectPattern);
  // A repo part the probe misses (`(app|web)`, `app(-web)?`) may still take pull requests: one it matches, found exactly.
  const subject = re2FullMatch(subjectPattern, probe) ? probe : pullRequestSubject(subjectPattern, literalOwner);
  return { anyOwner, owner, pullRequestProbe: subject ?? probe, pullRequest: subject !== undefined };
}

/** The pull-request subject that ends every pull-request workflow's subject. */
const PULL_REQUEST = ':pull_request';

/**
 * A pull-request subject (`repo:<owner>/<repo>:pull_request`, of the literal owner when the
 * pattern names one) that the pattern matches whole, found by the automata; undefined when none
 * (or the pattern cannot be read there). A pattern without an alternation or flags that ends in a
 * literal no pull-request subject ends in, or starts with a branch's subject, is answered without
 * them (`shortcut: false`: always by them, for the tests that hold the shortcut to their answer).
 */
export function pullRequestSubject(
  subjectPattern: string,
  owner: string | undefined,
  shortcut = true,
): string | undefined {
  if (shortcut && !/[|(]/.test(subjectPattern)) {
    // The characters after the last metacharacter: every text it matches ends with them (not after a `\`: an escape).
    const tail = /[^\\.+*?()|[\]{}^$]*$/.exec(subjectPattern)!;
    const literal = subjectPattern[tail.index - 1] !== '\\';
    if (literal && tail[0] !== '' && !PULL_REQUEST.endsWith(tail[0]) && !tail[0].endsWith(PULL_REQUEST))
      return undefined;
    // The characters before the first one (less one a quantifier may take away): every text it matches starts with them.
    const head = /^[^\\.+*?()|[\]{}^$]*/.exec(subjectPattern)![0];
    const start = /^[*?{]/.test(subjectPattern.slice(head.length)) ? head.slice(0, -1) : head;
    const after = /^repo:[^/:]*\/[^/:]*:(.*)$/s.exec(start)?.[1];
    if (after !== undefined && !PULL_REQUEST.slice(1).startsWith(after)) return undefined;
  }
  const ownerPart = owner === undefined ? '[^/:]+' : quoteMeta(owner);
  return commonText(subjectPattern, `repo:${ownerPart}/[^/:]+${PULL_REQUEST}`);
}

/** What one relationship (an identity's) admits when that is broad; empty when it is one narrow kind of token. */
export function relationshipAdmits(rel: { field: string; value: unknown } | undefined): string[] {
  if (rel?.field !== 'claimMatch' || !isObject(rel.value)) return [];
  const cm = rel.value as ClaimMatch & Obj;
  const out: string[] = [];
  if (typeof cm.issuerPattern === 'string')
    out.push(`tokens of any issuer that matches ${JSON.stringify(cm.issuerPattern)}`);
  if (!takesGithubActionsTokens(cm) || typeof cm.subjectPattern !== 'string') return out;
  const facts = githubSubjectFacts(cm.subjectPattern);
  const claimed = [cm.claims, cm.claimPatterns].some((c) => isObject(c) && Object.keys(c).length > 0)
    ? ' whose other claims match'
    : '';
  if (facts.anyOwner) out.push(`any GitHub workflow${claimed}`);
  else if (facts.owner === undefined) out.push(`GitHub workflows of more than one owner${claimed}`);
  else if (facts.pullRequest) {
    const repo = /^repo:[^/]*\/([^:]*):pull_request$/.exec(facts.pullRequestProbe)?.[1];
    const of =
      repo === undefined || repo === PROBE_REPO ? `any repository of ${facts.owner}` : `${facts.owner}/${repo}`;
    out.push(`pull-request workflows of ${of}${claimed}`);
  }
  return out;
}

/** The provider part of an IdP principal's name (`idp:engineering/okta/*` → `engineering/okta`). */
const providerOf = (name: string): string => name.replace(/^idp:/, '').replace(/\/(\*|group:.*)$/, '');

/**
 * What a principal admits, when that is broad: an identity by its relationship, everyone who signs
 * in through a provider, everyone a provider puts in a group. A person or an invite's code: nothing to add.
 */
export function principalAdmits(p: {
  kind: string;
  name: string;
  relationship?: { field: string; value: unknown };
}): string[] {
  if (p.kind === 'signIn') return [`anyone who signs in to ${providerOf(p.name)}`];
  if (p.kind === 'externalGroup')
    return [`anyone ${providerOf(p.name)} puts in group ${p.name.slice(p.name.indexOf('/group:') + 7)}`];
  // An identity by its relationship; a person or an invite's code has none.
  return relationshipAdmits(p.relationship);
}
