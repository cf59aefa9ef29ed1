/**
 * A changed pattern compared by language (DESIGN.md §4 "A changed pattern (rev 6)", issue 58):
 * L(new) ⊆ L(old) decided with finite automata after reading RE2 into refa's syntax. The reader is
 * held to RE2 itself (re2js, a port of RE2) by a generated differential test: on every pattern it
 * reads, it matches exactly the texts RE2 matches whole. PATTERN_LANGUAGE_RUNS patterns (200 by
 * default; `npm run test:deep` runs more), seeded by INVARIANT_SEED.
 */
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { NFA } from 'refa';
import { languageMatches, readPattern, within } from '../../src/access/pattern-language.js';

const RUNS = Number(process.env.PATTERN_LANGUAGE_RUNS ?? 200);
const SEED = Number(process.env.INVARIANT_SEED ?? 5858);
const P = (pattern: string) => ({ pattern });

describe('a changed pattern is the same principal only when its language is within the old one', () => {
  const old = 'repo:acme/.*';
  const wider = [
    'repo:acme/?.*',
    'repo:acme/*.*',
    'repo:acme/{0}.*',
    'repo:acme/x|.*',
    'repo:acme/.*|repo:evil/.*',
    '(?i)repo:acme/.*',
    '(?s)repo:acme/.*',
    'repo:acme.*',
    'repo:acme/\\pL.*',
  ];
  const narrower = [
    'repo:acme/app:.*',
    'repo:acme/(app|web):.*',
    'repo:acme/app:ref:refs/heads/main',
    '^repo:acme/.+$',
    'repo:acme/[[:alpha:]]+',
    '\\Arepo:acme/x\\z',
    'repo:acme/(?i:app)',
  ];
  for (const n of wider) it(`"${n}" is wider than "${old}"`, () => expect(within(P(n), P(old))).toBe(false));
  for (const n of narrower) it(`"${n}" is within "${old}"`, () => expect(within(P(n), P(old))).toBe(true));

  it('an exact value within a pattern, a pattern within an exact value', () => {
    expect(within({ exact: 'repo:acme/app:ref:refs/heads/main' }, P(old))).toBe(true);
    expect(within({ exact: 'repo:acme-evil/x' }, P(old))).toBe(false);
    expect(within(P('repo:acme/app'), { exact: 'repo:acme/app' })).toBe(true);
    expect(within(P('repo:acme/app.'), { exact: 'repo:acme/app.' })).toBe(false);
  });

  it('folds case as RE2 does: (?i)k admits the KELVIN SIGN, so it is wider than [kK]', () => {
    expect(languageMatches('(?i)k', '\u212a')).toBe(true);
    expect(within(P('(?i)k'), P('[kK]'))).toBe(false);
    expect(within(P('[kK]'), P('(?i)k'))).toBe(true);
  });

  it('what it cannot read is never within anything but itself (a new principal)', () => {
    expect(readPattern('a\\bb')).toBeUndefined();
    expect(within(P('a\\bb'), P('.*'))).toBe(false);
    expect(within(P('a\\bb'), P('a\\bb'))).toBe(true);
    expect(within(P('(a{1000}){1000}'), P('.*'))).toBe(false);
  });
});

/** Pieces of RE2 syntax the reader must read as RE2 does. */
const ATOMS = [
  'a',
  'b',
  'k',
  'K',
  'S',
  '/',
  ':',
  '.',
  '\\.',
  '\\d',
  '\\w',
  '\\W',
  '\\s',
  '[ab]',
  '[^a]',
  '[a-c]',
  '[[:alpha:]]',
  '[[:^digit:]]',
  '[\\d/]',
  '[^\\W]',
  '\\x41',
  '\\x{212A}',
  '\\Qa.\\E',
  '{',
  '}',
  ']',
];
const patternArb: fc.Arbitrary<string> = fc.letrec<{ re: string; piece: string }>((tie) => ({
  piece: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...ATOMS),
    fc.tuple(tie('re'), fc.constantFrom('(', '(?:', '(?i:', '(?s:', '(?P<n>')).map(([re, open]) => `${open}${re})`),
    fc
      .tuple(tie('piece'), fc.constantFrom('*', '+', '?', '{0}', '{2}', '{1,2}', '{1,}', '*?'))
      .map(([p, q]) => (/[*+?}]$/.test(p) ? `(${p})${q}` : `${p}${q}`)),
  ),
  re: fc
    .tuple(
      fc.constantFrom('', '(?i)', '(?s)', '^'),
      fc.array(tie('piece'), { maxLength: 4 }),
      fc.constantFrom('', '|', '$'),
    )
    .chain(([pre, pieces, post]) =>
      post === '|'
        ? tie('piece').map((alt) => `${pre}${pieces.join('')}|${alt}`)
        : fc.constant(`${pre}${pieces.join('')}${post}`),
    ),
})).re;
const ALPHABET = [
  'a',
  'b',
  'k',
  'K',
  '\u212a',
  's',
  'S',
  '\u017f',
  '/',
  ':',
  '.',
  '0',
  '_',
  ' ',
  '\n',
  '{',
  '}',
  ']',
  'A',
  'é',
];
const textArb = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 6 }).map((c) => c.join(''));

/**
 * Texts the reader says the pattern matches (its shortest word sets, each character picked among the alphabet's where it
 * can be, `pick` choosing which), and each with one character replaced: random texts alone rarely match a pattern whole.
 */
function wordsOf(pattern: string, pick: number): string[] {
  const ast = readPattern(pattern);
  if (ast === undefined) return [];
  const out: string[] = [];
  let n = 0;
  for (const wordSet of NFA.fromRegex(ast, { maxCharacter: 0x10ffff }).wordSets()) {
    if (++n > 8) break;
    const chars = wordSet.map((set, i) => {
      const inSet = ALPHABET.filter((c) => set.has(c.codePointAt(0)!));
      return inSet.length > 0 ? inSet[(pick + i) % inSet.length]! : String.fromCodePoint(set.ranges[0]!.min);
    });
    out.push(chars.join(''));
    if (chars.length > 0)
      out.push(
        chars.map((c, i) => (i === pick % chars.length ? ALPHABET[(pick >> 3) % ALPHABET.length]! : c)).join(''),
      );
  }
  return out;
}

describe('the reader matches as RE2 matches (generated, differential against re2js)', () => {
  it(`${RUNS} patterns, each with texts, agree with RE2 on every pattern the reader reads (seed ${SEED})`, () => {
    let read = 0;
    let valid = 0;
    fc.assert(
      fc.property(patternArb, fc.array(textArb, { minLength: 4, maxLength: 12 }), fc.nat(), (pattern, random, pick) => {
        let compiled: ReturnType<typeof RE2JS.compile>;
        try {
          compiled = RE2JS.compile(pattern);
        } catch {
          return; // not RE2: never read (validate refuses it first)
        }
        valid++;
        if (readPattern(pattern) === undefined) return;
        read++;
        const texts = [...random, ...wordsOf(pattern, pick)];
        for (const text of texts)
          expect(languageMatches(pattern, text), `${JSON.stringify(pattern)} on ${JSON.stringify(text)}`).toBe(
            compiled.matcher(text).matches(),
          );
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(read).toBeGreaterThan(valid * 0.4); // anchors inside groups and (?i) beyond ASCII are left unread by design
  });

  it('inclusion agrees with the texts: when within says yes, no text matches the new pattern and not the old', () => {
    fc.assert(
      fc.property(patternArb, patternArb, fc.array(textArb, { maxLength: 12 }), (a, b, texts) => {
        if (!within(P(a), P(b))) return;
        for (const t of texts)
          if (languageMatches(a, t) === true)
            expect(languageMatches(b, t), `${a} ⊆ ${b} on ${JSON.stringify(t)}`).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
