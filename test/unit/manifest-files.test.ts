/**
 * Reading manifest files as they are found on real disks: broken and looping symbolic links,
 * encodings other than UTF-8, byte order marks and CRLF line endings, and a directory holding
 * other things than manifests.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateManifests, validateManifestTexts } from '../../src/manifest/index.js';
import { decodeManifestBytes } from '../../src/manifest/read-files.js';
import { formatDiagnostic } from '../../src/model/errors.js';

const HEAD = 'apiVersion: platform-sync/v1\n';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ps-manifest-files-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('directories', () => {
  it('reports a broken link and a link loop on their own and still reads the rest of the directory', async () => {
    const root = join(dir, 'links');
    await mkdir(join(root, 'sub'), { recursive: true });
    await writeFile(join(root, 'org.yaml'), `${HEAD}org: {name: acme}\n`);
    await writeFile(join(root, 'README.md'), '# not a manifest\n');
    await symlink('nowhere.yaml', join(root, 'broken.yaml'));
    await symlink('loop-b.yaml', join(root, 'loop-a.yaml'));
    await symlink('loop-a.yaml', join(root, 'loop-b.yaml'));
    await symlink('..', join(root, 'sub', 'parent')); // a directory loop: followed once
    const result = await validateManifests([root]);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      `${join(root, 'broken.yaml')}: cannot read: broken symbolic link (its target does not exist)`,
      `${join(root, 'loop-a.yaml')}: cannot read: symbolic link loop (the link leads back to itself)`,
      `${join(root, 'loop-b.yaml')}: cannot read: symbolic link loop (the link leads back to itself)`,
    ]);
    expect(result.files).toEqual([join(root, 'org.yaml')]);
  });

  it('names a broken link given on the command line as such', async () => {
    const link = join(dir, 'given-broken.yaml');
    await symlink('missing-target.yaml', link);
    const result = await validateManifests([link]);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      `${link}: cannot read: broken symbolic link (its target does not exist)`,
    ]);
  });
});

describe('encodings and line endings', () => {
  it('refuses a Latin-1 file at the first byte that is not UTF-8', async () => {
    const file = join(dir, 'latin1.yaml');
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from(`${HEAD}org:\n  name: acme\n  description: Caf`),
        Buffer.from([0xe9]),
        Buffer.from(' au lait\n'),
      ]),
    );
    const result = await validateManifests([file]);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      `${file}:4:19: file is not valid UTF-8 (byte 0xE9 here is not part of a UTF-8 character; is it Latin-1 or UTF-16?); save it as UTF-8`,
    ]);
  });

  it('counts columns in characters after multi-byte UTF-8 and refuses a sequence cut off at the end', () => {
    const bytes = Buffer.concat([Buffer.from('a: "é€ '), Buffer.from([0xe2, 0x82])]);
    const decoded = decodeManifestBytes('cut.yaml', bytes);
    expect('diagnostic' in decoded && decoded.diagnostic.location).toEqual({ file: 'cut.yaml', line: 1, column: 8 });
  });

  it('refuses UTF-16 (its byte order mark is not UTF-8)', () => {
    const decoded = decodeManifestBytes('u16.yaml', Buffer.from('\ufeffa: b', 'utf16le'));
    expect('diagnostic' in decoded && formatDiagnostic(decoded.diagnostic)).toMatch(
      /^u16\.yaml:1:1: file is not valid UTF-8 \(byte 0xFF/,
    );
  });

  it('reads a UTF-8 byte order mark and CRLF line endings with exact positions', async () => {
    const file = join(dir, 'bom-crlf.yaml');
    await writeFile(file, `\ufeff${HEAD}org:\r\n  name: acme\r\n  descripton: x\r\n`.replace(/(?<!\r)\n/g, '\r\n'));
    const result = await validateManifests([file]);
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([
      `${file}:4:3: unknown field "descripton" in org "acme"; expected one of name, description, identities, roles, roleBindings, repos, members, subscriptions, identityProviders, accountAssociation, acceptedTerms, groups, accessRules, renamedFrom, uid (did you mean "description"?) (at /org/descripton)`,
    ]);
  });

  it('accepts a large valid file just under the size limit', () => {
    const repos = Array.from(
      { length: 9000 },
      (_, i) => `    - name: repo-${i}\n      description: Repository number ${i}\n`,
    ).join('');
    const text = `${HEAD}org:\n  name: acme\n  repos:\n${repos}`;
    expect(Buffer.byteLength(text)).toBeGreaterThan(500_000);
    const { state, diagnostics } = validateManifestTexts([{ file: 'big.yaml', text }]);
    expect(diagnostics).toEqual([]);
    expect(state!.resources).toHaveLength(9001);
    expect(state!.resources[9000]!.source).toEqual({ file: 'big.yaml', line: 4 + 2 * 8999 + 1, column: 7 });
  });
});
