/**
 * What the next export does with what an interrupted one left in --out (DESIGN.md §8 rev 6) when
 * that may be hostile — an export directory can come from a pull request: a `.journal` naming
 * `../x`, a path, a hidden file, non-strings, or garbled, missing; an area or its `aside` that is
 * a link out of --out, or a file. Nothing outside --out is ever moved or deleted; a file is taken
 * out only while it is a sealed export file; a file changed since the cut is never replaced.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sealExportFile, writeExport } from '../../src/export/write-export.js';
import { OWN_MARK } from '../../src/io/write-file.js';
import { EXPORT_MARK } from '../../src/export/export-manifests.js';
import { UserError } from '../../src/model/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'write-export-recovery-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exported = (file: string, tag: string) => ({ file, text: `# ${tag}\n# ${EXPORT_MARK}\nname: ${file}\n` });
const files = (tag: string) => [exported('org.yaml', tag), exported('eng.yaml', tag)];
/** A file as export writes it under `name` (a name it never writes, for a hostile journal to point at). */
const sealedAs = (name: string) => sealExportFile(name, `# planted\n# ${EXPORT_MARK}\n`);
const read = (path: string) => readFileSync(path, 'utf8');
const AREA = '.platform-sync-export-cut';

let fresh = 0;
/** A directory of its own (the parent of --out), and --out in it holding an earlier export. */
function earlier(): { base: string; out: string } {
  const base = join(dir, `case-${++fresh}`);
  const out = join(base, 'out');
  mkdirSync(base);
  writeExport(out, files('old'));
  return { base, out };
}

/** An area as a cut-short export leaves it: `journal` (raw text, or undefined for none), and the files set aside. */
function plantArea(out: string, journal: string | undefined, aside: Record<string, string> = {}): string {
  const area = join(out, AREA);
  mkdirSync(join(area, 'aside'), { recursive: true });
  writeFileSync(join(area, OWN_MARK), '');
  if (journal !== undefined) writeFileSync(join(area, '.journal'), journal);
  for (const [name, text] of Object.entries(aside)) writeFileSync(join(area, 'aside', name), text);
  return area;
}

function refusal(run: () => void): UserError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return err as UserError;
  }
  throw new Error('expected a refusal');
}

describe('a hostile journal never reaches outside --out', () => {
  const hostile = [
    ['a parent', '../victim.yaml'],
    ['a path through a directory', 'a/../../victim.yaml'],
    ['a hidden file', '.victim.yaml'],
  ] as const;
  for (const [what, name] of hostile) {
    for (const place of [[name], ['org.yaml', name]]) {
      it(`naming ${what} (${JSON.stringify(place)}): the file it names stays, even sealed as export wrote it under that name`, () => {
        const { base, out } = earlier();
        const victim = join(out, name);
        writeFileSync(victim, sealedAs(name));
        const area = plantArea(out, JSON.stringify({ place, replace: ['eng.yaml'] }));
        writeExport(out, files('new'), { force: true });
        expect(read(victim)).toBe(sealedAs(name));
        expect(existsSync(area)).toBe(false);
        expect(read(join(out, 'org.yaml'))).toContain('# new');
        expect(readdirSync(base).sort()).toEqual(name.includes('/') ? ['out', 'victim.yaml'] : ['out']);
      });
    }
  }
});

describe('a garbled or missing journal: the area is cleared, nothing else is touched', () => {
  const journals: [string, string | undefined][] = [
    ['missing', undefined],
    ['not JSON', '{"place": ['],
    ['null', 'null'],
    ['a number', '5'],
    ['a list', '[]'],
    ['place not a list', JSON.stringify({ place: 'org.yaml', replace: [] })],
    ['replace not a list', JSON.stringify({ place: ['org.yaml'], replace: 5 })],
    ['replace missing', JSON.stringify({ place: ['org.yaml'] })],
    ['a name not a string', JSON.stringify({ place: [5], replace: [] })],
    ['a name not a string in replace', JSON.stringify({ place: ['org.yaml'], replace: [{}] })],
  ];
  for (const [what, journal] of journals) {
    it(`a journal ${what}`, () => {
      const { out } = earlier();
      writeFileSync(join(out, 'notes.yaml'), 'mine\n');
      const area = plantArea(out, journal, { 'org.yaml': sealedAs('org.yaml') });
      writeExport(out, files('new'), { force: true });
      expect(existsSync(area)).toBe(false);
      expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'notes.yaml', 'org.yaml']);
      expect(read(join(out, 'org.yaml'))).toContain('# new');
      expect(read(join(out, 'notes.yaml'))).toBe('mine\n');
    });
  }

  it('an area with a journal and no aside directory: nothing to put back', () => {
    const { out } = earlier();
    const area = join(out, AREA);
    mkdirSync(area);
    writeFileSync(join(area, OWN_MARK), '');
    writeFileSync(join(area, '.journal'), JSON.stringify({ place: ['org.yaml', 'new.yaml'], replace: ['org.yaml'] }));
    writeExport(out, files('new'), { force: true });
    expect(existsSync(area)).toBe(false);
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'org.yaml']);
  });
});

describe('undoing a cut-short export takes out only the sealed files it placed', () => {
  const journal = JSON.stringify({ place: ['org.yaml'], replace: [] });

  it("a file of the user's at a name the journal says was placed stays", () => {
    const { out } = earlier();
    rmSync(join(out, 'org.yaml'));
    writeFileSync(join(out, 'org.yaml'), 'mine\n');
    plantArea(out, journal);
    expect(() => writeExport(out, files('new'), { force: true })).toThrow(/org\.yaml: not written by an export/);
    expect(read(join(out, 'org.yaml'))).toBe('mine\n');
  });

  it('a marked file edited since stays', () => {
    const { out } = earlier();
    const edited = `${read(join(out, 'org.yaml'))}mine: true\n`;
    writeFileSync(join(out, 'org.yaml'), edited);
    plantArea(out, journal);
    expect(() => writeExport(out, files('new'), { force: true })).toThrow(
      /org\.yaml: is marked as an export's but not as export wrote it/,
    );
    expect(read(join(out, 'org.yaml'))).toBe(edited);
  });

  it('a link at that name stays, and so does the sealed file it leads to outside --out', () => {
    const { base, out } = earlier();
    writeFileSync(join(base, 'target.yaml'), sealedAs('org.yaml'));
    rmSync(join(out, 'org.yaml'));
    symlinkSync(join(base, 'target.yaml'), join(out, 'org.yaml'));
    plantArea(out, journal);
    expect(() => writeExport(out, files('new'), { force: true })).toThrow(
      /org\.yaml \(a symlink\): not written by an export/,
    );
    expect(lstatSync(join(out, 'org.yaml')).isSymbolicLink()).toBe(true);
    expect(read(join(base, 'target.yaml'))).toBe(sealedAs('org.yaml'));
  });

  it('a file edited since the cut, at a name whose earlier file was set aside, is not replaced by it: an error naming both', () => {
    const { out } = earlier();
    const old = read(join(out, 'org.yaml'));
    const area = plantArea(
      out,
      JSON.stringify({ place: ['org.yaml', 'eng.yaml'], replace: ['org.yaml', 'eng.yaml'] }),
      { 'org.yaml': old },
    );
    const edited = `${sealExportFile('org.yaml', `# new\n# ${EXPORT_MARK}\n`)}mine: true\n`;
    writeFileSync(join(out, 'org.yaml'), edited);
    const err = refusal(() => writeExport(out, files('newer'), { force: true }));
    expect(err.code).toBe('EXPORT_WOULD_OVERWRITE');
    expect(err.message).toBe(
      `${join(out, 'org.yaml')}: changed since an export into ${out} was cut short, which had set aside the file it replaced there ` +
        `(kept as ${join(area, 'aside', 'org.yaml')}); move one of them away and export again; nothing was changed`,
    );
    expect(read(join(out, 'org.yaml'))).toBe(edited);
    expect(read(join(area, 'aside', 'org.yaml'))).toBe(old);
    expect(read(join(out, 'eng.yaml'))).toContain('# old');
  });
});

describe('undoing a cut-short export puts back what it set aside', () => {
  it('cut after setting its files aside, before placing any: they are put back, the area is cleared', () => {
    const { out } = earlier();
    const old = read(join(out, 'org.yaml'));
    const area = plantArea(
      out,
      JSON.stringify({ place: ['org.yaml', 'eng.yaml'], replace: ['org.yaml', 'eng.yaml'] }),
      {
        'org.yaml': old,
        'eng.yaml': read(join(out, 'eng.yaml')),
      },
    );
    rmSync(join(out, 'org.yaml'));
    rmSync(join(out, 'eng.yaml'));
    expect(() => writeExport(out, files('new'))).toThrow(/already exist; export does not overwrite/);
    expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'org.yaml']);
    expect(read(join(out, 'org.yaml'))).toBe(old);
    expect(existsSync(area)).toBe(false);
  });
});

describe("an area that is not a directory of --out's own is left alone", () => {
  it("a directory of the user's named like an area (no mark of export's) stays whole, journal or not", () => {
    for (const journal of [undefined, JSON.stringify({ place: ['org.yaml'], replace: ['org.yaml'] })]) {
      const { out } = earlier();
      const mine = join(out, '.platform-sync-export-notes');
      mkdirSync(join(mine, 'aside'), { recursive: true });
      writeFileSync(join(mine, 'notes.md'), 'mine\n');
      writeFileSync(join(mine, 'aside', 'org.yaml'), sealedAs('org.yaml'));
      if (journal !== undefined) writeFileSync(join(mine, '.journal'), journal);
      writeExport(out, files('new'), { force: true });
      expect(read(join(mine, 'notes.md'))).toBe('mine\n');
      expect(read(join(mine, 'aside', 'org.yaml'))).toBe(sealedAs('org.yaml'));
      expect(read(join(out, 'org.yaml'))).toContain('# new');
    }
  });

  it("in an area of export's, a file that is not a sealed export file stays, and so does the area", () => {
    const { out } = earlier();
    const area = plantArea(out, undefined, { 'org.yaml': sealedAs('org.yaml'), 'notes.md': 'mine\n' });
    writeExport(out, files('new'), { force: true });
    expect(readdirSync(join(area, 'aside'))).toEqual(['notes.md']);
    expect(read(join(out, 'org.yaml'))).toContain('# new');
  });

  it('a file named like an area stays as it is', () => {
    const { out } = earlier();
    writeFileSync(join(out, '.platform-sync-export-mine'), 'mine\n');
    writeExport(out, files('new'), { force: true });
    expect(read(join(out, '.platform-sync-export-mine'))).toBe('mine\n');
  });

  it('an area that is a link out of --out: nothing of where it leads is moved', () => {
    const { base, out } = earlier();
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(join(elsewhere, 'aside'), { recursive: true });
    writeFileSync(join(elsewhere, '.journal'), JSON.stringify({ place: ['x.yaml'], replace: ['x.yaml'] }));
    writeFileSync(join(elsewhere, 'aside', 'x.yaml'), 'not yours to move\n');
    symlinkSync(elsewhere, join(out, '.platform-sync-export-link'));
    writeExport(out, files('new'), { force: true });
    expect(read(join(elsewhere, 'aside', 'x.yaml'))).toBe('not yours to move\n');
    expect(existsSync(join(out, 'x.yaml'))).toBe(false);
  });

  it('an aside that is a link out of --out: nothing of where it leads is moved', () => {
    const { base, out } = earlier();
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'x.yaml'), 'not yours to move\n');
    const area = join(out, AREA);
    mkdirSync(area);
    writeFileSync(join(area, OWN_MARK), '');
    writeFileSync(join(area, '.journal'), JSON.stringify({ place: ['x.yaml'], replace: ['x.yaml'] }));
    symlinkSync(elsewhere, join(area, 'aside'));
    writeExport(out, files('new'), { force: true });
    expect(read(join(elsewhere, 'x.yaml'))).toBe('not yours to move\n');
    expect(existsSync(join(out, 'x.yaml'))).toBe(false);
    // The link is not export's to remove: it stays, and the area (its mark) with it.
    expect(readdirSync(area)).toEqual([OWN_MARK, 'aside']);
  });
});

describe('beside --out: only a stage of its own, only its own files in it', () => {
  /** A directory beside --out named as export names its stages or its old swaps, holding a file of the user's. */
  function plantBeside(base: string, name: string): string {
    mkdirSync(join(base, name));
    writeFileSync(join(base, name, 'notes.md'), 'mine\n');
    return join(base, name);
  }

  it("directories of the user's named like a stage or an older version's swap stay, --out there or not", () => {
    for (const outThere of [true, false]) {
      const base = join(dir, `case-${++fresh}`);
      mkdirSync(base);
      const out = join(base, 'out');
      if (outThere) writeExport(out, files('old'));
      const names = ['.out.export-notes', '.out.replaced-backup', '.out.export-abc123'];
      for (const name of names) plantBeside(base, name);
      writeExport(out, files('new'), { force: true });
      for (const name of names) expect(read(join(base, name, 'notes.md')), name).toBe('mine\n');
      expect(readdirSync(base).sort()).toEqual([...names, 'out'].sort());
      expect(readdirSync(out).sort()).toEqual(['eng.yaml', 'org.yaml']);
      expect(read(join(out, 'org.yaml'))).toContain('# new');
    }
  });

  it("a stage an export cut short left (its mark, sealed files) is cleared; a file of the user's in one stays", () => {
    const base = join(dir, `case-${++fresh}`);
    mkdirSync(base);
    const stage = (name: string, extra: Record<string, string>) => {
      mkdirSync(join(base, name));
      writeFileSync(join(base, name, OWN_MARK), '');
      for (const [file, text] of Object.entries({ 'org.yaml': sealedAs('org.yaml'), ...extra }))
        writeFileSync(join(base, name, file), text);
    };
    stage('.out.export-cut1', {});
    stage('.out.export-cut2', { 'notes.md': 'mine\n', 'eng.yaml': '# edited\n' });
    writeExport(join(base, 'out'), files('new'));
    expect(readdirSync(base).sort()).toEqual(['.out.export-cut2', 'out']);
    expect(readdirSync(join(base, '.out.export-cut2')).sort()).toEqual([OWN_MARK, 'eng.yaml', 'notes.md']);
    expect(read(join(base, 'out', 'org.yaml'))).toContain('# new');
  });
});

describe('export files of one name', () => {
  it('are refused before anything is written', () => {
    const out = join(dir, 'twice');
    const err = refusal(() => writeExport(out, [exported('org.yaml', 'a'), exported('org.yaml', 'b')]));
    expect(err.code).toBe('EXPORT_UNWRITABLE');
    expect(err.message).toBe('refusing to write the export file name "org.yaml" twice');
    expect(existsSync(out)).toBe(false);
  });
});
