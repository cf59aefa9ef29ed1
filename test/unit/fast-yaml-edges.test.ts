/**
 * Where js-yaml and `yaml` differ, the fast reader steps aside: a key past 1,024 characters
 * (`yaml` refuses it, js-yaml took it) and files of several documents read the same with both
 * readers — the same diagnostics, the same state.
 */
import { describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { readPlainYaml } from '../../src/manifest/fast-yaml.js';

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

  it('reads files of several documents as yaml does', () => {
    const text = 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos: [{name: a}]\n---\napiVersion: platform-sync/v1\norg:\n  name: acme\n  repos: [{name: b}]\n';
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.state).toEqual(['org', 'repo:a', 'repo:b']);
  });
});
