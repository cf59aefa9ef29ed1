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

const dir = mkdtempSync(join(tmpdir(), 'write-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files = (tag: string) => [
  { file: 'org.yaml', text: `# ${tag}\n` },
  { file: 'eng.yaml', text: `# ${tag}\n` },
];

describe('export --force', () => {
  it('replaces the whole export: nothing of the old one is left mixed in', () => {
    const out = join(dir, 'whole');
    writeExport(out, [...files('old'), { file: 'gone.yaml', text: '# old\n' }]);
    writeExport(out, files('new'), { force: true });
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'org.yaml']);
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toBe('# new\n');
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('refuses a directory that holds more than an export, changing nothing', () => {
    const out = join(dir, 'mixed');
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'mine');
    expect(() => writeExport(out, files('new'), { force: true })).toThrow(/holds more than an export \(notes\.txt\)/);
    expect(readdirSync(out)).toEqual(['notes.txt']);
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
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toBe('# old\n');
    expect(existsSync(aside)).toBe(false);
    expect(existsSync(join(dir, '.cut.export-abc'))).toBe(false);
  });
});
