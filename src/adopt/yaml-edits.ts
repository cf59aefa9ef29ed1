/**
 * Structural edits of a parsed manifest, each made as a splice of the file's text
 * (yaml-text.ts): a value brought to what live holds, an item appended to a list or removed from
 * it, a pair added or removed. Only the bytes of the node a change is about are rewritten.
 */
import { Document, type Node, type Pair, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import {
  columnOf,
  flowText,
  flowValue,
  isMap,
  isScalar,
  isSeq,
  isSpacedFlow,
  lineEndAfter,
  lineStart,
  pairOf,
  printIndented,
  replaceScalar,
  scalarText,
  splice,
  type EditableFile,
} from './yaml-text.js';

/** Two scalar values are one when they read the same, or are the same instant (DESIGN.md §4 "Timestamps"). */
function sameScalar(a: unknown, b: unknown): boolean {
  if (a === b || String(a) === String(b)) return true;
  const instant = (v: unknown): number => (typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? Date.parse(v) : NaN);
  return !Number.isNaN(instant(a)) && instant(a) === instant(b);
}

function sameValue(node: unknown, live: unknown): boolean {
  if (Array.isArray(live)) {
    if (!Array.isArray(node) || node.length !== live.length) return false;
    return live.every((v) => (node as unknown[]).some((n) => sameValue(n, v)));
  }
  if (live !== null && typeof live === 'object') {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return false;
    const a = node as Record<string, unknown>;
    const b = live as Record<string, unknown>;
    return (
      Object.keys(a).length === Object.keys(b).length && Object.keys(b).every((k) => k in a && sameValue(a[k], b[k]))
    );
  }
  return sameScalar(node, live);
}

/** How lists sit under their key in this file: indented by two (`key:\n  - a`) or not. */
export function seqIndent(f: EditableFile): number {
  for (const doc of f.docs) {
    let found: number | undefined;
    const walk = (node: unknown, keyColumn: number): void => {
      if (found !== undefined) return;
      if (isMap(node))
        for (const p of node.items) walk(p.value, isScalar(p.key) ? columnOf(f.text, p.key.range![0]) : keyColumn);
      else if (isSeq(node)) {
        if (!node.flow && node.range) found = columnOf(f.text, node.range[0]) - keyColumn;
        for (const i of node.items) walk(i, keyColumn);
      }
    };
    walk(doc.contents, 0);
    if (found !== undefined && found >= 0) return found;
  }
  return 2;
}

/**
 * Brings the value of `pair` to `live`: a scalar rewritten in its own style, a block map key by
 * key, a block list item by item, a flow collection as one line in the file's spacing.
 */
export function reconcile(f: EditableFile, pair: Pair<Node, Node | null>, live: unknown): void {
  const keyColumn = columnOf(f.text, (pair.key as Node).range![0]);
  const node = pair.value;
  if (node === null || node.range === undefined || node.range === null)
    return replacePairValue(f, pair, live, keyColumn);
  if (sameValue(node.toJSON(), live)) return;
  if (isScalar(node) && (live === null || typeof live !== 'object'))
    return replaceScalar(f, node as Scalar, live, keyColumn);
  if (isMap(node) && live !== null && typeof live === 'object' && !Array.isArray(live)) {
    if (node.flow)
      return splice(
        f,
        node.range[0],
        node.range[1],
        flowValue(ordered(node, live as Record<string, unknown>), isSpacedFlow(f, node)),
      );
    return reconcileMap(f, node, live as Record<string, unknown>);
  }
  if (isSeq(node) && Array.isArray(live)) return reconcileSeq(f, node, live);
  replacePairValue(f, pair, live, keyColumn);
}

/** Live's members in the order the manifest wrote them, new ones last. */
function ordered(node: YAMLMap, live: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of node.items) {
    const k = isScalar(p.key) ? String(p.key.value) : '';
    if (k in live) out[k] = live[k];
  }
  return Object.assign(out, live);
}

export function reconcileMap(f: EditableFile, map: YAMLMap, live: Record<string, unknown>): void {
  for (const p of map.items) {
    const key = isScalar(p.key) ? String(p.key.value) : undefined;
    if (key === undefined) continue;
    if (!(key in live)) removePair(f, map, p as Pair<Node, Node | null>);
    else reconcile(f, p as Pair<Node, Node | null>, live[key]);
  }
  for (const [key, value] of Object.entries(live)) if (!pairOf(map, key)) insertPair(f, map, key, plainNode(value));
}

function reconcileSeq(f: EditableFile, seq: YAMLSeq, live: unknown[]): void {
  const kept = seq.items.filter((i) => live.some((v) => sameValue((i as Node).toJSON(), v)));
  const added = live.filter((v) => !seq.items.some((i) => sameValue((i as Node).toJSON(), v)));
  if (seq.flow) {
    const texts = kept
      .map((i) => f.text.slice((i as Node).range![0], (i as Node).range![1]))
      .concat(added.map((v) => flowValue(v, false)));
    return splice(f, seq.range![0], seq.range![1], flowText(texts, '[', isSpacedFlow(f, seq)));
  }
  for (const i of seq.items) if (!kept.includes(i)) removeBlockItem(f, i as Node);
  appendItems(f, seq, added.map(plainNode));
}

function replacePairValue(f: EditableFile, pair: Pair<Node, Node | null>, live: unknown, keyColumn: number): void {
  const keyEnd = (pair.key as Node).range![1];
  const colon = f.text.indexOf(':', keyEnd);
  const end = pair.value?.range ? pair.value.range[1] : colon + 1;
  const text = live !== null && typeof live === 'object' ? flowValue(live, false) : scalarText(live);
  void keyColumn;
  splice(f, colon + 1, end, ` ${text}`);
}

/** A node for a plain value, printed by `yaml` (collections of scalars in flow style). */
export function plainNode(value: unknown): Node {
  const node = new Document().createNode(value) as Node;
  if (isMap(node) || isSeq(node)) node.flow = true;
  return node;
}

/** A pair of a flow map as the file wrote it. */
function pairText(f: EditableFile, p: Pair<Node, Node | null>): string {
  return f.text.slice(p.key.range![0], p.value?.range?.[1] ?? p.key.range![1]);
}

/** Removes `key: value` from a block map, its lines whole (a flow map is written again without it). */
export function removePair(f: EditableFile, map: YAMLMap, pair: Pair<Node, Node | null>): void {
  if (map.flow) {
    const rest = map.items.filter((p) => p !== pair).map((p) => pairText(f, p as Pair<Node, Node | null>));
    return splice(f, map.range![0], map.range![1], flowText(rest, '{', isSpacedFlow(f, map)));
  }
  const start = lineStart(f.text, (pair.key as Node).range![0]);
  const end = lineEndAfter(f.text, pair.value?.range?.[1] ?? (pair.key as Node).range![1]);
  splice(f, start, end, '');
}

/** Removes one item of a block list, its lines whole (the `- ` line through the item's last line, trailing comment included). */
export function removeBlockItem(f: EditableFile, item: Node): void {
  splice(f, lineStart(f.text, item.range![0]), lineEndAfter(f.text, item.range![1]), '');
}

/** Removes items of a list: the pair that holds it when none is left, else the items (a flow list written again without them). */
export function removeItems(
  f: EditableFile,
  holder: { map: YAMLMap; pair: Pair<Node, Node | null> },
  seq: YAMLSeq,
  items: readonly Node[],
): void {
  const left = seq.items.filter((i) => !items.includes(i as Node));
  if (left.length === 0) return removePair(f, holder.map, holder.pair);
  if (seq.flow) {
    const texts = left.map((i) => f.text.slice((i as Node).range![0], (i as Node).range![1]));
    return splice(f, seq.range![0], seq.range![1], flowText(texts, '[', isSpacedFlow(f, seq)));
  }
  for (const i of items) removeBlockItem(f, i);
}

/** Appends items to a list: printed at the column of its dashes (a flow list written again with them). */
export function appendItems(f: EditableFile, seq: YAMLSeq, items: readonly Node[]): void {
  if (items.length === 0) return;
  if (seq.flow) {
    const kept = seq.items.map((i) => f.text.slice((i as Node).range![0], (i as Node).range![1]));
    const texts = kept.concat(items.map((n) => flowValue(n.toJSON(), isSpacedFlow(f, seq))));
    return splice(f, seq.range![0], seq.range![1], flowText(texts, '[', isSpacedFlow(f, seq)));
  }
  const column = columnOf(f.text, seq.range![0]);
  const last = seq.items.at(-1) as Node;
  const at = lineEndAfter(f.text, last.range![1]);
  const doc = new Document();
  const holder = doc.createNode([]) as YAMLSeq;
  holder.items.push(...items);
  const printed = printIndented(f, doc, holder, column, true);
  splice(f, at, at, (f.text[at - 1] === '\n' || at === 0 ? '' : '\n') + printed);
}

/**
 * Adds `key: value` to a block map at its keys' column: before its child `groups` (where the
 * export puts lists), else after its last pair. A flow map is written again with it.
 */
export function insertPair(f: EditableFile, map: YAMLMap, key: string, value: Node): void {
  if (map.flow) {
    const texts = map.items.map((p) => pairText(f, p as Pair<Node, Node | null>));
    texts.push(`${scalarText(key)}: ${flowValue(value.toJSON(), isSpacedFlow(f, map))}`);
    return splice(f, map.range![0], map.range![1], flowText(texts, '{', isSpacedFlow(f, map)));
  }
  const first = map.items[0]?.key as Node | undefined;
  const column = first ? columnOf(f.text, first.range![0]) : columnOf(f.text, map.range![0]);
  const groups = key === 'groups' ? undefined : pairOf(map, 'groups');
  let at: number;
  if (groups) {
    at = lineStart(f.text, (groups.key as Node).range![0]);
    // The comment lines just above `groups:` are about it: the new pair goes above them.
    for (
      let prev = lineStart(f.text, at - 1);
      at > 0 && /^\s*#/.test(f.text.slice(prev, at));
      prev = lineStart(f.text, prev - 1)
    )
      at = prev;
  } else {
    const last = map.items.at(-1);
    at = lineEndAfter(f.text, (last!.value as Node | null)?.range?.[1] ?? (last!.key as Node).range![1]);
  }
  const doc = new Document();
  const holder = doc.createNode({}) as YAMLMap;
  holder.set(key, value);
  const printed = printIndented(f, doc, holder, column, seqIndent(f) > 0);
  splice(f, at, at, (f.text[at - 1] === '\n' || at === 0 ? '' : '\n') + printed);
}
