/**
 * Where things are in the parsed manifests: every map that describes a group (a group may be
 * described in several files), and every node by the position the manifest loader gives a
 * declared resource (`source`: the line and column its item starts at).
 */
import type { Node, Pair, YAMLMap, YAMLSeq } from 'yaml';
import { joinPath } from '../model/address.js';
import { isMap, isScalar, isSeq, pairOf, positionKey, type EditableFile } from './yaml-text.js';

/** A node and what holds it: a list (with the pair and map that hold the list), or a pair of a map. */
export interface Site {
  file: EditableFile;
  node: Node;
  /** The list the node is an item of. */
  seq?: YAMLSeq;
  /** The pair holding the node (when it is a pair's value) or the list (when it is an item). */
  pair?: Pair<Node, Node | null>;
  /** The map holding `pair`. */
  map?: YAMLMap;
}

export interface ManifestIndex {
  /** Group path → the maps describing it, file by file, in file order. */
  groups: Map<string, Site[]>;
  /** `file:line:column` → the node that starts there. */
  at: Map<string, Site>;
}

export function indexManifests(files: readonly EditableFile[]): ManifestIndex {
  const index: ManifestIndex = { groups: new Map(), at: new Map() };
  for (const f of files) {
    for (const doc of f.docs) {
      walkNodes(f, doc.contents as Node | null, {}, index);
      const root = doc.contents;
      if (!isMap(root)) continue;
      const orgPair = pairOf(root, 'org');
      if (orgPair && isMap(orgPair.value))
        walkGroup(f, { file: f, node: orgPair.value, pair: orgPair, map: root }, '', index);
    }
  }
  return index;
}

export function siteAt(index: ManifestIndex, source: { file: string; line: number; column: number }): Site | undefined {
  return index.at.get(`${source.file}:${source.line}:${source.column}`);
}

function walkGroup(f: EditableFile, site: Site, path: string, index: ManifestIndex): void {
  const list = index.groups.get(path) ?? [];
  list.push(site);
  index.groups.set(path, list);
  const map = site.node as YAMLMap;
  const groups = pairOf(map, 'groups');
  if (!groups || !isSeq(groups.value)) return;
  for (const item of groups.value.items) {
    if (!isMap(item)) continue;
    const name = pairOf(item, 'name')?.value;
    if (!isScalar(name)) continue;
    walkGroup(
      f,
      { file: f, node: item, seq: groups.value, pair: groups, map },
      joinPath(path, String(name.value)),
      index,
    );
  }
}

function walkNodes(
  f: EditableFile,
  node: Node | null,
  holder: Omit<Site, 'file' | 'node'>,
  index: ManifestIndex,
): void {
  if (!node?.range) return;
  index.at.set(`${f.file}:${positionKey(f, node)}`, { file: f, node, ...holder });
  if (isMap(node)) {
    for (const p of node.items)
      if (p.value) walkNodes(f, p.value as Node, { pair: p as Pair<Node, Node | null>, map: node }, index);
  } else if (isSeq(node)) {
    const inList = {
      seq: node,
      ...(holder.pair ? { pair: holder.pair } : {}),
      ...(holder.map ? { map: holder.map } : {}),
    };
    for (const item of node.items) walkNodes(f, item as Node, inList, index);
  }
}
