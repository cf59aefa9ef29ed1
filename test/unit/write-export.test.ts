/**
 * export --force over an existing export replaces it whole or not at all (DESIGN.md §4): the
 * files of the old export that the new one does not write go with it; a directory holding more
 * than an export is refused; what an interrupted export left (a staging directory, an old export
 * set aside by a swap cut short) is cleared, and the old export put back, by the next export.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeExport } from '../../src/export/write-export.js';
import { EXPORT_MARK } from '../../src/export/export-manifests.js';

const dir = mkdtempSync(join(tmpdir(), 'write-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Files as an export writes them: each carries the export's mark in its header. */
const files = (tag: string) => [
  { file: 'org.yaml', text: `# ${tag}\n# ${EXPORT_MARK}\n` },
  { file: 'eng.yaml', text: `# ${tag}\n# ${EXPORT_MARK}\n` },
];

describe('export --force', () => {
  it('replaces the whole export: nothing of the old one is left mixed in', () => {
    const out = join(dir, 'whole');
    writeExport(out, [...files('old'), { file: 'gone.yaml', text: `# old\n# ${EXPORT_MARK}\n` }]);
    writeExport(out, files('new'), { force: true });
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'org.yaml']);
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toBe(`# new\n# ${EXPORT_MARK}\n`);
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('refuses a directory that holds more than an export, changing nothing', () => {
    const out = join(dir, 'mixed');
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'mine');
    expect(() => writeExport(out, files('new'), { force: true })).toThrow(/holds files an export did not write \(notes\.txt\)/);
    expect(readdirSync(out)).toEqual(['notes.txt']);
  });

  it('replaces only what an export wrote: a hand-written manifest or a values.yml beside an export is an error naming it, before any write (issue 50)', () => {
    const out = join(dir, 'beside');
    writeExport(out, files('old'));
    writeFileSync(join(out, 'team.yaml'), 'apiVersion: platform-sync/v1\norg: {name: acme}\n');
    writeFileSync(join(out, 'values.yml'), 'replicas: 3\n');
    expect(() => writeExport(out, files('new'), { force: true })).toThrow(/holds files an export did not write \(team\.yaml, values\.yml\); export --force replaces only an earlier export/);
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'org.yaml', 'team.yaml', 'values.yml']);
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toBe(`# old\n# ${EXPORT_MARK}\n`);
  });

  it('after an interrupted swap, puts the old export back and clears the staging directory', () => {
    const out = join(dir, 'cut');
    writeExport(out, files('old'));
    // As a kill between the two renames of a swap leaves it: the old export aside, a stage beside, no out.
    const aside = join(dir, '.cut.replaced-1-1');
    renameSync(out, aside);
    mkdirSync(join(dir, '.cut.export-abc'));
    writeFileSync(join(dir, '.cut.export-abc', 'org.yaml'), '# half\n');
    expect(() => writeExport(out, files('new'))).toThrow(/already exist/); // recovered first: the old export is back, and not overwritten without --force
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toBe(`# old\n# ${EXPORT_MARK}\n`);
    expect(existsSync(aside)).toBe(false);
    expect(existsSync(join(dir, '.cut.export-abc'))).toBe(false);
  });
});
