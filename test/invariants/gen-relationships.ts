/**
 * The relationships generated identities carry (by index: regressions name them so, append only),
 * their pattern families (issue 58: an edit moves an identity within its family — a widening that
 * keeps the old literal prefix, a top-level alternation, a flag, or a narrowing), and the
 * concrete probes the access oracle tries against them: every relationship here admits a probe
 * that tells it from every other relationship of the list it is not within, family or not — an
 * identity added beside another meets it (test/invariants/oracle-probes.test.ts holds that).
 */
export const ISSUER = 'https://token.actions.githubusercontent.com';

const KEYS_A = JSON.stringify({
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    },
  ],
});
const KEYS_B = JSON.stringify({
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4',
      y: '4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM',
    },
  ],
});
const sub = (subjectPattern: string) => ({ claimMatch: { issuer: ISSUER, subjectPattern } });

export const RELATIONSHIPS: Record<string, unknown>[] = [
  /* 0 */ { claimMatch: { issuer: ISSUER, subject: 'repo:acme/app:ref:refs/heads/main' } },
  /* 1 */ {
    claimMatch: {
      issuer: ISSUER,
      subjectPattern: 'repo:acme/.*:ref:refs/heads/main',
      claims: { repository_owner: 'acme' },
    },
  },
  /* 2 */ {
    awsIdentity: { awsAccount: '123456789012', arnPattern: 'arn:aws:sts::123456789012:assumed-role/deploy/.*' },
  },
  /* 3 */ { servicePrincipal: 'COSIGNED' },
  /* 4 */ {
    staticKeys: {
      issuer: 'https://issuer.acme.dev',
      subject: 'signer',
      issuerKeys: KEYS_A,
      expirationTime: '2030-01-01T00:00:00Z',
      audiences: ['acme'],
    },
  },
  // Widenings of the above (issue 46): any GitHub workflow, the owner claim dropped, other keys.
  /* 5 */ sub('repo:.*'),
  /* 6 */ sub('repo:acme/.*:ref:refs/heads/main'),
  /* 7 */ {
    staticKeys: {
      issuer: 'https://issuer.acme.dev',
      subject: 'signer',
      issuerKeys: KEYS_B,
      expirationTime: '2030-01-01T00:00:00Z',
      audiences: ['acme'],
    },
  },
  // The subject family (issue 58): its base, widenings that keep its literal prefix, narrowings.
  /* 8 */ sub('repo:acme/.*'),
  /* 9 */ sub('repo:acme/?.*'),
  /* 10 */ sub('repo:acme/.*|o.*'),
  /* 11 */ sub('(?i)repo:acme/.*'),
  /* 12 */ sub('repo:acme/(app|web):.*'),
  /* 13 */ sub('repo:acme/[a-z]+:ref:refs/heads/main'),
  /* 14 */ {
    awsIdentity: { awsAccount: '123456789012', arnPattern: 'arn:aws:sts::123456789012:assumed-role/deploy/?.*' },
  },
  // More of the subject family: a quantifier on the prefix's last character, top-level alternations…
  /* 15 */ sub('repo:acme/*.*'),
  /* 16 */ sub('repo:acme/{0}.*'),
  /* 17 */ sub('repo:acme/x|.*'),
  /* 18 */ sub('repo:acme/.*|repo:evil/.*'),
  // …and narrowings: one repository, an exact subject, classes.
  /* 19 */ sub('repo:acme/app:.*'),
  /* 20 */ { claimMatch: { issuer: ISSUER, subject: 'repo:acme/web:ref:refs/heads/main' } },
  /* 21 */ sub('repo:acme/[[:alpha:]]+:.*'),
  // Looks narrower and is not: a negated class admits a newline, which `.` does not (RE2 reads
  // classes so); the property found this one (seed 13) — the product was right, the probes lacked a newline.
  /* 22 */ sub('repo:acme/[^:]*:ref:refs/heads/.*'),
  // The claim family: a claim pattern widened by an alternation and by a flag.
  /* 23 */ { claimMatch: { issuer: ISSUER, subjectPattern: 'repo:.*', claimPatterns: { repository_owner: 'acme' } } },
  /* 24 */ {
    claimMatch: { issuer: ISSUER, subjectPattern: 'repo:.*', claimPatterns: { repository_owner: 'acme|evil' } },
  },
  /* 25 */ {
    claimMatch: { issuer: ISSUER, subjectPattern: 'repo:.*', claimPatterns: { repository_owner: '(?i)acme' } },
  },
  // The issuer family: an unescaped dot admits a look-alike issuer.
  /* 26 */ {
    claimMatch: { issuerPattern: 'https://token\\.actions\\.githubusercontent\\.com', subjectPattern: 'repo:acme/.*' },
  },
  /* 27 */ {
    claimMatch: { issuerPattern: 'https://token.actions.githubusercontent.com', subjectPattern: 'repo:acme/.*' },
  },
  // A negated class that is a narrowing: no newline, no colon.
  /* 28 */ sub('repo:acme/[^:\\n]+:.*'),
];

/** The subject family's base: where a `pattern` edit takes an identity of no family. */
export const PATTERN_BASE = 8;
/** Families an edit moves an identity within (any member to any other: widenings and narrowings both ways). */
export const FAMILIES: readonly (readonly number[])[] = [
  // The first six keep their order: regressions name edits by their place here.
  [8, 9, 10, 11, 12, 13, 15, 16, 17, 18, 19, 20, 21, 22, 0, 28],
  [23, 24, 25, 5],
  [26, 27],
  [2, 14],
];

/** Probe values of the access oracle: owners, subjects, issuers that tell the patterns above apart. */
export const PROBE_ISSUERS = [
  ISSUER,
  'https://issuer.acme.dev',
  'https://evil.example',
  'https://token-actions.githubusercontent.com',
];
/**
 * The owner's repositories as a subject's middle, each with every kind of end: an identity is
 * bound beside others of any family, and its tokens may escape each of them alone or only all of
 * them together (`repo:acme/.*:ref:refs/heads/main` beside `[[:alpha:]]+:.*` and `[^:]*:ref:refs/heads/.*`
 * is escaped by `repo:acme/app2:x:…` alone: test:deep seed 20261204, case 2,837 — the product was
 * right, the oracle lacked the probe). So: other repositories (a binding moved from
 * `(app|web):.*` to `.*` gains, CI seed 391376), a digit, an empty one, a colon inside or first
 * (which `[^:]*` and `+` refuse), a newline (which `.` never matches and a negated class does).
 */
const REPOSITORIES = ['app', 'web', 'docs', 'app2', 'x', '', 'x:y', 'app2:x', ':y', 'a\nb'];
const ENDS = [':ref:refs/heads/main', ':ref:refs/heads/dev', ':pull_request'];
export const PROBE_SUBJECTS = [
  ...REPOSITORIES.flatMap((repo) => ENDS.map((end) => `repo:acme/${repo}${end}`)),
  'signer',
  'other',
  'repo:acme/x',
  // Outsiders that widened patterns admit (issue 58): the owner's literal prefix continued, another
  // case, another owner (which `repo:acme.*` and `repo:acme/.*|repo:evil/.*` together leave out).
  'repo:evil/x:ref:refs/heads/main',
  'repo:acme-evil/x:ref:refs/heads/main',
  'REPO:ACME/app:ref:refs/heads/main',
  'repo:other/x:ref:refs/heads/main',
];
export const PROBE_OWNERS = [undefined, 'acme', 'evil', 'ACME'];
