/**
 * Edits of one manifest file as edits of its text (DESIGN.md §4 "Drift both ways"): the `yaml`
 * package parses the file (its Document API, with every node's source range), and each change
 * is a splice of the bytes that node spans — so every byte no change touches (comments, key
 * order, quoting, flow or block style, blank lines, anchors) stays as it was. A file is never
 * re-dumped: only a new item or pair is printed, by `yaml`, and indented to where it goes.
 */
import {
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  parseDocument,
  visit,
} from 'yaml';
import type { Node, Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';
import { UserError } from '../model/errors.js';

/** One manifest file, parsed, and the splices made to it so far. */
export interface EditableFile {
  file: string;
  text: string;
  docs: Document.Parsed[];
  lines: LineCounter;
  edits: Splice[];
}

interface Splice {
  start: number;
  end: number;
  text: string;
}

export function parseEditable(file: string, text: string): EditableFile {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, keepSourceTokens: true });
  const list = Array.isArray(docs) ? docs : [];
  const broken = list.flatMap((d) => d.errors);
  if (broken.length > 0 || list.length === 0) {
    throw new UserError(
      'ADOPT_PARSE',
      `cannot adopt: ${file} does not parse as YAML: ${broken[0]?.message ?? 'unknown error'}; nothing was written`,
    );
  }
  return { file, text, docs: list, lines, edits: [] };
}

/**
 * The text with every splice made, later ones first. A removal's bytes go whole: a splice inside
 * them (an item of a group deleted by hand, itself removed) is dropped, as is one that overlaps
 * a splice already made.
 */
export function editedText(f: EditableFile): string {
  const removals = f.edits.filter((e) => e.text === '' && e.end > e.start);
  const kept = f.edits.filter((e) => !removals.some((r) => r !== e && encloses(r, e)));
  const sorted = kept.sort((a, b) => b.start - a.start || b.end - a.end);
  let out = f.text;
  let floor = Infinity;
  for (const e of sorted) {
    if (e.end > floor) continue; // overlaps a range already replaced
    out = out.slice(0, e.start) + e.text + out.slice(e.end);
    floor = e.start;
  }
  return out;
}

/** Whether `inner` lies within `outer`'s bytes: an insertion at either end lies outside (it goes before or after them). */
function encloses(outer: Splice, inner: Splice): boolean {
  if (inner.start < outer.start || inner.end > outer.end) return false;
  if (inner.start === inner.end) return inner.start > outer.start && inner.start < outer.end;
  return inner.start !== outer.start || inner.end !== outer.end || inner.text !== '';
}

export function splice(f: EditableFile, start: number, end: number, text: string): void {
  f.edits.push({ start, end, text });
}

export function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** The offset after the newline that ends the line `pos` is on (or is just past). */
export function lineEndAfter(text: string, pos: number): number {
  if (pos > 0 && text[pos - 1] === '\n') return pos;
  const nl = text.indexOf('\n', pos);
  return nl < 0 ? text.length : nl + 1;
}

export function columnOf(text: string, pos: number): number {
  return pos - lineStart(text, pos);
}

/** Where a node starts, 1-based, as the manifest loader reports a resource's source. */
export function positionKey(f: EditableFile, node: Node): string {
  const { line, col } = f.lines.linePos(node.range![0]);
  return `${line}:${col}`;
}

// ---- Scalars --------------------------------------------------------------------------------

const PLAIN_SAFE = /^[A-Za-z0-9_./@+][A-Za-z0-9_./@+:~ -]*$/;
const PLAIN_AMBIGUOUS = /^(true|false|null|yes|no|on|off|y|n|~|[-+]?(\.?[0-9].*)|0x.*|0o.*|\.inf|\.nan)$/i;

/** A string as a plain scalar when it reads back as that string in block and flow context, else double-quoted. */
export function scalarText(value: unknown, block = false): string {
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  const s = String(value);
  // In block context a plain scalar may hold `,[]{}` after its first character (never ` #`).
  const shape = block ? PLAIN_SAFE.test(s.replace(/(?<=.)[,[\]{}]/g, '_')) && !s.includes(' #') : PLAIN_SAFE.test(s);
  const plain = shape && !s.endsWith(' ') && !s.includes(': ') && !s.endsWith(':') && !PLAIN_AMBIGUOUS.test(s);
  return plain ? s : JSON.stringify(s);
}

/** A new value for a scalar, written in the scalar's own style (its quotes, or its block literal). */
export function replaceScalar(f: EditableFile, node: Scalar, value: unknown, keyColumn: number): void {
  const [start, end] = node.range!;
  if (
    typeof value === 'string' &&
    (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED' || value.includes('\n'))
  ) {
    splice(f, start, end, blockLiteral(f.text.slice(start, end), value, keyColumn));
    return;
  }
  if (typeof value === 'string' && node.type === 'QUOTE_DOUBLE') return splice(f, start, end, JSON.stringify(value));
  if (typeof value === 'string' && node.type === 'QUOTE_SINGLE')
    return splice(f, start, end, `'${value.replaceAll("'", "''")}'`);
  splice(f, start, end, scalarText(value, true));
}

function blockLiteral(old: string, value: string, keyColumn: number): string {
  const oldIndent = /\n( +)\S/.exec(old)?.[1]?.length;
  const indent = ' '.repeat(oldIndent ?? keyColumn + 2);
  const chomp = value.endsWith('\n') ? (value.endsWith('\n\n') ? '+' : '') : '-';
  const body = value
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => (l === '' ? '' : indent + l));
  // The old range ends after the block's last newline when it had one: the new text does too.
  const tail = old.endsWith('\n') ? '\n' : '';
  return `|${chomp}\n${body.join('\n')}${tail}`;
}

// ---- Printing new nodes ---------------------------------------------------------------------

/** Text `yaml` prints for a node built in `doc`, each line indented by `indent` spaces (empty lines left empty). */
export function printIndented(f: EditableFile, doc: Document, node: Node, indent: number, indentSeq: boolean): string {
  doc.contents = node;
  const printed = restyleFlow(doc.toString({ lineWidth: 0, indentSeq }), flowSpacing(f));
  const pad = ' '.repeat(indent);
  return printed
    .split('\n')
    .map((l, i, all) => (l === '' || (i === all.length - 1 && l === '') ? l : pad + l))
    .join('\n');
}

/** Whether the file writes flow collections `{ a: 1 }` (yaml's way, and the default) or `{a: 1}`: as its first non-empty one does. */
export function flowSpacing(f: EditableFile): boolean {
  let spaced: boolean | undefined;
  for (const doc of f.docs) {
    visit(doc, (_key, node) => {
      if ((isMap(node) || isSeq(node)) && node.flow && node.items.length > 0 && node.range) {
        spaced = isSpacedFlow(f, node);
        return visit.BREAK;
      }
      return undefined;
    });
    if (spaced !== undefined) return spaced;
  }
  return true;
}

/** Printed text with its flow collections in the file's spacing (only their ranges rewritten). */
function restyleFlow(printed: string, spaced: boolean): string {
  if (spaced) return printed;
  const ranges: [number, number, unknown][] = [];
  visit(parseDocument(printed), (_key, node) => {
    if ((isMap(node) || isSeq(node)) && node.flow && node.range) {
      ranges.push([node.range[0], node.range[1], node.toJSON()]);
      return visit.SKIP;
    }
    return undefined;
  });
  let out = printed;
  for (const [start, end, value] of ranges.sort((a, b) => b[0] - a[0]))
    out = out.slice(0, start) + flowValue(value, false) + out.slice(end);
  return out;
}

/** A flow collection's items as text, in the spacing the file used (`{a: 1}` or `{ a: 1 }`). */
export function flowText(items: readonly string[], open: '[' | '{', spaced: boolean): string {
  const close = open === '[' ? ']' : '}';
  if (items.length === 0) return `${open}${close}`;
  return spaced ? `${open} ${items.join(', ')} ${close}` : `${open}${items.join(', ')}${close}`;
}

/** A plain value as flow text (a scalar, or a flow collection of them). */
export function flowValue(value: unknown, spaced: boolean): string {
  if (Array.isArray(value))
    return flowText(
      value.map((v) => flowValue(v, spaced)),
      '[',
      spaced,
    );
  if (value !== null && typeof value === 'object') {
    return flowText(
      Object.entries(value).map(([k, v]) => `${scalarText(k)}: ${flowValue(v, spaced)}`),
      '{',
      spaced,
    );
  }
  return scalarText(value);
}

export function isSpacedFlow(f: EditableFile, node: YAMLMap | YAMLSeq): boolean {
  const [start] = node.range!;
  return /^[[{] /.test(f.text.slice(start, start + 2)) || f.text[start + 1] === '\n';
}

// ---- Finding pairs --------------------------------------------------------------------------

export function pairOf(map: YAMLMap, key: string): Pair<Node, Node | null> | undefined {
  return map.items.find((p) => isScalar(p.key) && p.key.value === key) as Pair<Node, Node | null> | undefined;
}

export { isMap, isPair, isScalar, isSeq };
