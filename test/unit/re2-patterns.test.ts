/**
 * Patterns are RE2, as the service (written in Go) reads them (DESIGN.md §2): `validate` and the
 * emulator accept what RE2 accepts and refuse what it refuses — lookaround and backreferences
 * among them, which JavaScript's RegExp would take. Tables from RE2's syntax page.
 */
import { describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { post, useAcmeEmulator } from '../integration/emulator-helpers.js';

const RE2_VALID = [
  '(?i)repo:acme/.*',
  '[[:alnum:]]+',
  '(?P<name>main|dev)',
  '\\pL+',
  '\\p{Greek}',
  'x{2,5}',
  '(?s).*',
  '[^/]+',
  '\\Qa.b\\E',
  '(?:a|b)*?',
  '\\Arepo\\z',
  '(?U)a+',
  '\\d{3}',
];
const RE2_INVALID = [
  '(?!secret)',
  '(?=x)',
  '(?<=x)y',
  '(?<!x)y',
  '(a)\\1',
  'a++',
  'a{1001}',
  '(?#comment)',
  '[[:foo:]]',
  '(?P=name)',
  '\\Z',
  'x**',
];

function validateSubjectPattern(pattern: string): string[] {
  const text = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - name: ci\n      claimMatch: {issuer: "https://token.actions.githubusercontent.com", subjectPattern: ${JSON.stringify(pattern)}}\n`;
  return validateManifestTexts([{ file: 'm.yaml', text }]).diagnostics.map((d) => d.message);
}

describe('RE2 patterns in validate', () => {
  for (const pattern of RE2_VALID) it(`accepts ${pattern}`, () => expect(validateSubjectPattern(pattern)).toEqual([]));
  for (const pattern of RE2_INVALID) {
    it(`refuses ${pattern}`, () =>
      expect(validateSubjectPattern(pattern).join('\n')).toContain('is not a valid RE2 regular expression'));
  }
});

describe('RE2 patterns in the emulator', () => {
  const suite = useAcmeEmulator();

  it('accepts every valid RE2 pattern and refuses every other one with code 3', async () => {
    let n = 0;
    for (const [pattern, status] of [
      ...RE2_VALID.map((p) => [p, 200] as const),
      ...RE2_INVALID.map((p) => [p, 400] as const),
    ]) {
      const r = await post(suite.emu, `/iam/v2/identities/${suite.org}`, {
        name: `p${n++}`,
        claimMatch: { issuer: 'https://token.actions.githubusercontent.com', subjectPattern: pattern },
      });
      expect([pattern, r.status]).toEqual([pattern, status]);
      if (status === 400) expect(r.body.code).toBe(3);
    }
  });
});

describe('re2FullMatch: the whole text, as the service anchors a pattern (issue 63: a survivor caught by one distant test)', () => {
  it('matches all of a claim, never a part of it, whatever anchors or alternation the pattern has', async () => {
    const { re2FullMatch } = await import('../../src/util/re2.js');
    expect(re2FullMatch('repo:acme/.*', 'repo:acme/app:ref:refs/heads/main')).toBe(true);
    // A part of the text matching is no match: at the start, in the middle, at the end.
    expect(re2FullMatch('repo:acme/app', 'repo:acme/app:ref:refs/heads/main')).toBe(false);
    expect(re2FullMatch('acme', 'repo:acme/app')).toBe(false);
    expect(re2FullMatch('main', 'repo:acme/app:ref:refs/heads/main')).toBe(false);
    // An alternation is anchored as a whole, not only its first and last branches.
    expect(re2FullMatch('a|repo:acme/.*', 'xa')).toBe(false);
    expect(re2FullMatch('repo:acme/x|b', 'repo:acme/xb')).toBe(false);
    expect(re2FullMatch('repo:acme/x|b', 'b')).toBe(true);
    // Flags apply; a newline in the text is no line end to anchor at.
    expect(re2FullMatch('(?i)REPO:ACME/.*', 'repo:acme/app')).toBe(true);
    expect(re2FullMatch('repo:acme/app', 'repo:acme/app\nrepo:evil/x')).toBe(false);
  });
});

describe('re2Problem and re2FullMatch on a pattern that is not RE2', () => {
  it('never matches with it, and gives the parser reason without its prefix', async () => {
    const { re2FullMatch, re2Problem } = await import('../../src/util/re2.js');
    // `.*` would match anything: a lookahead in front must not make it match at all.
    expect(re2FullMatch('(?!x).*', 'anything')).toBe(false);
    expect(re2Problem('(?!x).*')).toMatch(/^invalid or unsupported Perl syntax/);
    expect(re2Problem('(?!x).*')).not.toContain('error parsing regexp');
    expect(re2Problem('.*')).toBeUndefined();
  });
});
