/**
 * What a principal admits (src/access/admits.ts): the one reading of a GitHub subject pattern that
 * the pattern rules of audit and every access view share. Owner confinement is decided on the
 * pattern's language, so a quantifier after the owner's literal part (`repo:acme/?.*`) is seen.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  githubSubjectFacts,
  literalOwnerOf,
  ownerLanguage,
  ownerThenPlainText,
  principalAdmits,
  relationshipAdmits,
  pullRequestSubject,
} from '../../src/access/admits.js';
import { within } from '../../src/access/pattern-language.js';

const GH = 'https://token.actions.githubusercontent.com';
const subject = (subjectPattern: string, extra: Record<string, unknown> = {}) => ({
  field: 'claimMatch',
  value: { issuer: GH, subjectPattern, ...extra },
});

describe('what a relationship admits', () => {
  it('says any GitHub workflow, more than one owner, or pull-request workflows of one repository', () => {
    expect(relationshipAdmits(subject('repo:.*'))).toEqual(['any GitHub workflow']);
    expect(relationshipAdmits(subject('repo:.*', { claims: { repository_owner: 'acme' } }))).toEqual([
      'any GitHub workflow whose other claims match',
    ]);
    for (const wider of [
      'repo:acme/?.*',
      'repo:acme/*.*',
      'repo:acme.*/app:.*',
      'repo:acme/.*|repo:evil/.*',
      'repo:[^/]+/deploy:.*',
    ]) {
      expect(relationshipAdmits(subject(wider)), wider).toEqual(['GitHub workflows of more than one owner']);
    }
    expect(relationshipAdmits(subject('repo:nw/infra:.*'))).toEqual(['pull-request workflows of nw/infra']);
    expect(relationshipAdmits(subject('(?i)repo:nw/infra:.*'))).toEqual(['pull-request workflows of nw/infra']);
    expect(relationshipAdmits(subject('repo:acme/.*'))).toEqual(['pull-request workflows of any repository of acme']);
  });

  it('says nothing of a narrow pattern, an exact subject, another issuer or another relationship', () => {
    for (const narrow of [
      'repo:acme/app:ref:refs/heads/.*',
      'repo:acme/(app|web):ref:refs/heads/main',
      '(?i)repo:acme/app:ref:.*',
    ])
      expect(relationshipAdmits(subject(narrow)), narrow).toEqual([]);
    expect(
      relationshipAdmits({ field: 'claimMatch', value: { issuer: GH, subject: 'repo:acme/app:pull_request' } }),
    ).toEqual([]);
    expect(
      relationshipAdmits({
        field: 'claimMatch',
        value: { issuer: 'https://accounts.google.com', subjectPattern: '.*' },
      }),
    ).toEqual([]);
    expect(relationshipAdmits({ field: 'servicePrincipal', value: 'COSIGNED' })).toEqual([]);
    expect(relationshipAdmits(undefined)).toEqual([]);
  });

  it('says an issuer pattern takes tokens of any issuer it matches', () => {
    expect(relationshipAdmits({ field: 'claimMatch', value: { issuerPattern: 'https://.*', subject: 'x' } })).toEqual([
      'tokens of any issuer that matches "https://.*"',
    ]);
  });

  it('reads the owner by language: keeping to one owner, case aside', () => {
    // Its repo part is no literal, and the probe repo is not among them: a pull request of acme/app is (found by the review).
    expect(githubSubjectFacts('repo:acme/(app|web):.*')).toMatchObject({
      anyOwner: false,
      owner: 'acme',
      pullRequest: true,
      pullRequestProbe: 'repo:acme/app:pull_request',
    });
    expect(githubSubjectFacts('repo:acme/(app|web):ref:refs/heads/.*')).toMatchObject({ pullRequest: false });
    expect(githubSubjectFacts('(?i)repo:acme/.*')).toMatchObject({ owner: 'acme' });
    expect(githubSubjectFacts('repo:acme/?.*')).toMatchObject({ anyOwner: false, owner: undefined });
    expect(githubSubjectFacts('repo:.*')).toMatchObject({ anyOwner: true, owner: undefined });
  });
});

describe('an owner read without the automata', () => {
  // Pieces of subject patterns, metacharacters and flags among them: the plain spelling must be
  // told apart from every other, since for it the automata are not asked.
  const piece = fc.constantFrom(
    'repo:',
    'acme',
    'a',
    ':',
    '/',
    '.',
    '*',
    '+',
    '?',
    '|',
    '(',
    ')',
    '[^/]',
    '\\.',
    '^',
    '(?i)',
    'é',
    '\n',
    'ref',
  );
  const patterns = fc.oneof(
    fc.array(piece, { maxLength: 8 }).map((p) => `repo:acme/${p.join('')}`),
    fc.array(piece, { maxLength: 10 }).map((p) => p.join('')),
  );

  it('answers only where the automata answer the same: the pattern keeps to its owner', () => {
    fc.assert(
      fc.property(patterns, (pattern) => {
        const owner = literalOwnerOf(pattern);
        if (owner === undefined || !ownerThenPlainText(pattern, owner)) return;
        expect(within({ pattern }, ownerLanguage(owner)), pattern).toBe(true);
      }),
      { numRuns: 300 },
    );
    for (const plain of ['repo:acme/app:.*', 'repo:acme/.*:ref:refs/heads/main', 'repo:acme/', 'repo:a-b_c/x.+y?'])
      expect(ownerThenPlainText(plain, literalOwnerOf(plain)!), plain).toBe(true);
    for (const other of [
      'repo:acme/?.*',
      'repo:acme/*.*',
      'repo:acme/x|.*',
      'repo:acme/.**',
      'repo:acme/[a]',
      '^repo:acme/x',
    ])
      expect(ownerThenPlainText(other, 'acme'), other).toBe(false);
    // An owner that is no literal text (a metacharacter in it): left to the automata.
    expect(ownerThenPlainText('repo:ac.me/x', 'ac.me')).toBe(false);
  });

  it('a pull-request subject: the shortcut answers none only where the automata find none', () => {
    const pullPieces = fc.constantFrom(
      'pull_request',
      'pull_',
      'request',
      ':',
      'ref:refs/heads/',
      'main',
      '.',
      '*',
      '?',
      '+',
      'p',
      '[ab]',
      '\\w',
      'app',
    );
    const pulls = fc.array(pullPieces, { maxLength: 6 }).map((p) => `repo:acme/${p.join('')}`);
    fc.assert(
      fc.property(fc.oneof(patterns, pulls), (pattern) => {
        if (pullRequestSubject(pattern, 'acme') !== undefined) return;
        expect(pullRequestSubject(pattern, 'acme', false), pattern).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    for (const pattern of [
      'repo:acme/app:pull_request',
      'repo:acme/app:pull_.*',
      'repo:acme/app:p?ull_request',
      'repo:acme/app:pull_reques\\w',
      'repo:acme/app:pull_requestx*',
      'repo:acme/[ab]pp:.*_request',
      'repo:acme/app:ref:refs/heads/.*',
      'repo:acme/app:pull_request:x',
    ])
      expect(pullRequestSubject(pattern, 'acme'), pattern).toBe(pullRequestSubject(pattern, 'acme', false));
  });
});

describe('what an identity provider principal admits', () => {
  it('says anyone who signs in, and anyone the provider puts in a group', () => {
    expect(principalAdmits({ kind: 'signIn', name: 'idp:okta/*' })).toEqual(['anyone who signs in to okta']);
    expect(principalAdmits({ kind: 'signIn', name: 'idp:engineering/okta/*' })).toEqual([
      'anyone who signs in to engineering/okta',
    ]);
    expect(principalAdmits({ kind: 'externalGroup', name: 'idp:okta/group:platform-admins' })).toEqual([
      'anyone okta puts in group platform-admins',
    ]);
    expect(principalAdmits({ kind: 'email', name: 'email:alice@acme.dev' })).toEqual([]);
  });
});
