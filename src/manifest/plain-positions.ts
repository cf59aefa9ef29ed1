/**
 * Where a node of a file read fast (fast-yaml.ts: the plain shape, block mappings and sequences
 * of one-line scalars) starts, found from the lines the shape check met: the position the `yaml`
 * package gives the same node, without reading the file again with it. A resource's source
 * location is then a plain `{file, line, column}`, made as the resource is, and a file whose
 * positions are all found here is never read by `yaml`.
 *
 * Only what is certain is found here: a pointer into a flow collection or into a list on its
 * item's line (`- - x`), a quoted key, an empty item, or a pointer past what exists gives undefined, and
 * the caller asks `yaml` (parse-documents.ts). The differential test (test/unit/fast-yaml.test.ts)
 * holds every answer to the `yaml` package's, for every node and key of every fixture and of
 * thousands of generated manifests. Pure.
 */
import type { SourceLocation } from '../model/resources.js';
import type { Pointer } from './diagnostics.js';
import { keyEndAt, lineEnd, startsItem, type PlainLines } from './plain-shape.js';

/** What a pointer has reached: a block mapping, a block sequence, or a value it cannot go into. */
const MAP = 0;
const SEQ = 1;
const LEAF = 2;
/**
 * A list item whose content starts on its dash's line: a mapping if a key starts it, else a value
 * (a scalar, a flow collection, a list `- - x`), found when a pointer goes into it.
 */
const ITEM = 3;

/** A mapping with a quoted key: its keys are yaml's to read. */
const QUOTED = Symbol('a quoted key');

export class PlainPositions {
  /** The item lines of each block sequence, by the line of its first item. */
  private readonly items = new Map<number, number[]>();
  /** The keys of each block mapping (QUOTED: one is quoted), by the offset of its first entry. */
  private readonly keys = new Map<number, ReadonlyMap<string, number> | typeof QUOTED>();
  /**
   * The last walk, to resume from: the items of one list are mostly asked for one after
   * another, so a pointer mostly shares all but its last step with the one before. Per step:
   * what was reached, on which line, at which offset, the column of its entries or items, and
   * the key that led there (offset and line; -1 when an item did).
   */
  private readonly walked: { doc: number; pointer: Pointer; steps: number } = { doc: -1, pointer: [], steps: 0 };
  private readonly kinds: number[] = [];
  private readonly lines: number[] = [];
  private readonly offsets: number[] = [];
  private readonly columns: number[] = [];
  private readonly keyOffsets: number[] = [];
  private readonly keyLines: number[] = [];
  /**
   * The list the last pointer ended in an item of: its pointer and document, the lines its items
   * start on, and what finding one needs. The resolver locates a list's items one after another:
   * each is then found without a walk. Only the
   * item asked for is found: reads that go from one list to another and back cost one walk each,
   * never the whole list (a file can hold lists of thousands of items).
   */
  private list: { doc: number; pointer: Pointer; items: readonly number[]; column: number; limit: number } | undefined;

  constructor(
    private readonly file: string,
    private readonly text: string,
    private readonly table: PlainLines,
  ) {}

  /**
   * The location of the node at `pointer` in document `index` (of its key when `target` is
   * 'key' and the pointer ends in a mapping), as `yaml` has it; undefined when it is not certain here.
   */
  locate(index: number, pointer: Pointer, target: 'key' | 'value'): SourceLocation | undefined {
    // An item of the last list (no key leads to an item: 'key' and 'value' are one place).
    const list = this.list;
    const last = pointer.length - 1;
    const item = pointer[last];
    if (list !== undefined && list.doc === index && list.pointer.length === last && typeof item === 'number') {
      let s = 0;
      while (s < last && list.pointer[s] === pointer[s]) s++;
      if (s === last)
        return Number.isInteger(item) && item >= 0 && item < list.items.length
          ? this.itemLocation(list.items[item]!, list.column, list.limit)
          : undefined;
    }
    const step = this.walk(index, pointer);
    if (step < 0) return undefined;
    const useKey = target === 'key' && this.keyOffsets[step]! >= 0;
    return useKey
      ? this.locationAt(this.keyLines[step]!, this.keyOffsets[step]!)
      : this.locationAt(this.lines[step]!, this.offsets[step]!);
  }

  /** The location of `offset`, on (structural) line `line`. */
  private locationAt(line: number, offset: number): SourceLocation {
    const { content, indent, number } = this.table;
    return { file: this.file, line: number[line]!, column: offset - (content[line]! - indent[line]!) + 1 };
  }

  /** Walks `pointer` (resuming the last walk where they agree); the step reached, or -1. */
  private walk(index: number, pointer: Pointer): number {
    const { content, indent, docFirst } = this.table;
    const first = docFirst[index];
    if (first === undefined) return -1;
    const limit = docFirst[index + 1] ?? content.length;
    let s = 0;
    const last = this.walked;
    if (last.doc === index) {
      const common = Math.min(last.steps, pointer.length);
      while (s < common && last.pointer[s] === pointer[s]) s++;
    } else {
      // Step 0: the document's root mapping.
      this.set(0, MAP, first, content[first]!, indent[first]!, -1, -1);
    }
    last.doc = index;
    last.pointer = pointer;
    last.steps = s;
    const text = this.text;
    for (; s < pointer.length; s++) {
      let kind = this.kinds[s]!;
      let line = this.lines[s]!;
      let at = this.offsets[s]!;
      let column = this.columns[s]!;
      const segment = pointer[s]!;
      if (kind === ITEM) {
        // An item's content on its dash's line, gone into: a mapping when a key starts it.
        const keyEnd = keyEndAt(text, at, lineEnd(text, at));
        if (keyEnd <= at) return -1;
        kind = MAP;
        column = at - (content[line]! - indent[line]!);
      }
      if (kind === MAP) {
        const key = typeof segment === 'string' ? segment : String(segment);
        const keys = this.keysOf(line, at, column, limit);
        const entryLine = keys?.get(key);
        if (entryLine === undefined) return -1;
        if (entryLine !== line) {
          line = entryLine;
          at = content[entryLine]!;
        }
        const keyOffset = at;
        const keyLine = line;
        let v = text.indexOf(':', at + key.length) + 1;
        const end = lineEnd(text, v);
        while (v < end && text.charCodeAt(v) === 0x20) v++;
        if (v < end && text.charCodeAt(v) !== 0x23) {
          this.set(s + 1, LEAF, line, v, column, keyOffset, keyLine);
          continue;
        }
        // The value is on the lines below: deeper than its key, or a list at the key's column.
        const keyColumn = at - (content[line]! - indent[line]!);
        const below = line + 1;
        if (
          below < limit &&
          (indent[below]! > keyColumn || (indent[below] === keyColumn && startsItem(this.text, content[below]!)))
        ) {
          this.set(
            s + 1,
            startsItem(this.text, content[below]!) ? SEQ : MAP,
            below,
            content[below]!,
            indent[below]!,
            keyOffset,
            keyLine,
          );
        } else {
          // An empty value (`description:`): yaml's node has no width and points at its key.
          this.set(s + 1, LEAF, line, at, column, keyOffset, keyLine);
        }
      } else if (kind === SEQ) {
        const items = this.itemsOf(line, column, limit);
        if (s === pointer.length - 1) this.list = { doc: index, pointer: pointer.slice(0, s), items, column, limit };
        const item = typeof segment === 'number' ? segment : Number(segment);
        if (!Number.isInteger(item) || item < 0 || item >= items.length) return -1;
        line = items[item]!;
        const start = this.itemStart(line, column, limit);
        if (start < 0) return -1;
        if (start !== content[line + 1]) this.set(s + 1, ITEM, line, start, column, -1, -1);
        else this.set(s + 1, startsItem(text, start) ? SEQ : MAP, line + 1, start, indent[line + 1]!, -1, -1);
      } else {
        return -1; // into a scalar, a flow collection or an empty value: yaml's to say where it stops
      }
      last.steps = s + 1;
    }
    return pointer.length;
  }

  private set(
    step: number,
    kind: number,
    line: number,
    at: number,
    column: number,
    keyOffset: number,
    keyLine: number,
  ): void {
    this.kinds[step] = kind;
    this.lines[step] = line;
    this.offsets[step] = at;
    this.columns[step] = column;
    this.keyOffsets[step] = keyOffset;
    this.keyLines[step] = keyLine;
  }

  /**
   * Where the node of the item on `line` of a list at `column` starts: on its dash's line, or (a
   * "-" alone) the deeper line below — then exactly that line's first character, which is how a
   * caller tells the two apart; -1 for an empty item (yaml's to place).
   */
  private itemStart(line: number, column: number, limit: number): number {
    const { content, indent } = this.table;
    let p = content[line]! + 1;
    const end = lineEnd(this.text, p);
    while (p < end && this.text.charCodeAt(p) === 0x20) p++;
    if (p < end && this.text.charCodeAt(p) !== 0x23) return p;
    const below = line + 1;
    return below < limit && indent[below]! > column ? content[below]! : -1;
  }

  /** Where the item on `line` is, as the walk finds it (see itemStart). */
  private itemLocation(line: number, column: number, limit: number): SourceLocation | undefined {
    const start = this.itemStart(line, column, limit);
    if (start < 0) return undefined;
    return this.locationAt(start === this.table.content[line + 1] ? line + 1 : line, start);
  }

  /**
   * The keys of the mapping whose first entry is at `at` on `line`, each with its entry's line (the
   * first, for a key written twice, as yaml finds it); found once per mapping, so that a mapping
   * of thousands of keys (each one a diagnostic) is not read once per key. Undefined when a key
   * is quoted: its value is yaml's to read.
   */
  private keysOf(line: number, at: number, column: number, limit: number): ReadonlyMap<string, number> | undefined {
    const known = this.keys.get(at);
    if (known !== undefined) return known === QUOTED ? undefined : known;
    const { content, indent } = this.table;
    const text = this.text;
    const keys = new Map<string, number>();
    let quoted = false;
    for (let k = line, p = at; ; p = content[k]!) {
      const c = text.charCodeAt(p);
      if (c === 0x22 || c === 0x27) {
        quoted = true;
        break;
      }
      // A line at the column is an entry, or an item of a list at its key's column (no entry).
      if (!startsItem(this.text, p)) {
        const keyEnd = keyEndAt(text, p, lineEnd(text, p));
        if (keyEnd > p) {
          const key = text.slice(p, keyEnd);
          if (!keys.has(key)) keys.set(key, k);
        }
      }
      k++;
      while (k < limit && indent[k]! > column) k++;
      if (k >= limit || indent[k]! < column) break;
    }
    this.keys.set(at, quoted ? QUOTED : keys);
    return quoted ? undefined : keys;
  }

  /** The lines of the items of the block sequence whose first item is on `line` (found once). */
  private itemsOf(line: number, column: number, limit: number): number[] {
    let items = this.items.get(line);
    if (items === undefined) {
      items = [];
      const { content, indent } = this.table;
      // Deeper lines are what an item holds; a line at the column that is no item ends the list.
      for (let k = line; k < limit && indent[k]! >= column; k++) {
        if (indent[k] !== column) continue;
        if (!startsItem(this.text, content[k]!)) break;
        items.push(k);
      }
      this.items.set(line, items);
    }
    return items;
  }
}
