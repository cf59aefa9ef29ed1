/**
 * The first, fast read of a manifest file: js-yaml, with every node's source position taken from
 * its parse events (`listener`). It takes only the plain YAML that manifests are made of — block
 * and flow mappings and sequences, plain, quoted and block scalars, comments — and gives up
 * (undefined) on anything else: several documents in one file (js-yaml's events do not line up
 * with its documents there), a line over 1,024 characters, an error, an empty value or document, anchors,
 * aliases, tags, directives, tabs, a byte-order mark, keys that are not strings, duplicate or
 * prototype-altering keys. The caller then reads the file with the `yaml` package, whose
 * diagnostics explain what is wrong. What it returns is exactly what that slower read would give
 * (the same values, the same positions): the differential test (test/unit/fast-yaml.test.ts)
 * holds the two readers to it over every fixture and thousands of generated manifests.
 *
 * Plain scalars resolve by the YAML 1.2 core schema as the `yaml` package spells it.
 *
 * Why js-yaml 4 and not 5: 5 reads through an event list (parseEvents) that costs a fresh
 * process twice as much on a 10,000-resource org (≈110 ms against ≈45 ms, `npm run bench
 * plan-process`), and the `yaml` package's own lexer alone costs ≈160–250 ms there.
 */
import { FAILSAFE_SCHEMA, Type, loadAll, type LoadOptions, type State } from 'js-yaml';
import type { Pointer } from './diagnostics.js';

/**
 * Where every node of a file starts, flat: one array of numbers for all its documents (a few
 * thousand objects fewer per file than a tree, all of them long-lived: less for the GC to copy).
 * A node, in document order: a scalar is `SCALAR, start`; a mapping `MAPPING, start, size, n`
 * then per entry `key index, key start` and the value's node; a sequence `SEQUENCE, start,
 * size, n` then its items. `size` counts the node's cells, to step over it; a key index points
 * into `keys`.
 */
export interface Positions {
  readonly cells: readonly number[];
  readonly keys: readonly string[];
  /**
   * Where each item of a long sequence starts, by the sequence's cell, made when one is first
   * indexed: resolving locates every item of a list, and stepping over the items before each
   * one made a list of 10,000 role bindings cost ≈180 ms.
   */
  itemStarts: Map<number, Int32Array> | undefined;
}

/** Sequences shorter than this are stepped through, not given a table of item starts. */
const ITEM_TABLE_FROM = 16;

const SCALAR = 0;
const MAPPING = 1;
const SEQUENCE = 2;

/** Cells of the node at `at`. */
function sizeAt(cells: readonly number[], at: number): number {
  return cells[at] === SCALAR ? 2 : cells[at + 2]!;
}

export interface FastDocument {
  value: Record<string, unknown>;
  positions: Positions;
  /** Where the document's root node is in `positions.cells`. */
  root: number;
}

/**
 * Lines js-yaml reads otherwise than `yaml`: a directive (`%…`, even a mistyped one), a document
 * end marker (`...`: `yaml` counts an empty document between two of them), an indented `---`,
 * a `---` with something after it on its line, and a comment right after a quote or a bracket
 * (`[]#`: `yaml` wants a space before a comment).
 */
const UNTAKEN_LINE = /^(?:[ ]*%|[ ]*\.\.\.(?:[ \r]|$)|[ ]*---[^\r\n]|[ ]+---)/m;
const UNTAKEN_COMMENT = /["'\]}]#/;
const LONG_LINE_CHARS = 1024;
const LONG_LINE = new RegExp(`^[^\\n]{${LONG_LINE_CHARS + 1},}`, 'm');
/** A carriage return that does not end a line (CRLF does): `yaml` does not take it as a line break. */
const LONE_CR = /\r(?!\n)/;

/**
 * Whether the text holds something the fast read does not take (above). Each pattern is tried
 * only when the characters it needs are there at all: the patterns scan the whole file, and
 * most files have no directive, no document end marker and no carriage return.
 */
function hasUntaken(text: string): boolean {
  if (text.charCodeAt(0) === 0xfeff || text.includes('\t')) return true;
  // `yaml` refuses an implicit key that runs past 1,024 characters, js-yaml takes it: a line that
  // long (rare in manifests; a long line of markdown too) goes to `yaml`, which says what is wrong.
  if (text.length > LONG_LINE_CHARS && LONG_LINE.test(text)) return true;
  if ((text.includes('%') || text.includes('...') || text.includes('---')) && UNTAKEN_LINE.test(text)) return true;
  if (text.includes('#') && UNTAKEN_COMMENT.test(text)) return true;
  return text.includes('\r') && LONE_CR.test(text);
}

/** Thrown inside the builder to give up on a file; never escapes this module. */
class NotPlain {}
const NOT_PLAIN = new NotPlain();

/** A node as js-yaml's events show it: where it opened, what it read, the nodes it read inside. */
interface Frame {
  open: number;
  close: number;
  kind: string | null;
  result: unknown;
  children: Frame[] | null;
}

/**
 * Plain scalars that are not strings (null, booleans, numbers), resolved by resolvePlain; one
 * implicit type, as what each becomes is all that is read here.
 */
const SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    new Type('tag:yaml.org,2002:core-plain', {
      kind: 'scalar',
      resolve: (s: string | null) => s !== null && s !== '' && typeof resolvePlain(s) !== 'string',
      construct: (s: string) => resolvePlain(s),
    }),
  ],
});

/** Reads a file's documents, or undefined when the file is not plain manifest YAML (see above). */
export function readPlainYaml(text: string, forbiddenKeys: ReadonlySet<string>, maxDepth: number): FastDocument[] | undefined {
  if (hasUntaken(text)) return undefined;
  const roots: Frame[] = [];
  const stack: Frame[] = [];
  let values: unknown[];
  try {
    const options: LoadOptions & { maxDepth: number } = {
      schema: SCHEMA,
      // js-yaml (4.3 has this bound; its types do not say so) counts every node it opens, wrappers
      // and scalars too: its own bound is set well past ours, which the builder applies. A deeper
      // document goes to `yaml` either way.
      maxDepth: 3 * maxDepth,
      listener(event: 'open' | 'close', state: State) {
        if (event === 'open') {
          stack.push({ open: state.position, close: -1, kind: null, result: undefined, children: null });
          return;
        }
        const frame = stack.pop()!;
        frame.close = state.position;
        frame.kind = state.kind;
        frame.result = state.result;
        const parent = stack[stack.length - 1];
        if (parent === undefined) roots.push(frame);
        else (parent.children ??= []).push(frame);
      },
    };
    values = loadAll(text, undefined, options);
  } catch {
    return undefined;
  }
  if (values.length === 0 || roots.length !== values.length) return undefined;
  try {
    const builder = new Builder(text, forbiddenKeys, maxDepth);
    const documents = values.map((value, i): FastDocument => {
      const root = builder.cells.length;
      builder.position(roots[i]!);
      if (builder.cells[root] !== MAPPING || roots[i]!.result !== value) throw NOT_PLAIN; // a document that is no mapping
      return { value: value as Record<string, unknown>, positions: builder, root };
    });
    return documents;
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    throw err;
  }
}

class Builder implements Positions {
  readonly cells: number[] = [];
  readonly keys: string[] = [];
  itemStarts: Map<number, Int32Array> | undefined = undefined;

  constructor(
    private readonly text: string,
    private readonly forbiddenKeys: ReadonlySet<string>,
    /** Mappings and lists one inside another taken (a deeper document is the `yaml` reader's to report). */
    private readonly maxDepth: number,
  ) {}

  /** Writes the positions of a node and everything in it; NOT_PLAIN when the node is not plain YAML. */
  position(outer: Frame, depth = 1): void {
    // Trying a block mapping reads its first key as a node of its own; when no ":" follows, that
    // node is the value itself, wrapped once.
    let f = outer;
    while (f.children !== null && f.children.length === 1 && f.children[0]!.kind === f.kind && f.children[0]!.result === f.result) f = f.children[0]!;
    const start = this.nodeStart(f.open);
    const first = this.text.charCodeAt(start);
    // An empty value, an anchor, an alias, a tag, an explicit key: not taken.
    if (f.kind === null || first === 0x26 || first === 0x2a || first === 0x21 || first === 0x3f) throw NOT_PLAIN;
    const children = f.children ?? [];
    const cells = this.cells;
    if ((f.kind === 'mapping' || f.kind === 'sequence') && depth > this.maxDepth) throw NOT_PLAIN;
    if (f.kind === 'mapping') {
      const value = f.result as Record<string, unknown>;
      let keys = 0;
      for (const key in value) if (Object.hasOwn(value, key)) keys++;
      if (children.length % 2 !== 0 || children.length !== 2 * keys) throw NOT_PLAIN;
      const at = cells.length;
      cells.push(MAPPING, start, 0, children.length / 2);
      for (let i = 0; i < children.length; i += 2) {
        const keyAt = cells.length;
        this.position(children[i]!, depth + 1);
        const key = children[i]!.result;
        if (cells[keyAt] !== SCALAR || typeof key !== 'string' || this.forbiddenKeys.has(key)) throw NOT_PLAIN;
        // The key's node becomes the entry's `key index, key start`.
        cells[keyAt] = this.keys.length;
        this.keys.push(key);
        this.position(children[i + 1]!, depth + 1);
      }
      cells[at + 2] = cells.length - at;
      return;
    }
    if (f.kind === 'sequence') {
      if (children.length !== (f.result as unknown[]).length) throw NOT_PLAIN;
      const at = cells.length;
      cells.push(SEQUENCE, start, 0, children.length);
      for (const c of children) this.position(c, depth + 1);
      cells[at + 2] = cells.length - at;
      return;
    }
    if (children.length > 0) throw NOT_PLAIN;
    if (first === 0x25 || first === 0x40 || first === 0x60) throw NOT_PLAIN; // a plain scalar may not start with % @ `
    // A quoted or plain scalar over several lines: js-yaml takes continuation lines that `yaml`
    // refuses as too little indented. Block scalars (| and >) are read alike.
    if (first !== 0x7c && first !== 0x3e) {
      const nl = this.text.indexOf('\n', start);
      if (nl !== -1 && nl < f.close && /\S/.test(this.text.slice(nl, f.close))) throw NOT_PLAIN;
    }
    cells.push(SCALAR, start);
  }

  /** Where the node that js-yaml opened at `open` starts: past spaces, line breaks and comments. */
  private nodeStart(open: number): number {
    const text = this.text;
    let p = open;
    for (;;) {
      const c = text.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d) p++;
      else if (c === 0x23 && (p === 0 || text.charCodeAt(p - 1) === 0x20 || text.charCodeAt(p - 1) === 0x0a || text.charCodeAt(p - 1) === 0x0d)) {
        const nl = text.indexOf('\n', p);
        if (nl < 0) return text.length;
        p = nl + 1;
      } else return p;
    }
  }
}

/** A plain scalar by the YAML 1.2 core schema, in the order and the forms of the `yaml` package. */
export function resolvePlain(s: string): unknown {
  if (s.length === 0) return null;
  const c = s.charCodeAt(0);
  // Most values start with a letter other than those of null/true/false/.inf: strings at once.
  if (!(c <= 0x39 || c === 0x6e || c === 0x4e || c === 0x74 || c === 0x54 || c === 0x66 || c === 0x46 || c === 0x7e)) return s;
  if (/^(?:~|[Nn]ull|NULL)$/.test(s)) return null;
  if (/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(s)) return s[0] === 't' || s[0] === 'T';
  if (/^0o[0-7]+$/.test(s)) return parseInt(s.substring(2), 8);
  if (/^[-+]?[0-9]+$/.test(s)) return parseInt(s, 10);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s.substring(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? -Infinity : Infinity;
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(s)) return parseFloat(s);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(s)) return parseFloat(s);
  return s;
}

/** Cell of item `index` (< n) of the sequence at `at`. */
function itemAt(positions: Positions, at: number, n: number, index: number): number {
  const cells = positions.cells;
  if (n < ITEM_TABLE_FROM) {
    let next = at + 4;
    for (let i = 0; i < index; i++) next += sizeAt(cells, next);
    return next;
  }
  let starts = positions.itemStarts?.get(at);
  if (starts === undefined) {
    starts = new Int32Array(n);
    for (let i = 0, next = at + 4; i < n; i++) {
      starts[i] = next;
      next += sizeAt(cells, next);
    }
    (positions.itemStarts ??= new Map()).set(at, starts);
  }
  return starts[index]!;
}

/**
 * Offset of the node a pointer names, by the rules of the `yaml` reader's locate (see
 * ManifestDocument.locate): a key's own offset for 'key', and the deepest node that exists for a
 * pointer that goes past what exists.
 */
export function findPosition(positions: Positions, root: number, pointer: Pointer, target: 'key' | 'value'): number {
  const { cells, keys } = positions;
  let at = root;
  let keyOffset: number | undefined;
  for (const segment of pointer) {
    const start = cells[at + 1]!;
    const kind = cells[at];
    if (kind === SCALAR) return start;
    const n = cells[at + 3]!;
    let next = -1;
    if (kind === MAPPING) {
      const key = String(segment);
      for (let i = 0, p = at + 4; i < n; i++) {
        if (keys[cells[p]!] === key) {
          keyOffset = cells[p + 1];
          next = p + 2;
          break;
        }
        p += 2 + sizeAt(cells, p + 2);
      }
    } else {
      const index = Number(segment);
      keyOffset = undefined;
      if (Number.isInteger(index) && index >= 0 && index < n) next = itemAt(positions, at, n, index);
    }
    if (next < 0) return start;
    at = next;
  }
  if (target === 'key' && keyOffset !== undefined) return keyOffset;
  return cells[at + 1]!;
}
