/**
 * The first, fast read of a manifest file: js-yaml's event parser, with every node's source
 * position kept. It takes only the plain YAML that manifests are made of — block and flow
 * mappings and sequences, plain, quoted and block scalars, comments, several documents — and
 * gives up (undefined) on anything else: an error, an empty value or document, anchors, aliases,
 * tags, directives, tabs, a byte-order mark, keys that are not strings, duplicate or
 * prototype-altering keys. The caller then reads the file with the `yaml` package, whose
 * diagnostics explain what is wrong. What it returns is exactly what that slower read would give
 * (the same values, the same positions): the differential test (test/unit/fast-yaml.test.ts)
 * holds the two readers to it over every fixture and thousands of generated manifests.
 *
 * Plain scalars resolve by the YAML 1.2 core schema as the `yaml` package spells it.
 */
import { parseEvents, getScalarValue, EVENT_ID, SCALAR_STYLE, type Event, type ScalarEvent } from 'js-yaml';
import type { Pointer } from './diagnostics.js';

/** Where a node starts, and where its children do. */
export type PositionNode =
  | { readonly start: number; readonly keys: readonly string[]; readonly keyStarts: readonly number[]; readonly values: readonly PositionNode[] }
  | { readonly start: number; readonly items: readonly PositionNode[] }
  | { readonly start: number };

export interface FastDocument {
  value: Record<string, unknown>;
  root: PositionNode;
}

/** Thrown inside the builder to give up on a file; never escapes this module. */
/**
 * Lines js-yaml reads otherwise than `yaml`: a directive (`%…`, even a mistyped one), a document
 * end marker (`...`: `yaml` counts an empty document between two of them), an indented `---`,
 * and a `---` with something after it on its line.
 */
const UNTAKEN = /^(?:[ ]*%|[ ]*\.\.\.(?:[ \r]|$)|[ ]*---[ ]|[ ]+---(?:\r|$))/m;
/** A carriage return that does not end a line (CRLF does): `yaml` does not take it as a line break. */
const LONE_CR = /\r(?!\n)/;

class NotPlain {}
const NOT_PLAIN = new NotPlain();

/** Reads a file's documents, or undefined when the file is not plain manifest YAML (see above). */
export function readPlainYaml(text: string, forbiddenKeys: ReadonlySet<string>): FastDocument[] | undefined {
  if (text.charCodeAt(0) === 0xfeff || text.includes('\t') || UNTAKEN.test(text) || LONE_CR.test(text)) return undefined;
  let events: Event[];
  try {
    events = parseEvents(text, {});
  } catch {
    return undefined;
  }
  try {
    return new Builder(text, events, forbiddenKeys).documents();
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    throw err;
  }
}

class Builder {
  private i = 0;
  constructor(
    private readonly text: string,
    private readonly events: Event[],
    private readonly forbiddenKeys: ReadonlySet<string>,
  ) {}

  documents(): FastDocument[] {
    const docs: FastDocument[] = [];
    const events = this.events;
    while (this.i < events.length) {
      const e = events[this.i++]!;
      if (e.type !== EVENT_ID.DOCUMENT || e.directives.length > 0) throw NOT_PLAIN;
      if (events[this.i]?.type !== EVENT_ID.MAPPING) throw NOT_PLAIN; // an empty document, or not a manifest
      const value = this.node();
      if (events[this.i++]?.type !== EVENT_ID.POP) throw NOT_PLAIN;
      docs.push({ value: value as Record<string, unknown>, root: this.pos });
    }
    if (docs.length === 0) throw NOT_PLAIN;
    return docs;
  }

  /** Where the node node() read last starts (kept aside: no wrapper object per node). */
  private pos: PositionNode = { start: 0 };

  /** Reads the node at the current event; its positions are left in `pos`. */
  private node(): unknown {
    const e = this.events[this.i++]!;
    switch (e.type) {
      case EVENT_ID.MAPPING: {
        if (e.anchorStart !== -1 || e.tagStart !== -1) throw NOT_PLAIN;
        const value: Record<string, unknown> = {};
        const keys: string[] = [];
        const keyStarts: number[] = [];
        const values: PositionNode[] = [];
        while (this.events[this.i]?.type !== EVENT_ID.POP) {
          const k = this.events[this.i++]!;
          if (k.type !== EVENT_ID.SCALAR) throw NOT_PLAIN;
          const key = this.scalar(k);
          if (typeof key !== 'string' || this.forbiddenKeys.has(key) || Object.hasOwn(value, key)) throw NOT_PLAIN;
          value[key] = this.node();
          keys.push(key);
          keyStarts.push(this.start(k));
          values.push(this.pos);
        }
        this.i++;
        this.pos = { start: e.start, keys, keyStarts, values };
        return value;
      }
      case EVENT_ID.SEQUENCE: {
        if (e.anchorStart !== -1 || e.tagStart !== -1) throw NOT_PLAIN;
        const value: unknown[] = [];
        const items: PositionNode[] = [];
        while (this.events[this.i]?.type !== EVENT_ID.POP) {
          value.push(this.node());
          items.push(this.pos);
        }
        this.i++;
        this.pos = { start: e.start, items };
        return value;
      }
      case EVENT_ID.SCALAR:
        this.pos = { start: this.start(e) };
        return this.scalar(e);
      default:
        throw NOT_PLAIN; // an alias, or events out of order
    }
  }

  private scalar(e: ScalarEvent): unknown {
    if (e.valueStart < 0 || e.anchorStart !== -1 || e.tagStart !== -1) throw NOT_PLAIN;
    if (e.style !== SCALAR_STYLE.PLAIN) return getScalarValue(this.text, e);
    // A plain scalar may not start with a reserved indicator; js-yaml lets these through.
    const first = this.text.charCodeAt(e.valueStart);
    if (first === 0x25 || first === 0x40 || first === 0x60) throw NOT_PLAIN; // % @ `
    return resolvePlain(getScalarValue(this.text, e));
  }

  /** Where the `yaml` package starts the scalar: at its opening quote, or its block header. */
  private start(e: ScalarEvent): number {
    switch (e.style) {
      case SCALAR_STYLE.SINGLE_QUOTED:
      case SCALAR_STYLE.DOUBLE_QUOTED:
        return e.valueStart - 1;
      case SCALAR_STYLE.LITERAL_BLOCK:
      case SCALAR_STYLE.FOLDED_BLOCK:
        return blockHeaderStart(this.text, e.valueStart);
      default:
        return e.valueStart;
    }
  }
}

const BLOCK_HEADER_REST = /^[|>][1-9+-]{0,2}[ ]*(?:#.*)?\r?$/;

/** The `|` or `>` of a block scalar whose content starts on the line at `contentStart`. */
function blockHeaderStart(text: string, contentStart: number): number {
  const end = text.lastIndexOf('\n', contentStart - 1);
  if (end < 0) throw NOT_PLAIN;
  const lineStart = text.lastIndexOf('\n', end - 1) + 1;
  for (let p = lineStart; p < end; p++) {
    const c = text[p];
    if ((c === '|' || c === '>') && (p === lineStart || text[p - 1] === ' ') && BLOCK_HEADER_REST.test(text.slice(p, end))) return p;
  }
  throw NOT_PLAIN;
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

/**
 * Offset of the node a pointer names, by the rules of the `yaml` reader's locate (see
 * ManifestDocument.locate): a key's own offset for 'key', and the deepest node that exists for a
 * pointer that goes past what exists.
 */
export function findPosition(root: PositionNode, pointer: Pointer, target: 'key' | 'value'): number {
  let node: PositionNode | undefined = root;
  let keyOffset: number | undefined;
  let lastOffset = root.start;
  for (const segment of pointer) {
    lastOffset = node.start;
    if ('keys' in node) {
      const at = node.keys.indexOf(String(segment));
      if (at < 0) return lastOffset;
      keyOffset = node.keyStarts[at];
      node = node.values[at]!;
    } else if ('items' in node) {
      node = node.items[Number(segment)];
      keyOffset = undefined;
      if (node === undefined) return lastOffset;
    } else {
      return lastOffset;
    }
  }
  if (target === 'key' && keyOffset !== undefined) return keyOffset;
  return node.start;
}
