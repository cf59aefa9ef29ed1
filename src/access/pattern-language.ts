/**
 * The language of an RE2 pattern, as the service reads and anchors it (DESIGN.md §4 "A changed
 * pattern (rev 6)"): a pattern is read here into refa's syntax tree — RE2's syntax, its flags
 * (`(?i)`, `(?s)`, `(?m)`, scoped `(?i:…)`), its classes (`[[:alpha:]]`, `\d`, `\w`, `\s`) and
 * its case folding — and whether every text one pattern matches the other matches too is decided
 * exactly, with finite automata (refa). The service matches a pattern against the whole value,
 * so the language is the set of texts the pattern matches whole.
 *
 * Whatever this reader does not read exactly (Unicode classes `\pL`, word boundaries, octal
 * escapes, case folding beyond ASCII, an anchor inside the pattern, an automaton over the size
 * bound) makes the pattern *unreadable*: `within` then answers false — a new principal, a false
 * alarm at worst, never a missed gain.
 */
import type { CharSet as CharSetType, NoParent, Concatenation, Element, Expression } from 'refa';
import { lazyRequire } from '../util/lazy-require.js';
import { boundedMemo } from '../util/bounded-memo.js';
import { re2FullMatch, re2Problem } from '../util/re2.js';

const refa = lazyRequire<typeof import('refa')>('refa');
const MAX_CHAR = 0x10ffff;
/** Bound on the automata built for one question (nodes of each NFA, of the DFA, of the product). */
const MAX_NODES = 20_000;
/** Longer patterns are unreadable: the service's own bound on a pattern is far below this. */
const MAX_PATTERN = 4_096;

class Unreadable extends Error {}

type Range = { min: number; max: number };
type Flags = { i: boolean; m: boolean; s: boolean };
type Concat = NoParent<Concatenation>;

const r = (min: number, max = min): Range => ({ min, max });
const ch = (c: string): number => c.codePointAt(0)!;
const PERL: Record<string, Range[]> = {
  d: [r(0x30, 0x39)],
  s: [r(9, 10), r(12, 13), r(32)],
  w: [r(0x30, 0x39), r(0x41, 0x5a), r(0x5f), r(0x61, 0x7a)],
};
const POSIX: Record<string, Range[]> = {
  alnum: [r(0x30, 0x39), r(0x41, 0x5a), r(0x61, 0x7a)],
  alpha: [r(0x41, 0x5a), r(0x61, 0x7a)],
  ascii: [r(0, 0x7f)],
  blank: [r(9), r(32)],
  cntrl: [r(0, 0x1f), r(0x7f)],
  digit: [r(0x30, 0x39)],
  graph: [r(0x21, 0x7e)],
  lower: [r(0x61, 0x7a)],
  print: [r(0x20, 0x7e)],
  punct: [r(0x21, 0x2f), r(0x3a, 0x40), r(0x5b, 0x60), r(0x7b, 0x7e)],
  space: [r(9, 13), r(32)],
  upper: [r(0x41, 0x5a)],
  word: [r(0x30, 0x39), r(0x41, 0x5a), r(0x5f), r(0x61, 0x7a)],
  xdigit: [r(0x30, 0x39), r(0x41, 0x46), r(0x61, 0x66)],
};
const SIMPLE_ESCAPES: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
/** Characters outside ASCII that RE2's simple case folding joins to ASCII letters: KELVIN SIGN, LONG S. */
const FOLD_EXTRA: Record<number, number> = { 107: 0x212a, 75: 0x212a, 115: 0x17f, 83: 0x17f };

function set(ranges: readonly Range[]): CharSetType {
  return refa().CharSet.empty(MAX_CHAR).union(ranges);
}

/** The ranges with RE2's case folding applied; only ASCII is folded exactly here, anything else is unreadable. */
function fold(ranges: readonly Range[]): Range[] {
  const out: Range[] = [...ranges];
  for (const { min, max } of ranges) {
    if (max > 0x7f) throw new Unreadable('case folding beyond ASCII');
    for (let c = min; c <= max; c++) {
      if (c >= 0x41 && c <= 0x5a) out.push(r(c + 32));
      else if (c >= 0x61 && c <= 0x7a) out.push(r(c - 32));
      if (FOLD_EXTRA[c] !== undefined) out.push(r(FOLD_EXTRA[c]!));
    }
  }
  return out;
}

function charClass(ranges: readonly Range[], flags: Flags, negate = false): NoParent<Element> {
  let characters = set(flags.i ? fold(ranges) : ranges);
  if (negate) characters = characters.negate();
  return { type: 'CharacterClass', characters };
}

function alternation(alternatives: Concat[]): NoParent<Element> {
  return { type: 'Alternation', alternatives };
}

/** A recursive-descent reader of RE2 (Go's regexp/syntax with the Perl flags the service uses). */
class Reader {
  private pos = 0;
  private depth = 0;
  constructor(private readonly src: string) {}

  read(): NoParent<Expression> {
    const alternatives = this.alternatives({ i: false, m: false, s: false }, true);
    if (this.pos !== this.src.length) throw new Unreadable(`unexpected ${this.src[this.pos]}`);
    return { type: 'Expression', alternatives };
  }

  private peek(): string | undefined {
    return this.src[this.pos];
  }

  private next(): string {
    const c = String.fromCodePoint(this.src.codePointAt(this.pos)!);
    this.pos += c.length;
    return c;
  }

  /** Alternatives up to `)` or the end; `flags` is the group's own copy, which `(?i)` changes to the group's end. */
  private alternatives(flags: Flags, top: boolean): Concat[] {
    if (++this.depth > 200) throw new Unreadable('nested too deep');
    const alternatives: Concat[] = [];
    for (;;) {
      alternatives.push(this.concatenation(flags, top));
      if (this.peek() !== '|') break;
      this.pos++;
    }
    this.depth--;
    return alternatives;
  }

  private concatenation(flags: Flags, top: boolean): Concat {
    const elements: NoParent<Element>[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === '|' || c === ')') break;
      if (
        c === '^' ||
        c === '$' ||
        (c === '\\' && (this.src[this.pos + 1] === 'A' || this.src[this.pos + 1] === 'z'))
      ) {
        this.anchor(c === '^' || this.src[this.pos + 1] === 'A', top, elements.length === 0);
        continue;
      }
      if (c === '*' || c === '+' || c === '?' || (c === '{' && this.repeatAhead())) {
        const last = elements.pop();
        if (last === undefined) throw new Unreadable('repetition of nothing');
        elements.push(this.quantifier(last));
        continue;
      }
      if (c === '(' && this.src.startsWith('(?', this.pos) && this.flagGroupAhead() === 'flags') {
        this.setFlags(flags);
        continue;
      }
      elements.push(...this.atom(flags));
    }
    return { type: 'Concatenation', elements };
  }

  /** An anchor is read only at an edge of a top-level alternative, where a whole match makes it always true. */
  private anchor(begin: boolean, top: boolean, first: boolean): void {
    this.pos += this.peek() === '\\' ? 2 : 1;
    if (!top) throw new Unreadable('an anchor inside a group');
    if (begin ? first : this.atAlternativeEnd()) return;
    throw new Unreadable('an anchor inside the pattern');
  }

  private atAlternativeEnd(): boolean {
    let p = this.pos;
    while (this.src[p] === '$' || this.src.startsWith('\\z', p)) p += this.src[p] === '$' ? 1 : 2;
    return p === this.src.length || this.src[p] === '|';
  }

  private repeatAhead(): boolean {
    return /^\{\d+(,\d*)?\}/.test(this.src.slice(this.pos, this.pos + 12));
  }

  private quantifier(element: NoParent<Element>): NoParent<Element> {
    const c = this.next();
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else {
      const m = /^(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos))!;
      this.pos += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (min > 1000 || max < min || (max !== Infinity && max > 1000)) throw new Unreadable('repeat count');
    }
    if (this.peek() === '?') this.pos++; // non-greedy: the same language
    return {
      type: 'Quantifier',
      lazy: false,
      min,
      max,
      alternatives: [{ type: 'Concatenation', elements: [element] }],
    };
  }

  /** What `(?` starts: a flag setting `(?i)`, a flag group `(?i:…)`, a named group, or a non-capturing group. */
  private flagGroupAhead(): 'flags' | 'group' {
    const m = /^\(\?[imsU-]*\)/.exec(this.src.slice(this.pos, this.pos + 12));
    return m ? 'flags' : 'group';
  }

  private setFlags(flags: Flags): void {
    const m = /^\(\?([imsU-]*)\)/.exec(this.src.slice(this.pos))!;
    this.pos += m[0].length;
    this.applyFlags(m[1]!, flags);
  }

  private applyFlags(spec: string, flags: Flags): void {
    let on = true;
    for (const f of spec) {
      if (f === '-') on = false;
      else if (f === 'i' || f === 'm' || f === 's') flags[f] = on;
    }
  }

  private atom(flags: Flags): NoParent<Element>[] {
    const c = this.next();
    if (c === '(') return [alternation(this.group(flags))];
    if (c === '[') return [this.bracket(flags)];
    if (c === '.') return [charClass(flags.s ? [r(0, MAX_CHAR)] : [r(0, 9), r(11, MAX_CHAR)], { ...flags, i: false })];
    if (c === '\\') return this.escape(flags);
    return [charClass([r(ch(c))], flags)];
  }

  private group(outer: Flags): Concat[] {
    const flags = { ...outer };
    const rest = this.src.slice(this.pos);
    let m: RegExpExecArray | null;
    if ((m = /^\?P?<[A-Za-z0-9_]+>/.exec(rest))) this.pos += m[0].length;
    else if ((m = /^\?([imsU-]*):/.exec(rest))) {
      this.pos += m[0].length;
      this.applyFlags(m[1]!, flags);
    } else if (rest.startsWith('?')) throw new Unreadable('group syntax');
    const alternatives = this.alternatives(flags, false);
    if (this.next() !== ')') throw new Unreadable('unclosed group');
    return alternatives;
  }

  /** An escape outside a class: a character, a Perl class, or `\Q…\E`; anything else is unreadable. */
  private escape(flags: Flags): NoParent<Element>[] {
    const c = this.peek();
    if (c === 'Q') {
      this.pos++;
      const end = this.src.indexOf('\\E', this.pos);
      const text = this.src.slice(this.pos, end < 0 ? undefined : end);
      this.pos = end < 0 ? this.src.length : end + 2;
      return [...text].map((t) => charClass([r(ch(t))], flags));
    }
    const perl = this.perlClass(flags);
    if (perl) return [perl];
    return [charClass([r(this.escapedChar())], flags)];
  }

  private perlClass(flags: Flags): NoParent<Element> | undefined {
    const c = this.peek();
    if (c === undefined || PERL[c.toLowerCase()] === undefined) return undefined;
    this.pos++;
    return charClass(PERL[c.toLowerCase()]!, flags, c !== c.toLowerCase());
  }

  /** The character an escape (after the backslash) stands for. */
  private escapedChar(): number {
    const c = this.next();
    if (SIMPLE_ESCAPES[c] !== undefined) return SIMPLE_ESCAPES[c]!;
    if (c === 'x') {
      const m = /^(\{([0-9A-Fa-f]{1,6})\}|[0-9A-Fa-f]{2})/.exec(this.src.slice(this.pos));
      if (!m) throw new Unreadable('hex escape');
      this.pos += m[0].length;
      const code = parseInt(m[2] ?? m[1]!, 16);
      if (code > MAX_CHAR) throw new Unreadable('hex escape');
      return code;
    }
    const code = ch(c);
    if (code < 0x80 && !/[0-9A-Za-z]/.test(c)) return code;
    throw new Unreadable(`escape \\${c}`);
  }

  /** A bracket expression `[…]` / `[^…]`, its ranges folded (under `(?i)`) before it is negated, as RE2 does. */
  private bracket(flags: Flags): NoParent<Element> {
    let negate = false;
    if (this.peek() === '^') {
      negate = true;
      this.pos++;
    }
    const ranges: Range[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw new Unreadable('unclosed class');
      if (c === ']' && !first) {
        this.pos++;
        break;
      }
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.src.slice(this.pos, this.pos + 12));
      if (posix) {
        const named = POSIX[posix[2]!];
        if (!named) throw new Unreadable('class name');
        this.pos += posix[0].length;
        const folded = flags.i ? fold(named) : named;
        ranges.push(...(posix[1] ? this.complement(folded) : folded));
        continue;
      }
      if (c === '\\' && PERL[this.src[this.pos + 1]?.toLowerCase() ?? ''] !== undefined) {
        this.pos++;
        const e = this.src[this.pos]!;
        this.pos++;
        const named = PERL[e.toLowerCase()]!;
        const folded = flags.i ? fold(named) : named;
        ranges.push(...(e !== e.toLowerCase() ? this.complement(folded) : folded));
        continue;
      }
      const lo = this.classChar();
      if (this.peek() === '-' && this.src[this.pos + 1] !== ']' && this.src[this.pos + 1] !== undefined) {
        this.pos++;
        const hi = this.classChar();
        if (hi < lo) throw new Unreadable('range');
        ranges.push(...(flags.i ? fold([r(lo, hi)]) : [r(lo, hi)]));
      } else ranges.push(...(flags.i ? fold([r(lo)]) : [r(lo)]));
    }
    // Folded item by item above (a negated class or \W inside holds more than ASCII): not folded again.
    return charClass(ranges, { ...flags, i: false }, negate);
  }

  private complement(ranges: readonly Range[]): Range[] {
    return set(ranges)
      .negate()
      .ranges.map((x) => r(x.min, x.max));
  }

  private classChar(): number {
    const c = this.next();
    if (c !== '\\') return ch(c);
    return this.escapedChar();
  }
}

/** The pattern read into refa's syntax tree (undefined: not read exactly here, or not valid RE2). */
export const readPattern: (pattern: string) => NoParent<Expression> | undefined = boundedMemo(1_000, (pattern) => {
  try {
    return pattern.length <= MAX_PATTERN && re2Problem(pattern) === undefined ? new Reader(pattern).read() : undefined;
  } catch (err) {
    if (!(err instanceof Unreadable)) throw err;
    return undefined;
  }
});

/** A requirement on one value: an exact text, or an RE2 pattern matched against the whole value. */
export type ValueSpec = { exact: string } | { pattern: string };

function expressionOf(spec: ValueSpec): NoParent<Expression> | undefined {
  if ('pattern' in spec) return readPattern(spec.pattern);
  const elements = [...spec.exact].map(
    (t): NoParent<Element> => ({ type: 'CharacterClass', characters: set([r(ch(t))]) }),
  );
  return { type: 'Expression', alternatives: [{ type: 'Concatenation', elements }] };
}

/** Inclusion answers by the pair's JSON, worked out once per pair (bounded: the patterns are a stranger's). */
const decided = boundedMemo(1_000, (key) => {
  const [now, was] = JSON.parse(key) as [ValueSpec, ValueSpec];
  return decide(now, was);
});

/**
 * Whether every value `now` accepts, `was` accepted (L(now) ⊆ L(was)), decided exactly; false when
 * either side cannot be read or the automata grow past the bound (a new principal, never a missed gain).
 */
export function within(now: ValueSpec, was: ValueSpec): boolean {
  if (JSON.stringify(now) === JSON.stringify(was)) return true;
  // An exact value within a pattern: RE2 itself answers, for any pattern this reader cannot read too.
  if ('exact' in now) return 'exact' in was ? now.exact === was.exact : re2FullMatch(was.pattern, now.exact);
  return decided(JSON.stringify([now, was]));
}

function decide(now: ValueSpec, was: ValueSpec): boolean {
  const nowAst = expressionOf(now);
  const wasAst = expressionOf(was);
  if (nowAst === undefined || wasAst === undefined) return false;
  const { NFA, DFA, isDisjointWith } = refa();
  try {
    const options = { maxCharacter: MAX_CHAR };
    const nowNfa = NFA.fromRegex(nowAst, options, {}, new NFA.LimitedNodeFactory(MAX_NODES));
    const wasDfa = DFA.fromFA(
      NFA.fromRegex(wasAst, options, {}, new NFA.LimitedNodeFactory(MAX_NODES)),
      new DFA.LimitedNodeFactory(MAX_NODES),
    );
    wasDfa.complement();
    return isDisjointWith(nowNfa, wasDfa, MAX_NODES);
  } catch (err) {
    if (err instanceof refa().TooManyNodesError) return false;
    throw err;
  }
}

/**
 * A text both patterns match whole — one of the shortest, each character the least of its class
 * — or undefined: none, or either cannot be read here, or the automata grow past the bound.
 */
export function commonText(one: string, other: string): string | undefined {
  const [a, b] = [readPattern(one), readPattern(other)];
  if (a === undefined || b === undefined) return undefined;
  const { NFA, getIntersectionWordSets, TooManyNodesError } = refa();
  try {
    const options = { maxCharacter: MAX_CHAR };
    const left = NFA.fromRegex(a, options, {}, new NFA.LimitedNodeFactory(MAX_NODES));
    const right = NFA.fromRegex(b, options, {}, new NFA.LimitedNodeFactory(MAX_NODES));
    for (const word of getIntersectionWordSets(left, right, MAX_NODES))
      return String.fromCodePoint(...word.map((set) => set.ranges[0]!.min));
    return undefined;
  } catch (err) {
    if (err instanceof TooManyNodesError) return undefined;
    throw err;
  }
}

/** Whether `pattern`, read here, matches the whole of `text` (for the tests that hold this reader to RE2's); undefined when unreadable. */
export function languageMatches(pattern: string, text: string): boolean | undefined {
  const ast = readPattern(pattern);
  if (ast === undefined) return undefined;
  const { NFA } = refa();
  const nfa = NFA.fromRegex(ast, { maxCharacter: MAX_CHAR }, {}, new NFA.LimitedNodeFactory(MAX_NODES));
  return nfa.test([...text].map((t) => ch(t)));
}
