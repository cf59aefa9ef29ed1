/**
 * Where js-yaml and `yaml` differ, the fast reader steps aside: a key past 1,024 characters
 * (`yaml` refuses it, js-yaml took it). Files of several documents are read fast, and alike —
 * the same diagnostics, the same state. A mapping's or a list's position is where js-yaml opened
 * it (collection-starts.ts); a key's or a scalar's is `yaml`'s, when one is asked for.
 */
import { describe, expect, it } from 'vitest';
import { validateManifestTexts } from '../../src/manifest/index.js';
import { readPlainYaml } from '../../src/manifest/fast-yaml.js';
import { CollectionStarts } from '../../src/manifest/collection-starts.js';
import { parseManifestText } from '../../src/manifest/parse-documents.js';
import type { Pointer } from '../../src/manifest/diagnostics.js';

function both(text: string) {
  return (['fast', 'yaml'] as const).map((yamlReader) => {
    const r = validateManifestTexts([{ file: 'm.yaml', text }], { yamlReader });
    return {
      diagnostics: r.diagnostics.map((d) => `${d.location.line}:${d.location.column} ${d.message}`),
      state: r.state?.resources.map((x) => x.address),
    };
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
    expect(readPlainYaml(text, new Set(), 100)).toEqual([
      { apiVersion: 'platform-sync/v1', org: { name: 'acme', [key]: 'x' } },
    ]);
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.diagnostics).toHaveLength(1); // the unknown field, at the same place
  });

  it('reads files of several documents as yaml does', () => {
    const text =
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos: [{name: a}]\n---\napiVersion: platform-sync/v1\norg:\n  name: acme\n  repos: [{name: b}]\n';
    expect(readPlainYaml(text, new Set(), 100)).toHaveLength(2);
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.state).toEqual(['org', 'repo:a', 'repo:b']);
  });

  it('gives a \\U escape past U+10FFFF to yaml, which refuses it (js-yaml read it as two lone surrogates: review of issue 61)', () => {
    for (const quoted of ['"Acme \\U00110000 Corp"', '"\\UFFFFFFFF"', '"\\U7fffffff"']) {
      for (const text of [
        `apiVersion: platform-sync/v1\norg:\n  name: acme\n  description: ${quoted}\n`,
        `apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos: [{name: a, description: ${quoted}}]\n`,
        `apiVersion: platform-sync/v1\norg:\n  name: acme\n  ${quoted}: x\n`,
      ]) {
        expect(readPlainYaml(text, new Set(), 100), text).toBeUndefined();
        const [fast, yaml] = both(text);
        expect(fast, text).toEqual(yaml);
        expect(fast!.diagnostics.join('\n'), text).toContain('Invalid escape sequence');
      }
    }
    // Up to U+10FFFF, both readers read the character.
    const text =
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  description: "\\U0001F600 \\U0010FFFF \\U000000e9"\n';
    expect(readPlainYaml(text, new Set(), 100)).toEqual([
      { apiVersion: 'platform-sync/v1', org: { name: 'acme', description: '\u{1F600} \u{10FFFF} \u00e9' } },
    ]);
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
  });

  it('gives an empty document between markers to yaml, which reports it', () => {
    const text =
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n---\n---\napiVersion: platform-sync/v1\norg:\n  name: acme\n';
    expect(readPlainYaml(text, new Set(), 100)).toBeUndefined();
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.diagnostics.join('\n')).toContain('empty document (document 2 of 3)');
  });

  it('a position is a plain location, the same as a yaml read', () => {
    const text = 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - name: a\n      description: "x"\n';
    const fast = parseManifestText('m.yaml', text).documents[0]!;
    const slow = parseManifestText('m.yaml', text, undefined, 'yaml').documents[0]!;
    const location = fast.locate(['org', 'repos', 0, 'description']);
    expect(location.file).toBe('m.yaml');
    expect({ ...location }).toEqual({ file: 'm.yaml', line: 6, column: 20 });
    expect(JSON.parse(JSON.stringify(location))).toEqual(slow.locate(['org', 'repos', 0, 'description']));
  });

  it('finds every mapping and list of a block-style org as js-yaml reads it, where yaml has it', () => {
    // The shape manifests are written in: nested groups, lists under their key or at its column,
    // comments and blank lines between, a block scalar, an empty value, CRLF in one copy.
    const group = (i: number, ind: string, depth: number): string =>
      `${ind}- name: g${i}\n${ind}  description: team ${i} # owner: ${i}\n\n${ind}  identities:\n` +
      [0, 1]
        .map(
          (k) =>
            `${ind}    - name: id-${k}\n${ind}      claimMatch:\n${ind}        issuer: https://issuer.example\n${ind}        subject: repo:acme/${i}-${k}\n`,
        )
        .join('') +
      `${ind}  repos:\n${ind}  # at the key's column\n${ind}  - name: app\n${ind}    readme: |\n${ind}      # Title\n\n${ind}      body: text\n${ind}    description:\n` +
      `${ind}  roleBindings:\n${ind}    -\n${ind}      identity: id-0\n${ind}      role: viewer\n` +
      (depth < 2 ? `${ind}  groups:\n${[0, 1].map((k) => group(k, `${ind}    `, depth + 1)).join('')}` : '');
    const org = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  groups:\n${group(0, '    ', 0)}${group(1, '    ', 0)}`;
    for (const text of [org, org.replace(/\n/g, '\r\n')]) {
      const starts = new CollectionStarts(text);
      const [value] = readPlainYaml(text, new Set(), 100, starts)!;
      const fast = parseManifestText('m.yaml', text).documents[0]!;
      const slow = parseManifestText('m.yaml', text, undefined, 'yaml').documents[0]!;
      const nodes: Pointer[] = [];
      let collections = 0;
      const walk = (node: unknown, pointer: Pointer): void => {
        nodes.push(pointer);
        if (node !== null && typeof node === 'object') {
          // Every mapping and list is found by the reading itself, not by `yaml`.
          collections++;
          expect(starts.offsetOf(value, pointer, 'value'), JSON.stringify(pointer)).toBeTypeOf('number');
        }
        if (Array.isArray(node)) node.forEach((item, i) => walk(item, [...pointer, i]));
        else if (node !== null && typeof node === 'object')
          for (const [key, item] of Object.entries(node)) walk(item, [...pointer, key]);
      };
      walk(value, []);
      expect(nodes.length).toBeGreaterThan(300);
      expect(collections).toBeGreaterThan(100);
      for (const pointer of nodes) {
        for (const target of ['key', 'value'] as const) {
          expect(fast.locate(pointer, target), `${JSON.stringify(pointer)} ${target}`).toStrictEqual(
            slow.locate(pointer, target),
          );
        }
      }
    }
  });

  // Regression: the block-style value builder (gone since issue 61) threw on a list item left of
  // the document's first line, where the fast reader must step aside for `yaml`, which reports it.
  it.each([
    ['a list item left of the first key', '  apiVersion: platform-sync/v1\n- x\n'],
    [
      'a list item left of its list',
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n  - name: a\n- name: b\n',
    ],
    ['a key left of the first key', '  apiVersion: platform-sync/v1\norg:\n  name: acme\n'],
  ])('%s: no throw, and read as yaml reads it', (_, text) => {
    expect(() => readPlainYaml(text, new Set(), 100)).not.toThrow();
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.diagnostics.length).toBeGreaterThan(0);
  });

  // Regression (a generated manifest, a line turned into a list item): js-yaml took a list item at
  // the document's column after a nested mapping, where `yaml` reports an error; such lines go to
  // `yaml` (block-structure.ts), also when a flow collection comes before them.
  it.each([
    [
      'after an empty item',
      'apiVersion: \'platform-sync/v1\'\norg:\n  name: acme\n  repos:\n  -\n- identities:  # note\n\n    - name: "deploy-bot"\n    - {name: svc.a, description: "2024-01-01"}\n  groups: []\n',
    ],
    [
      'after a flow collection',
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  labels: {a: b}\n  repos:\n  -\n- identities: []\n',
    ],
  ])("a list item at a mapping's column %s: read as yaml reads it", (_, text) => {
    expect(readPlainYaml(text, new Set(), 100)).toBeUndefined();
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    expect(fast!.diagnostics.length).toBeGreaterThan(0);
  });

  // Regression (review of issue 61): after an empty item, js-yaml took the next item of the outer
  // list into the empty item's list (role r2 inside r1's capabilities); `yaml` ends the list there.
  it('an item after an empty one, left of its list: read as yaml reads it', () => {
    const text =
      'apiVersion: platform-sync/v1\norg:\n  name: acme\n  roles:\n    - name: r1\n      capabilities:\n        -\n' +
      '    - name: r2\n      capabilities: [repo.list]\n';
    expect(readPlainYaml(text, new Set(), 100)).toBeUndefined();
    const [fast, yaml] = both(text);
    expect(fast).toEqual(yaml);
    const values = parseManifestText('m.yaml', text).documents.map((d) => d.value);
    expect((values[0] as { org: { roles: unknown[] } }).org.roles).toHaveLength(2);
    // At its own column, or deeper, the item after an empty one is read fast as before.
    const same = text.replace('        -\n', '        -\n        - repo.list\n');
    expect(readPlainYaml(same, new Set(), 100)).toBeDefined();
  });

  // A ":" inside a plain scalar of a flow collection (as export writes URLs and subjects): read
  // fast where YAML 1.2 reads it as part of the scalar, and alike by both readers either way.
  it.each([
    ['{issuer: https://token.actions.githubusercontent.com, subject: repo:acme/app:ref:refs/heads/main}', true],
    ['{a: b:c, d:e: f}', true],
    ['[a:b, c::d, x :y]', true],
    ['[a:]', false],
    ['[a:,b]', false],
    ['{a: b:#c}', false],
    ['[x:"y, z"]', true], // two items, `x:"y` and `z"`, in both readers
    ['{a: b:}', false],
    ['{a: b: c}', false],
    ['{a: x:{y}}', false],
  ])('reads the flow labels %s alike (fast: %s)', (labels, fast) => {
    const text = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  labels: ${labels}\n`;
    expect(readPlainYaml(text, new Set(), 100) !== undefined).toBe(fast);
    const [read, yaml] = (['fast', 'yaml'] as const).map((reader) => {
      const parsed = parseManifestText('m.yaml', text, undefined, reader);
      return { values: parsed.documents.map((d) => d.value), diagnostics: parsed.diagnostics };
    });
    expect(read).toEqual(yaml);
  });
});
