/**
 * The plain shape manifests are written in, checked line by line before anything reads a file
 * fast (fast-yaml.ts): block mappings and sequences (`key: value`, `- item`, `- key: value`),
 * plain scalars on one line, quoted scalars closed on their line, block scalars (`|`, `>`), flow
 * collections closed on their line, comments, and documents split by `---` lines. Anything else —
 * a scalar over several lines, anchors, aliases, tags, explicit keys, directives, tabs, a
 * byte-order mark, a line over 1,024 characters, a key that is no string — is not taken, and the
 * file is `yaml`'s to read. The check records, when asked, the lines that hold the structure: what
 * block-structure.ts checks the nesting of. It decides no value: js-yaml reads them all.
 *
 * Plain scalars resolve by the YAML 1.2 core schema as the `yaml` package spells it. Pure.
 */

/**
 * The lines of a file that hold its structure (not blank, a comment, a `---` or the content of a
 * block scalar), as the shape check meets them: what block-structure.ts checks the nesting of.
 */
export interface PlainLines {
  /** Per line: the offset of its first character that is not a space. */
  content: number[];
  /** Per line: its column (the spaces before it). */
  indent: number[];
  /** The first line (an index into the lists above) of each document. */
  docFirst: number[];
}

/**
 * Lines js-yaml reads otherwise than `yaml`: a directive (`%…`, even a mistyped one), a document
 * end marker (`...`: `yaml` counts an empty document between two of them), an indented `---`,
 * a `---` with something after it on its line, and a comment right after a quote or a bracket
 * (`[]#`: `yaml` wants a space before a comment).
 */
const UNTAKEN_LINE = /^(?:[ ]*%|[ ]*\.\.\.(?:[ \r]|$)|[ ]*---[^\r\n]|[ ]+---)/m;
const UNTAKEN_COMMENT = /["'\]}]#/;
/** `yaml` refuses an implicit key that runs past 1,024 characters; js-yaml takes it. No longer line is taken. */
const LONG_LINE_CHARS = 1024;
/** A carriage return that does not end a line (CRLF does): `yaml` does not take it as a line break. */
const LONE_CR = /\r(?!\n)/;

/**
 * Whether the text holds something the fast read does not take (above). Each pattern is tried
 * only when the characters it needs are there at all: the patterns scan the whole file, and
 * most files have no directive, no document end marker and no carriage return.
 */
function hasUntaken(text: string): boolean {
  if (text.charCodeAt(0) === 0xfeff || text.includes('\t')) return true;
  if ((text.includes('%') || text.includes('...') || text.includes('---')) && UNTAKEN_LINE.test(text)) return true;
  if (text.includes('#') && UNTAKEN_COMMENT.test(text)) return true;
  return text.includes('\r') && LONE_CR.test(text);
}

/** Characters that may not start a plain scalar (YAML's indicators) or a plain key, and spaces. */
const NOT_PLAIN_FIRST = new Uint8Array(128);
for (const c of '-?:,[]{}#&*!|>\'"%@` \r\n') NOT_PLAIN_FIRST[c.charCodeAt(0)] = 1;
/** Whether a plain scalar (or key) may start with the character `c`: no indicator, no space of any kind. */
function startsPlain(c: number): boolean {
  return c < 128 ? NOT_PLAIN_FIRST[c] === 0 : !/\s/.test(String.fromCharCode(c));
}
/** Characters no plain key written here holds (flow indicators). */
const NOT_IN_KEY = new Uint8Array(128);
for (const c of ',[]{}') NOT_IN_KEY[c.charCodeAt(0)] = 1;
/**
 * Quoted scalars closed on their line, read from a position (sticky). A `\U` escape is taken only
 * up to U+10FFFF: past it `yaml` reports an invalid escape, where js-yaml made two lone surrogates
 * of it (review of issue 61).
 */
const DOUBLE_QUOTED = /"(?:[^"\\\n\r]|\\[^\n\rU]|\\U00(?:0[0-9a-fA-F]|10)[0-9a-fA-F]{4})*"/y;
const SINGLE_QUOTED = /'(?:[^'\n\r]|'')*'/y;
/** The header of a block scalar (`|`, `>-`, `|+`, …): no indentation indicator, a comment at most. */
const BLOCK_HEADER = /^[|>][-+]?(?: +#.*)?$/;

/** Plain keys already judged taken (the same few names recur on every item); bounded. */
const TAKEN_KEYS = new Set<string>();

/**
 * The number of documents in `text` when every line of it is in the plain shape (see the top of
 * this module), else undefined. One pass over the lines, by character code; a line is judged by
 * what the lines above it opened (a block scalar, a scalar that a deeper line would continue).
 */
export function plainShape(text: string, lines?: PlainLines): number | undefined {
  if (hasUntaken(text)) return undefined;
  let markers = 0;
  /** The markers before the document the last line recorded in `lines` is in. */
  let recordedDocument = -1;
  let contentBeforeMarker = false;
  /** In a block scalar: the column its content must be deeper than, and the content's column once known (-1 before). */
  let blockParent = -1;
  let blockContent = -1;
  /** After a line that ends in a scalar: the column a following line may not go deeper than (a deeper one would continue it). */
  let scalarColumn = -1;
  let next = 0;
  while (next < text.length) {
    const lineStart = next;
    let end = text.indexOf('\n', lineStart);
    if (end === -1) end = text.length;
    next = end + 1;
    if (end - lineStart > LONG_LINE_CHARS) return undefined;
    if (text.charCodeAt(end - 1) === 0x0d && end > lineStart) end--;
    let p = lineStart;
    while (p < end && text.charCodeAt(p) === 0x20) p++;
    const indent = p - lineStart;
    const blank = p === end;
    if (blockParent >= 0) {
      if (blank) {
        // Spaces past the content's column are content (`yaml` and js-yaml may count them apart).
        if (indent > 0 && (blockContent < 0 || indent > blockContent)) return undefined;
        continue;
      }
      if (blockContent < 0 && indent > blockParent) blockContent = indent;
      if (blockContent >= 0 && indent >= blockContent) continue;
      if (indent > blockParent) return undefined; // less deep than its content, deeper than its parent
      blockParent = blockContent = -1;
    }
    if (blank || text.charCodeAt(p) === 0x23) continue;
    if (indent === 0 && end - lineStart === 3 && text.startsWith('---', lineStart)) {
      markers++;
      scalarColumn = -1;
      continue;
    }
    if (markers === 0) contentBeforeMarker = true;
    if (lines !== undefined) {
      if (recordedDocument !== markers) {
        recordedDocument = markers;
        lines.docFirst.push(lines.content.length);
      }
      lines.content.push(p);
      lines.indent.push(indent);
    }
    if (scalarColumn >= 0 && indent > scalarColumn) return undefined;
    scalarColumn = -1;
    // Item markers: "- " (or a lone "-" ending the line), any number on one line.
    let dashes = 0;
    let dashColumn = -1;
    while (text.charCodeAt(p) === 0x2d && (p + 1 === end || text.charCodeAt(p + 1) === 0x20)) {
      dashColumn = p - lineStart;
      dashes++;
      p++;
      while (p < end && text.charCodeAt(p) === 0x20) p++;
    }
    if (p === end || text.charCodeAt(p) === 0x23) continue; // "-" alone: the item is on the lines below
    let parent = dashColumn;
    const keyEnd = keyEndAt(text, p, end);
    if (keyEnd === -1) return undefined;
    if (keyEnd > p) {
      parent = p - lineStart;
      let colon = keyEnd;
      while (text.charCodeAt(colon) === 0x20) colon++;
      p = colon + 1;
      if (p < end && text.charCodeAt(p) !== 0x20) return undefined; // "key:value" is no key
      while (p < end && text.charCodeAt(p) === 0x20) p++;
      if (p === end || text.charCodeAt(p) === 0x23) continue; // the value is on the lines below (or empty)
    } else if (dashes === 0) {
      return undefined; // a scalar of its own on a line: a continuation, or a document that is no mapping
    }
    const c = text.charCodeAt(p);
    if (c === 0x7c || c === 0x3e) {
      if (!BLOCK_HEADER.test(text.slice(p, end))) return undefined;
      blockParent = parent;
      blockContent = -1;
      continue;
    }
    if (!scalarAt(text, p, end)) return undefined;
    scalarColumn = parent;
  }
  if (blockParent >= 0 && blockContent < 0) return undefined; // a block scalar with no content at the end
  return markers + (contentBeforeMarker ? 1 : 0);
}

/** Where the quoted scalar at `at` ends (past its closing quote) if it closes on its line, else -1. */
function quotedEnd(text: string, at: number): number {
  const quoted = text.charCodeAt(at) === 0x22 ? DOUBLE_QUOTED : SINGLE_QUOTED;
  quoted.lastIndex = at;
  return quoted.test(text) ? quoted.lastIndex : -1;
}

/** Where the line holding `at` ends (before its "\r\n" or "\n"). */
export function lineEnd(text: string, at: number): number {
  let end = text.indexOf('\n', at);
  if (end === -1) end = text.length;
  return end > at && text.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
}

/** Whether a list item starts at `at`: "- ", or a "-" that ends its line. */
export function startsItem(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 0x2d) return false;
  const after = text.charCodeAt(at + 1);
  return after === 0x20 || after === 0x0a || after === 0x0d || Number.isNaN(after);
}

/** Whether only spaces, then perhaps a comment, follow `at` on its line (which ends at `end`). */
function lineEndsAt(text: string, at: number, end: number): boolean {
  while (at < end && text.charCodeAt(at) === 0x20) at++;
  return at === end || text.charCodeAt(at) === 0x23;
}

/**
 * Where the key of the node at `p` ends (before its ":"); `p` itself when the node is no key (a
 * value); -1 for a key not taken: one that is not a plain name resolving to a string or a quoted
 * name, or a quoted scalar not closed on its line.
 */
export function keyEndAt(text: string, p: number, end: number): number {
  const c = text.charCodeAt(p);
  if (c === 0x5b || c === 0x7b) return p; // a flow collection: a value (one used as a key is not taken)
  if (c === 0x22 || c === 0x27) {
    const close = quotedEnd(text, p);
    if (close === -1) return -1;
    let after = close;
    while (text.charCodeAt(after) === 0x20) after++;
    return after < end && text.charCodeAt(after) === 0x3a ? close : p;
  }
  // The key's ":" is one followed by a space or the line's end, before any " #".
  let colon = -1;
  for (let i = p; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x23 && text.charCodeAt(i - 1) === 0x20) break;
    if (ch === 0x3a && (i + 1 === end || text.charCodeAt(i + 1) === 0x20)) {
      colon = i;
      break;
    }
  }
  if (colon === -1) return p;
  let keyEnd = colon;
  while (text.charCodeAt(keyEnd - 1) === 0x20) keyEnd--;
  const key = text.slice(p, keyEnd);
  if (!TAKEN_KEYS.has(key)) {
    if (key === '' || !startsPlain(c) || typeof resolvePlain(key) !== 'string') return -1;
    for (let i = 1; i < key.length; i++) {
      const ch = key.charCodeAt(i);
      if (ch < 128 && NOT_IN_KEY[ch] === 1) return -1;
    }
    if (TAKEN_KEYS.size < 1000) TAKEN_KEYS.add(key);
  }
  return keyEnd;
}

/** Whether the node at `p` is one scalar or one flow collection ending on its line (a comment may follow). */
function scalarAt(text: string, p: number, end: number): boolean {
  const c = text.charCodeAt(p);
  if (c === 0x22 || c === 0x27) {
    const close = quotedEnd(text, p);
    return close !== -1 && close <= end && lineEndsAt(text, close, end);
  }
  if (c === 0x5b || c === 0x7b) {
    const rest = text.slice(p, end);
    const close = flowEnd(rest);
    return close !== -1 && lineEndsAt(rest, close, rest.length);
  }
  // A plain scalar: no indicator first ("-", "?" and ":" may start one when a character other
  // than a space or a flow indicator follows), no ": " and no ":" at its end; " #" starts a comment.
  if (!startsPlain(c)) {
    const second = text.charCodeAt(p + 1);
    if (
      !(c === 0x2d || c === 0x3f || c === 0x3a) ||
      p + 1 === end ||
      second === 0x20 ||
      (second < 128 && NOT_IN_KEY[second] === 1)
    )
      return false;
  }
  for (let i = p + 1; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x3a && (i + 1 === end || text.charCodeAt(i + 1) === 0x20)) return false;
    if (ch === 0x23 && text.charCodeAt(i - 1) === 0x20) return true;
  }
  return true;
}

/**
 * A plain scalar inside a flow collection, read from a position (sticky): no indicator first, none
 * of `,[]{}#` inside, and a ":" only where something other than a space, a flow indicator or the
 * end follows it — a URL, `repo:acme/app:ref:refs/heads/main` — as YAML 1.2 reads it in a flow
 * collection (js-yaml and `yaml` alike: the differential test holds it). `export` writes such
 * values unquoted: read by `yaml` instead, a 10k org took twice as long to validate.
 */
const FLOW_PLAIN = /[^-?:,[\]{}#&*!|>'"%@`\s](?:[^,[\]{}:#]|:(?=[^\s,[\]{}]))*/y;

/**
 * The open collections of {@link flowEnd} (their bracket) and, per open collection, what comes
 * next: 0 a key, 1 its ":", 2 a value (a list's item), 3 a "," or the end, 4 the end of an empty
 * collection. Kept from call to call with a depth of their own (flowEnd never calls itself): a
 * flow line is read for every flow-style item, and two fresh stacks and a closure per line were
 * ≈3.7 MB of the ≈100 MB a 10k plan allocates (docs/performance.md).
 */
const FLOW_OPEN: number[] = [];
const FLOW_EXPECT: number[] = [];

function skipSpaces(s: string, i: number): number {
  while (s.charCodeAt(i) === 0x20) i++;
  return i;
}

/**
 * Where the flow collection at the start of `s` ends, -1 when it is not taken: it must close on
 * its line, hold only scalars (plain or quoted) and flow collections, and in a mapping every
 * entry must be `key: value` with a key resolving to a string.
 */
function flowEnd(s: string): number {
  const open = FLOW_OPEN;
  const expect = FLOW_EXPECT;
  let depth = 0;
  let i = 0;
  for (;;) {
    i = skipSpaces(s, i);
    const c = s.charCodeAt(i);
    const top = depth - 1;
    if (Number.isNaN(c)) return -1;
    const inMap = top >= 0 && open[top] === 0x7b;
    const state = top >= 0 ? expect[top]! : -1;
    if (c === 0x5d || c === 0x7d) {
      // A closing bracket: after a complete entry (or none), never after a ",".
      if (top < 0 || open[top] !== (c === 0x5d ? 0x5b : 0x7b) || (inMap ? state !== 3 && state !== 4 : state === 2))
        return -1;
      depth--;
      i++;
      if (depth === 0) return i;
      expect[depth - 1] = 3;
      continue;
    }
    if (c === 0x2c) {
      if (top < 0 || state !== 3) return -1;
      expect[top] = inMap ? 0 : 2;
      i++;
      continue;
    }
    if (c === 0x3a) {
      if (!inMap || state !== 1 || s.charCodeAt(i + 1) !== 0x20) return -1;
      expect[top] = 2;
      i++;
      continue;
    }
    // A node: where one may stand (the first item, after a ",", or a mapping's key or value).
    if (top >= 0 && (inMap ? state !== 0 && state !== 2 : state !== 2)) return -1;
    const isKey = inMap && state === 0;
    if (c === 0x5b || c === 0x7b) {
      if (isKey) return -1;
      open[depth] = c;
      expect[depth] = 4;
      depth++;
      i++;
      // An empty collection closes at once; else its first entry follows.
      i = skipSpaces(s, i);
      if (s.charCodeAt(i) !== (c === 0x5b ? 0x5d : 0x7d)) expect[depth - 1] = c === 0x7b ? 0 : 2;
      continue;
    }
    let end: number;
    if (c === 0x22 || c === 0x27) {
      end = quotedEnd(s, i);
    } else {
      FLOW_PLAIN.lastIndex = i;
      end = FLOW_PLAIN.test(s) ? FLOW_PLAIN.lastIndex : -1;
      if (end !== -1 && isKey && typeof resolvePlain(s.slice(i, end).trimEnd()) !== 'string') return -1;
    }
    if (end === -1) return -1;
    i = end;
    expect[top] = isKey ? 1 : 3;
  }
}

/**
 * The core schema's plain forms. Module constants: a regular expression literal inside the
 * function is a new RegExp object each time it is evaluated, and js-yaml asks this for every
 * plain scalar of every manifest (≈2 MB of a 10k plan, docs/performance.md).
 */
const CORE_NULL = /^(?:~|[Nn]ull|NULL)$/;
const CORE_BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const CORE_OCTAL = /^0o[0-7]+$/;
const CORE_INT = /^[-+]?[0-9]+$/;
const CORE_HEX = /^0x[0-9a-fA-F]+$/;
const CORE_INF_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const CORE_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const CORE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** A plain scalar by the YAML 1.2 core schema, in the order and the forms of the `yaml` package. */
export function resolvePlain(s: string): unknown {
  if (s.length === 0) return null;
  const c = s.charCodeAt(0);
  // Most values start with a letter other than those of null/true/false/.inf: strings at once.
  if (!(c <= 0x39 || c === 0x6e || c === 0x4e || c === 0x74 || c === 0x54 || c === 0x66 || c === 0x46 || c === 0x7e))
    return s;
  if (CORE_NULL.test(s)) return null;
  if (CORE_BOOL.test(s)) return s[0] === 't' || s[0] === 'T';
  if (CORE_OCTAL.test(s)) return parseInt(s.substring(2), 8);
  if (CORE_INT.test(s)) return parseInt(s, 10);
  if (CORE_HEX.test(s)) return parseInt(s.substring(2), 16);
  if (CORE_INF_NAN.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? -Infinity : Infinity;
  if (CORE_EXP.test(s)) return parseFloat(s);
  if (CORE_FLOAT.test(s)) return parseFloat(s);
  return s;
}
