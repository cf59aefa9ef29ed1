/**
 * One reader decides the values of a manifest file, whatever its style (js-yaml, or `yaml` for a
 * file the fast path does not take): a plain scalar keeps a "#" that starts no comment, and a
 * prototype-altering key is refused however it is spelt — an escape in a double-quoted key hides
 * it from the text, not from the reader — with its file, line and column.
 */
import { describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { parseManifestText } from '../../src/manifest/parse-documents.js';

const HEAD = 'apiVersion: platform-sync/v1\norg:\n';

describe('one reader of values', () => {
  it.each([
    [
      'block',
      `${HEAD}  name: acme\n  groups:\n    - name: eng\n      description: eng#ops # a comment\n      identities: [{name: ci, description: a#b}]\n`,
    ],
    [
      'flow',
      `${HEAD}  name: acme\n  groups:\n    - {name: eng, description: eng#ops, identities: [{name: ci, description: a#b}]}\n`,
    ],
    [
      'block, one document of two',
      `${HEAD}  name: acme\n---\n${HEAD}  name: acme\n  groups:\n  - name: eng\n    description: eng#ops  # note\n    identities:\n    - name: ci\n      description: a#b\n`,
    ],
  ])('a "#" inside a plain scalar is part of it (%s)', (_, text) => {
    const parsed = parseManifestText('m.yaml', text);
    expect(parsed.diagnostics).toEqual([]);
    const groups = parsed.documents.at(-1)!.value as { org: { groups: unknown[] } };
    expect(groups.org.groups[0]).toEqual({
      name: 'eng',
      description: 'eng#ops',
      identities: [{ name: 'ci', description: 'a#b' }],
    });
    expect(validateManifestTexts([{ file: 'm.yaml', text }]).diagnostics).toEqual([]);
  });

  it.each([
    ['\\x escape', '"__pro\\x74o__"', '__proto__', 3, 3],
    ['\\u escape', '"\\u005f_proto__"', '__proto__', 3, 3],
    ['escaped constructor, in a flow mapping', '{"construc\\x74or": 1}', 'constructor', 3, 4],
    ['escaped prototype, nested in block', 'x:\n    "prototyp\\u0065": 1', 'prototype', 4, 5],
  ])('a forbidden key written with a %s is an error at its file:line:col', (_, key, name, line, column) => {
    const text = `${HEAD}  name: acme\n  ${key.startsWith('{') ? `labels: ${key}` : key.startsWith('x') ? key : `${key}: 1`}\n`;
    const parsed = parseManifestText('m.yaml', text);
    const message = `key ${JSON.stringify(name)} is not allowed`;
    const found = parsed.diagnostics.find((d) => d.message.startsWith(message));
    expect(found, `${text}\n${JSON.stringify(parsed.diagnostics)}`).toBeDefined();
    expect({ ...found!.location }).toEqual({
      file: 'm.yaml',
      line: line + 1,
      column: column + (key.startsWith('{') ? 8 : 0),
    });
    const validated = validateManifestTexts([{ file: 'm.yaml', text }]);
    expect(validated.diagnostics.some((d) => d.message.startsWith(message))).toBe(true);
  });
});
