/**
 * Where a node of a file read with the `yaml` package starts: the offset of the node a pointer
 * names in a parsed document (of its key when asked for the key), or of the deepest node that
 * exists on the way. What parse-documents.ts makes locations of, for files the fast reader does
 * not take, and for the keys and scalars of those it does (collection-starts.ts locates only
 * their mappings and lists). Pure.
 */
import type { Document, Pair } from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';
import type { Pointer } from './diagnostics.js';

/**
 * The `yaml` package reads what the fast reader (fast-yaml.ts) does not take: files with a
 * problem, and the rarer YAML forms. Loaded on first use, so a run whose manifests are all plain
 * never loads it (parse-documents.ts reads with it too).
 */
export const yaml = lazyRequire<typeof import('yaml')>('yaml');

/** Offset of the node a pointer names (see ManifestDocument.locate). */
export function findOffset(doc: Document, pointer: Pointer, target: 'key' | 'value'): number {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yaml();
  let node: unknown = doc.contents;
  let keyOffset: number | undefined;
  let lastOffset = doc.contents?.range?.[0] ?? 0;
  for (const segment of pointer) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isNode(node) && node.range) lastOffset = node.range[0];
    if (isMap(node)) {
      const pair = pairsOf(node, isPair, isScalar).get(String(segment));
      if (!pair) return lastOffset;
      keyOffset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      node = pair.value;
    } else if (isSeq(node)) {
      node = node.items[Number(segment)];
      keyOffset = undefined;
      if (node === undefined) return lastOffset;
    } else {
      return lastOffset;
    }
  }
  if (target === 'key' && keyOffset !== undefined) return keyOffset;
  if (isAlias(node)) return node.range?.[0] ?? keyOffset ?? lastOffset;
  // An empty value (`description:`) has a zero-width range at the end of its line: point at the key.
  if (isScalar(node) && node.range && node.range[0] === node.range[1] && keyOffset !== undefined) return keyOffset;
  const own = isNode(node) ? node.range?.[0] : undefined;
  return own ?? keyOffset ?? lastOffset;
}

/**
 * A mapping's pairs by key (the first pair of a key written twice), read once per mapping: a
 * mapping of thousands of keys, each one a diagnostic, is not searched from its start for each.
 */
const PAIRS = new WeakMap<object, Map<string, Pair>>();
function pairsOf(
  map: { items: unknown[] },
  isPair: (n: unknown) => n is Pair,
  isScalar: (n: unknown) => n is { value: unknown },
): Map<string, Pair> {
  let pairs = PAIRS.get(map);
  if (pairs === undefined) {
    pairs = new Map();
    for (const item of map.items) {
      if (isPair(item) && isScalar(item.key)) {
        const key = String(item.key.value);
        if (!pairs.has(key)) pairs.set(key, item);
      }
    }
    PAIRS.set(map, pairs);
  }
  return pairs;
}

function isNode(node: unknown): node is { range?: [number, number, number] | null } {
  return typeof node === 'object' && node !== null && 'range' in node;
}
