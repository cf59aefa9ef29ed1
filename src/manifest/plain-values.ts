/**
 * The values of a file in the plain shape, built from the lines the shape check met (plain-shape.ts
 * `PlainLines`) without a second parser: block mappings and sequences of plain and quoted
 * one-line scalars, and empty `[]` and `{}`, which is how manifests are written. Anything else —
 * a flow collection, a block scalar, an escape in a double-quoted scalar, a quoted key, a list on
 * its item's line, a key written twice, a line left of the document's first — gives undefined,
 * and js-yaml reads the file (as before this module).
 *
 * What is built is what `yaml` gives, value for value: the differential test
 * (test/unit/fast-yaml.test.ts) holds the fast reader to the `yaml` package over every fixture
 * and thousands of generated and mutated manifests. Pure.
 */
import { keyEndAt, lineEnd, quotedEnd, resolvePlain, startsItem, type PlainLines } from './plain-shape.js';

/** A frame of the block structure being built: a mapping or a sequence, and the column of its entries or items. */
interface Frame {
  column: number;
  map: Record<string, unknown> | undefined;
  seq: unknown[] | undefined;
  /** A mapping's last key, while its value may still be the block below it (`key:` and nothing after). */
  pending: string | undefined;
  /** A sequence's last item is "-" alone, and the block below it may still be its value. */
  pendingItem: boolean;
}

/**
 * What the lines do not allow building: `unsupported`, a value or key this module does not read
 * (js-yaml reads the file); `invalid`, lines that are no YAML block structure at all — a list
 * item where no list can be, a line left of the document's first — which js-yaml may still take
 * (it reads `- x` at a mapping's column after a nested value): `yaml` reads such a file and
 * reports it. The structure is checked to the end even past an unsupported value.
 */
export type NotBuilt = 'unsupported' | 'invalid';

/** The documents of `text`, one per `lines.docFirst`, or why they are not built here. */
export function buildPlainValues(text: string, lines: PlainLines): Record<string, unknown>[] | NotBuilt {
  const documents: Record<string, unknown>[] = [];
  let unsupported = false;
  for (let d = 0; d < lines.docFirst.length; d++) {
    const document = buildDocument(text, lines, lines.docFirst[d]!, lines.docFirst[d + 1] ?? lines.content.length);
    if (document === 'invalid') return 'invalid';
    if (document === 'unsupported') unsupported = true;
    else documents.push(document);
  }
  return unsupported ? 'unsupported' : documents;
}

function frame(column: number, map: Record<string, unknown> | undefined, seq: unknown[] | undefined): Frame {
  return { column, map, seq, pending: undefined, pendingItem: false };
}

function buildDocument(text: string, lines: PlainLines, from: number, to: number): Record<string, unknown> | NotBuilt {
  const { content, indent } = lines;
  /** A value or key not read here was met: the structure is still checked, the values are not kept. */
  let unsupported = false;
  const root: Record<string, unknown> = {};
  const stack: Frame[] = [frame(indent[from]!, root, undefined)];
  for (let j = from; j < to; j++) {
    const column = indent[j]!;
    const lineStart = content[j]! - column;
    const end = lineEnd(text, content[j]!);
    let p = content[j]!;
    if (startsItem(text, p)) {
      // Back to the frame this item's column belongs to; none (a line left of the document's
      // first) is not built here.
      while (stack[stack.length - 1]!.column > column) {
        stack.pop();
        if (stack.length === 0) return 'invalid';
      }
      const seq = sequenceAt(stack, column);
      if (seq === undefined) return 'invalid';
      p++;
      while (p < end && text.charCodeAt(p) === 0x20) p++;
      const top = stack[stack.length - 1]!;
      if (p === end || text.charCodeAt(p) === 0x23) {
        seq.push(null);
        top.pendingItem = true;
        continue;
      }
      top.pendingItem = false;
      if (startsItem(text, p)) return 'unsupported'; // "- - x": a list on its item's line, not followed here
      const keyEnd = keyEndAt(text, p, end);
      if (keyEnd === -1) return 'invalid';
      if (keyEnd === p) {
        const value = scalar(text, p, end);
        if (value === NOT_BUILT) unsupported = true;
        seq.push(value);
        continue;
      }
      const map: Record<string, unknown> = {};
      seq.push(map);
      const entries = frame(p - lineStart, map, undefined);
      stack.push(entries);
      if (!entry(text, entries, p, keyEnd, end)) unsupported = true;
      continue;
    }
    // A key line: the entries of the mapping at its column (a list at that column ends here).
    for (let top = stack[stack.length - 1]!; top.column > column || (top.column === column && top.seq !== undefined); top = stack[stack.length - 1]!) {
      stack.pop();
      if (stack.length === 0) return 'invalid';
    }
    const map = mappingAt(stack, column);
    if (map === undefined) return 'invalid';
    const keyEnd = keyEndAt(text, p, end);
    if (keyEnd <= p) return 'invalid';
    if (!entry(text, stack[stack.length - 1]!, p, keyEnd, end)) unsupported = true;
  }
  return unsupported ? 'unsupported' : root;
}

/** The sequence a "-" at `column` adds an item to: the one there, or a new one as the value left open above it. */
function sequenceAt(stack: Frame[], column: number): unknown[] | undefined {
  const top = stack[stack.length - 1]!;
  if (top.seq !== undefined && top.column === column) return top.seq;
  const seq: unknown[] = [];
  if (!openValue(top, column, seq)) return undefined;
  stack.push(frame(column, undefined, seq));
  return seq;
}

/** The mapping a key at `column` belongs to: the one there, or a new one as the value left open above it. */
function mappingAt(stack: Frame[], column: number): Record<string, unknown> | undefined {
  const top = stack[stack.length - 1]!;
  if (top.map !== undefined && top.column === column) return top.map;
  const map: Record<string, unknown> = {};
  if (!openValue(top, column, map)) return undefined;
  stack.push(frame(column, map, undefined));
  return map;
}

/**
 * Makes `value` the value left open by the frame above (a `key:` with nothing after it, or a "-"
 * alone), when the block at `column` may be it: deeper than the frame, or a list at a key's column.
 */
function openValue(top: Frame, column: number, value: Record<string, unknown> | unknown[]): boolean {
  if (top.map !== undefined && top.pending !== undefined && (column > top.column || (column === top.column && Array.isArray(value)))) {
    top.map[top.pending] = value;
    top.pending = undefined;
    return true;
  }
  if (top.seq !== undefined && top.pendingItem && column > top.column) {
    top.seq[top.seq.length - 1] = value;
    top.pendingItem = false;
    return true;
  }
  return false;
}

/**
 * Reads `key: value` at `p` into the frame's mapping; false when the key or the value is beyond
 * what is built here (the entry is still taken for the structure: a `key:` left open stays open).
 */
function entry(text: string, into: Frame, p: number, keyEnd: number, end: number): boolean {
  const c = text.charCodeAt(p);
  // A quoted key is js-yaml's to read; one written twice js-yaml refuses and `yaml` reports.
  let key = text.slice(p, keyEnd);
  const map = into.map!;
  const taken = c !== 0x22 && c !== 0x27 && !Object.prototype.hasOwnProperty.call(map, key);
  if (!taken) key = `\u0000${keyEnd}`; // a stand-in, unique in the file, only for the structure
  let v = text.indexOf(':', keyEnd) + 1;
  while (v < end && text.charCodeAt(v) === 0x20) v++;
  if (v === end || text.charCodeAt(v) === 0x23) {
    map[key] = null;
    into.pending = key;
    return taken;
  }
  const value = scalar(text, v, end);
  map[key] = value;
  into.pending = undefined;
  return taken && value !== NOT_BUILT;
}

const NOT_BUILT = Symbol('not built here');

/** The one-line scalar at `p`: plain (by the core schema), single-quoted, or double-quoted without escapes. */
function scalar(text: string, p: number, end: number): unknown {
  const c = text.charCodeAt(p);
  if (c === 0x22 || c === 0x27) {
    const close = quotedEnd(text, p);
    if (close === -1 || close > end) return NOT_BUILT;
    const inner = text.slice(p + 1, close - 1);
    if (c === 0x27) return inner.includes("''") ? inner.replaceAll("''", "'") : inner;
    return inner.includes('\\') ? NOT_BUILT : inner;
  }
  if (c === 0x5b || c === 0x7b) {
    // An empty list or mapping (`roleBindings: []`); any other flow collection is js-yaml's to read.
    const close = text.charCodeAt(p + 1);
    if (close !== (c === 0x5b ? 0x5d : 0x7d) || !onlyCommentAfter(text, p + 2, end)) return NOT_BUILT;
    return c === 0x5b ? [] : {};
  }
  if (c === 0x7c || c === 0x3e) return NOT_BUILT; // a block scalar
  // A plain scalar ends at " #" (a comment) or the line's end, without the spaces before.
  let stop = end;
  for (let i = p + 1; i < end; i++) {
    if (text.charCodeAt(i) === 0x23 && text.charCodeAt(i - 1) === 0x20) {
      stop = i;
      break;
    }
  }
  while (stop > p && text.charCodeAt(stop - 1) === 0x20) stop--;
  return resolvePlain(text.slice(p, stop));
}

/** Whether only spaces, then perhaps a comment (" #"), follow `at` on its line. */
function onlyCommentAfter(text: string, at: number, end: number): boolean {
  let p = at;
  while (p < end && text.charCodeAt(p) === 0x20) p++;
  return p === end || (p > at && text.charCodeAt(p) === 0x23);
}
