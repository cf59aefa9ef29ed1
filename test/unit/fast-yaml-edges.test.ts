/**
 * Where js-yaml and `yaml` differ, the fast reader steps aside: a key past 1,024 characters
 * (`yaml` refuses it, js-yaml took it). Files of several documents are read fast, and alike —
 * the same diagnostics, the same state; positions come from `yaml`, when one is asked for.
 */
import { describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { readPlainYaml } from '../../src/manifest/fast-yaml.js';
import { parseManifestText } from '../../src/manifest/parse-documents.js';

function both(text: string) {
  return (['fast', 'yaml'] as const).map((yamlReader) => {
    const r = validateManifestTexts([{ file: 'm.yaml', text }], { yamlReader });
    return { diagnostics: r.diagnostics.map((d) => `${d.location.line}:${d.location.column} ${d.message}`), state: r.state?.resources.map((x) => x.address) };
  });
}

describe('the fast reader at its edges', () => {
  it('gives a key over 1,024 characters to yaml, so both readers report it alike', () => {
    const text = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  ${'k'.repeat(1100)}: x\n`;
    expect(readPlainYaml(text, new Set(), 100)).toBeUndefined();
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.diagnostics.join('\n')).toContain('1024');
  });

  it('takes a long key on a line of 1,024 characters, as yaml does', () => {
    const key = 'k'.repeat(1024 - '  : x'.length);
    const text = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  ${key}: x\n`;
    expect(readPlainYaml(text, new Set(), 100)).toEqual([{ apiVersion: 'platform-sync/v1', org: { name: 'acme', [key]: 'x' } }]);
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.diagnostics).toHaveLength(1); // the unknown field, at the same place
  });

  it('reads files of several documents as yaml does', () => {
    const text = 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos: [{name: a}]\n---\napiVersion: platform-sync/v1\norg:\n  name: acme\n  repos: [{name: b}]\n';
    expect(readPlainYaml(text, new Set(), 100)).toHaveLength(2);
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.state).toEqual(['org', 'repo:a', 'repo:b']);
  });

  it('gives an empty document between markers to yaml, which reports it', () => {
    const text = 'apiVersion: platform-sync/v1\norg:\n  name: acme\n---\n---\napiVersion: platform-sync/v1\norg:\n  name: acme\n';
    expect(readPlainYaml(text, new Set(), 100)).toBeUndefined();
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.diagnostics.join('\n')).toContain('empty document (document 2 of 3)');
  });

  it('reads positions only when one is asked for, from yaml: the same as a yaml read', () => {
    const text = 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - name: a\n      description: "x"\n';
    const fast = parseManifestText('m.yaml', text).documents[0]!;
    const slow = parseManifestText('m.yaml', text, undefined, 'yaml').documents[0]!;
    const location = fast.locate(['org', 'repos', 0, 'description']);
    expect(location.file).toBe('m.yaml');
    expect({ ...location }).toEqual({ file: 'm.yaml', line: 6, column: 20 });
    expect(JSON.parse(JSON.stringify(location))).toEqual(slow.locate(['org', 'repos', 0, 'description']));
  });
});
