/**
 * export --out (DESIGN.md §4, §8 rev 6): its own files replaced whole or not at all, nothing else
 * touched. --force replaces and removes the files of an earlier export while they are sealed (as
 * export wrote them); what an interrupted export left (a staging directory beside, an area inside
 * with its old files set aside) is undone by the next export, the old export intact.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OWN_MARK } from '../../src/io/write-file.js';
import { isSealedExportFile, sealExportFile, writeExport } from '../../src/export/write-export.js';
import { EXPORT_MARK } from '../../src/export/export-manifests.js';

const dir = mkdtempSync(join(tmpdir(), 'write-export-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Files as an export makes them: each carries the export's mark in its header. */
const files = (tag: string) => [
  { file: 'org.yaml', text: `# ${tag}\n# ${EXPORT_MARK}\n` },
  { file: 'eng.yaml', text: `# ${tag}\n# ${EXPORT_MARK}\n` },
];
const read = (path: string) => readFileSync(path, 'utf8');

describe('the seal', () => {
  it('holds for the file as written under its own name, not edited, not renamed', () => {
    const sealed = sealExportFile('org.yaml', `# x\n# ${EXPORT_MARK}\napiVersion: v1\n`);
    expect(sealed).toMatch(/^# x\n# Written by .*\n# platform-sync export seal [0-9a-f]{64} .*\napiVersion: v1\n$/);
    expect(isSealedExportFile('org.yaml', sealed)).toBe(true);
    expect(isSealedExportFile('team.yaml', sealed)).toBe(false);
    expect(isSealedExportFile('org.yaml', `${sealed}# mine\n`)).toBe(false);
    expect(isSealedExportFile('org.yaml', sealed.replace('v1', 'v2'))).toBe(false);
    expect(isSealedExportFile('org.yaml', `# x\n# ${EXPORT_MARK}\napiVersion: v1\n`)).toBe(false);
  });
});

describe('export --force', () => {
  it('replaces the whole export: nothing of the old one is left mixed in', () => {
    const out = join(dir, 'whole');
    writeExport(out, [...files('old'), { file: 'gone.yaml', text: `# old\n# ${EXPORT_MARK}\n` }]);
    writeExport(out, files('new'), { force: true });
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'org.yaml']);
    expect(read(join(out, 'org.yaml'))).toBe(sealExportFile('org.yaml', `# new\n# ${EXPORT_MARK}\n`));
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('keeps what it did not write beside it: a hand-written manifest, a values.yml, notes', () => {
    const out = join(dir, 'beside');
    writeExport(out, files('old'));
    writeFileSync(join(out, 'team.yaml'), 'apiVersion: platform-sync/v1\norg: {name: acme}\n');
    writeFileSync(join(out, 'values.yml'), 'replicas: 3\n');
    writeFileSync(join(out, 'notes.txt'), 'mine');
    writeExport(out, files('new'), { force: true });
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'notes.txt', 'org.yaml', 'team.yaml', 'values.yml']);
    expect(read(join(out, 'values.yml'))).toBe('replicas: 3\n');
    expect(read(join(out, 'org.yaml'))).toContain('# new');
  });

  it('refuses an --out that is a link leading to no directory, naming it', () => {
    const out = join(dir, 'dangling');
    symlinkSync(join(dir, 'nowhere'), out);
    expect(() => writeExport(out, files('new'))).toThrow(
      `cannot write the export to ${out}: it is a symbolic link that leads to no directory; nothing was written`,
    );
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
  });

  it('refuses a file it did not write at a name it writes, changing nothing', () => {
    const out = join(dir, 'unmarked');
    mkdirSync(out);
    writeFileSync(join(out, 'org.yaml'), 'mine\n');
    expect(() => writeExport(out, files('new'), { force: true })).toThrow(/org\.yaml: not written by an export/);
    expect(readdirSync(out)).toEqual(['org.yaml']);
  });

  it('undoes an export cut short inside the directory: its files taken out, the old ones put back, its area gone', () => {
    const out = join(dir, 'cut');
    writeExport(out, files('old'));
    writeFileSync(join(out, 'notes.txt'), 'mine');
    const old = read(join(out, 'org.yaml'));
    // As a kill leaves it after the journal, with org.yaml set aside (eng.yaml not yet) and the new files placed.
    const area = join(out, '.platform-sync-export-abc');
    mkdirSync(join(area, 'aside'), { recursive: true });
    mkdirSync(join(area, 'stage'));
    writeFileSync(join(area, OWN_MARK), '');
    writeFileSync(
      join(area, '.journal'),
      JSON.stringify({ place: ['org.yaml', 'eng.yaml', 'new.yaml'], replace: ['org.yaml', 'eng.yaml'] }),
    );
    renameSync(join(out, 'org.yaml'), join(area, 'aside', 'org.yaml'));
    writeFileSync(join(out, 'org.yaml'), sealExportFile('org.yaml', `# new\n# ${EXPORT_MARK}\n`));
    writeFileSync(join(out, 'new.yaml'), sealExportFile('new.yaml', `# new\n# ${EXPORT_MARK}\n`));
    expect(() => writeExport(out, files('new'))).toThrow(/already exist/); // recovered first, and not overwritten without --force
    expect(read(join(out, 'org.yaml'))).toBe(old);
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'notes.txt', 'org.yaml']);
  });

  it('clears the area of an export that finished but was cut short before removing it', () => {
    const out = join(dir, 'finished');
    writeExport(out, files('new'));
    const area = join(out, '.platform-sync-export-xyz');
    mkdirSync(join(area, 'aside'), { recursive: true });
    writeFileSync(join(area, OWN_MARK), '');
    writeFileSync(
      join(area, 'aside', 'org.yaml'),
      sealExportFile('org.yaml', `# the replaced one\n# ${EXPORT_MARK}\n`),
    );
    writeExport(out, files('newer'), { force: true });
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'org.yaml']);
    expect(read(join(out, 'org.yaml'))).toContain('# newer');
  });

  it("an older version's swap and a staging directory beside --out, neither marked as export's: left as they are", () => {
    const out = join(dir, 'swap');
    writeExport(out, files('old'));
    const old = read(join(out, 'org.yaml'));
    const aside = join(dir, '.swap.replaced-1-1');
    renameSync(out, aside);
    mkdirSync(join(dir, '.swap.export-abc'));
    writeFileSync(join(dir, '.swap.export-abc', 'org.yaml'), '# half\n');
    writeExport(out, files('new'));
    expect(read(join(out, 'org.yaml'))).toContain('# new');
    expect(read(join(aside, 'org.yaml'))).toBe(old);
    expect(read(join(dir, '.swap.export-abc', 'org.yaml'))).toBe('# half\n');
  });
});
