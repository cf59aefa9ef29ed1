/**
 * Where js-yaml's listener says each mapping and list starts (src/manifest/collection-starts.ts),
 * against where the `yaml` package puts the same node — read here directly, past the shape check
 * that keeps most of these texts from the fast reader, so that what the module leaves to `yaml`
 * (anchors, tags, aliases, explicit keys, keys, scalars) is seen left.
 */
import { FAILSAFE_SCHEMA, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { CollectionStarts } from '../../src/manifest/collection-starts.js';
import { findOffset } from '../../src/manifest/yaml-positions.js';

function read(text: string): { starts: CollectionStarts; values: unknown[] } {
  const starts = new CollectionStarts(text);
  const values = loadAll(text, null, { schema: FAILSAFE_SCHEMA, listener: starts.listener });
  return { starts, values };
}

/** The offset `yaml` gives the node at `pointer` of the first document. */
function yamlOffset(text: string, pointer: (string | number)[], target: 'key' | 'value' = 'value'): number {
  return findOffset(parseAllDocuments(text)[0] as never, pointer, target);
}

describe('where a mapping or a list starts, as js-yaml reads it', () => {
  it.each([
    ['a list item on its dash line', 'org:\n  repos:\n    - name: a\n      description: x\n', ['org', 'repos', 0]],
    ['a list under its key at the key column', 'org:\n  repos:\n  - name: a\n', ['org', 'repos']],
    ['an item whose mapping starts below its dash', 'items:\n  -\n    # why\n    name: a\n', ['items', 0]],
    ['a mapping after a comment on its key line', 'org: # the org\n\n  # first\n  name: acme\n', ['org']],
    ['a flow mapping as a list item', 'items:\n  - {identity: a, role: viewer}\n', ['items', 0]],
    ['a flow list in a flow mapping', 'x: {a: [1, 2], b: {c: d}}\n', ['x', 'a']],
    ['a nested flow mapping', 'x: {a: [1, 2], b: {c: d}}\n', ['x', 'b']],
    ['the document itself, after a marker and a comment', '---\n# top\napiVersion: v1\n', []],
    ['a line ending in CRLF', 'org:\r\n  repos:\r\n    - name: a\r\n', ['org', 'repos', 0]],
  ])('%s', (_, text, pointer) => {
    const { starts, values } = read(text);
    expect(starts.offsetOf(values[0], pointer, 'value')).toBe(yamlOffset(text, pointer));
  });

  it('a pointer past what exists stops at the deepest mapping or list on the way', () => {
    const text = 'org:\n  repos:\n    - name: a\n';
    const { starts, values } = read(text);
    for (const pointer of [
      ['org', 'nope'],
      ['org', 'repos', 5],
      ['org', 'repos', 0, 'nope', 'deeper'],
    ])
      expect(starts.offsetOf(values[0], pointer, 'value'), JSON.stringify(pointer)).toBe(yamlOffset(text, pointer));
  });

  it("a list item's key and value are one place; a mapping's key, or a scalar, is left to yaml", () => {
    const text = 'org:\n  name: acme\n  repos:\n    - name: a\n';
    const { starts, values } = read(text);
    expect(starts.offsetOf(values[0], ['org', 'repos', 0], 'key')).toBe(yamlOffset(text, ['org', 'repos', 0]));
    expect(starts.offsetOf(values[0], ['org', 'repos'], 'key')).toBeUndefined();
    expect(starts.offsetOf(values[0], ['org', 'name'], 'value')).toBeUndefined();
    expect(starts.offsetOf(values[0], ['org', 'name', 'past'], 'value')).toBeUndefined();
  });

  it.each([
    ['an anchored mapping', 'a: &x {k: 1}\n', ['a']],
    ['an alias of a mapping, and its anchor', 'a: &x {k: 1}\nb: *x\n', ['b']],
    ['the anchor an alias repeats', 'a: &x {k: 1}\nb: *x\n', ['a']],
    ['a tagged mapping', 'a: !!map {k: 1}\n', ['a']],
    ['a mapping behind an explicit key', '? k\n: {a: b}\n', []],
  ])('%s is left to yaml', (_, text, pointer) => {
    const { starts, values } = read(text);
    expect(starts.offsetOf(values[0], pointer, 'value')).toBeUndefined();
  });
});
