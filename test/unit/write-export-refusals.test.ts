/**
 * What export --out refuses, and the whole message a user reads (DESIGN.md §8 rev 6): a file name
 * that is not a plain name, an --out that is a file or lies under one, directories and files it
 * did not write at the names it writes, marked files edited or copied — one or several (the
 * wording follows the count; five are named, then how many in all). Each refusal writes nothing.
 * The seal goes under the mark line whatever the text around it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isSealedExportFile, sealExportFile, writeExport } from '../../src/export/write-export.js';
import { EXPORT_MARK } from '../../src/export/export-manifests.js';
import { UserError } from '../../src/model/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'write-export-refusals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const exported = (file: string, tag = 'old') => ({ file, text: `# ${tag}\n# ${EXPORT_MARK}\nname: ${file}\n` });
const files = (...names: string[]) => names.map((n) => exported(n, 'new'));
let fresh = 0;
/** A new directory holding an earlier export of `names`. */
function earlier(...names: string[]): string {
  const out = join(dir, `out-${++fresh}`);
  writeExport(
    out,
    names.map((n) => exported(n)),
  );
  return out;
}

/** The error `run` throws (it must throw). */
function refusal(run: () => void): UserError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return err as UserError;
  }
  throw new Error('expected a refusal');
}

const SEAL =
  /# platform-sync export seal [0-9a-f]{64} \(SHA-256 of this file as export wrote it: export --force replaces it only unchanged\)\n/;

describe('the seal line', () => {
  it('goes under a mark that ends the text without a newline, the line ended', () => {
    const sealed = sealExportFile('org.yaml', `# x\n# ${EXPORT_MARK}`);
    expect(sealed.startsWith(`# x\n# ${EXPORT_MARK}\n# platform-sync export seal `)).toBe(true);
    expect(sealed.replace(SEAL, '')).toBe(`# x\n# ${EXPORT_MARK}\n`);
    expect(isSealedExportFile('org.yaml', sealed)).toBe(true);
  });

  it('goes under a mark on the first line, and on top of a text without a mark', () => {
    const marked = sealExportFile('org.yaml', `${EXPORT_MARK}\nname: x\n`);
    expect(marked.split('\n')[0]).toBe(EXPORT_MARK);
    expect(marked.split('\n')[2]).toBe('name: x');
    expect(marked.replace(SEAL, '')).toBe(`${EXPORT_MARK}\nname: x\n`);
    const unmarked = sealExportFile('org.yaml', 'name: x\nmore: y\n');
    expect(unmarked).toMatch(new RegExp(`^${SEAL.source}name: x\\nmore: y\\n$`));
    expect(isSealedExportFile('org.yaml', unmarked)).toBe(false); // no mark: never an export's
  });
});

describe('export --out refuses, writing nothing', () => {
  it('a file name that is not a plain name: another directory, a hidden file', () => {
    const out = join(dir, 'names');
    for (const name of ['../x.yaml', 'sub/x.yaml', '.hidden.yaml']) {
      const err = refusal(() => writeExport(out, [exported('org.yaml'), exported(name)]));
      expect(err.code).toBe('EXPORT_UNWRITABLE');
      expect(err.message).toBe(`refusing to write the export file name ${JSON.stringify(name)}`);
    }
    expect(readdirSync(dir)).not.toContain('names');
    expect(readdirSync(dir)).not.toContain('x.yaml');
  });

  it('an --out that is a file: a file in the way of the directory', () => {
    const out = join(dir, 'a-file');
    writeFileSync(out, 'mine\n');
    const err = refusal(() => writeExport(out, files('org.yaml')));
    expect(err.code).toBe('EXPORT_UNWRITABLE');
    expect(err.message).toBe(
      `cannot write the export to ${out}: ENOTDIR (a file is in the way of the directory); nothing was written`,
    );
    expect(err.cause).toMatchObject({ code: 'ENOTDIR', message: 'not a directory' });
    expect(readFileSync(out, 'utf8')).toBe('mine\n');
  });

  it('an --out under a link in a loop: the reason, and no hint of a file in the way', () => {
    const loop = join(dir, 'loop');
    symlinkSync(loop, loop);
    const out = join(loop, 'sub');
    const err = refusal(() => writeExport(out, files('org.yaml')));
    expect(err.code).toBe('EXPORT_UNWRITABLE');
    expect(err.message).toBe(`cannot write the export to ${out}: ELOOP; nothing was written`);
    expect(err.cause).toMatchObject({ code: 'ELOOP' });
  });

  it('an --out that is a link to no directory', () => {
    const out = join(dir, 'dangling');
    symlinkSync(join(dir, 'nowhere'), out);
    const err = refusal(() => writeExport(out, files('org.yaml')));
    expect(err.code).toBe('EXPORT_UNWRITABLE');
    expect(err.message).toBe(
      `cannot write the export to ${out}: it is a symbolic link that leads to no directory; nothing was written`,
    );
  });

  it('a directory at a name it writes: one, or several', () => {
    const out = earlier('org.yaml');
    mkdirSync(join(out, 'eng.yaml'));
    const one = refusal(() => writeExport(out, files('org.yaml', 'eng.yaml'), { force: true }));
    expect(one.code).toBe('EXPORT_WOULD_OVERWRITE');
    expect(one.message).toBe(`${join(out, 'eng.yaml')} is a directory; export writes files there`);
    mkdirSync(join(out, 'ops.yaml'));
    const two = refusal(() => writeExport(out, files('org.yaml', 'eng.yaml', 'ops.yaml'), { force: true }));
    expect(two.message).toBe(
      `${join(out, 'eng.yaml')}, ${join(out, 'ops.yaml')} are directories; export writes files there`,
    );
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toContain('# old');
  });

  it('without --force, a file or a link at a name it writes: one, or several', () => {
    const out = earlier('org.yaml');
    const one = refusal(() => writeExport(out, files('org.yaml')));
    expect(one.code).toBe('EXPORT_WOULD_OVERWRITE');
    expect(one.message).toBe(
      `${join(out, 'org.yaml')} already exists; export does not overwrite files unless --force; nothing was written`,
    );
    symlinkSync(join(dir, 'nowhere'), join(out, 'eng.yaml'));
    const two = refusal(() => writeExport(out, files('org.yaml', 'eng.yaml')));
    expect(two.message).toBe(
      `${join(out, 'org.yaml')}, ${join(out, 'eng.yaml')} (a symlink) already exist; export does not overwrite files unless --force; nothing was written`,
    );
  });

  it('with --force, a file it did not write at a name it writes: it, or them', () => {
    const out = earlier('org.yaml');
    writeFileSync(join(out, 'eng.yaml'), 'mine\n');
    const one = refusal(() => writeExport(out, files('org.yaml', 'eng.yaml'), { force: true }));
    expect(one.code).toBe('EXPORT_WOULD_OVERWRITE');
    const why = 'not written by an export; export --force replaces only the files of an earlier export';
    expect(one.message).toBe(
      `${join(out, 'eng.yaml')}: ${why}, so move it away or export to another directory; nothing was written`,
    );
    writeFileSync(join(out, 'ops.yaml'), 'mine too\n');
    const two = refusal(() => writeExport(out, files('org.yaml', 'eng.yaml', 'ops.yaml'), { force: true }));
    expect(two.message).toBe(
      `${join(out, 'eng.yaml')}, ${join(out, 'ops.yaml')}: ${why}, so move them away or export to another directory; nothing was written`,
    );
    expect(readFileSync(join(out, 'eng.yaml'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toContain('# old');
  });

  it('with --force, a marked file edited or copied under another name: it, or them', () => {
    const out = earlier('org.yaml', 'eng.yaml');
    writeFileSync(join(out, 'eng.yaml'), `${readFileSync(join(out, 'eng.yaml'), 'utf8')}mine: true\n`);
    const one = refusal(() => writeExport(out, files('org.yaml', 'eng.yaml'), { force: true }));
    expect(one.code).toBe('EXPORT_WOULD_OVERWRITE');
    const marked = (is: string, it: string) =>
      `${is} marked as an export's but not as export wrote ${it} (edited, or copied under another name): yours, so export --force leaves ${it}; ` +
      `move ${it} away or remove the mark; nothing was written`;
    expect(one.message).toBe(`${join(out, 'eng.yaml')}: ${marked('is', 'it')}`);
    writeFileSync(join(out, 'copy.yaml'), readFileSync(join(out, 'org.yaml')));
    const two = refusal(() => writeExport(out, files('org.yaml', 'eng.yaml'), { force: true }));
    expect(two.message).toBe(`${join(out, 'copy.yaml')}, ${join(out, 'eng.yaml')}: ${marked('are', 'them')}`);
    expect(readFileSync(join(out, 'eng.yaml'), 'utf8')).toContain('mine: true');
    expect(readFileSync(join(out, 'org.yaml'), 'utf8')).toContain('# old');
  });

  it('names five of many, then how many in all; exactly five, all of them', () => {
    const names = ['a.yaml', 'b.yaml', 'c.yaml', 'd.yaml', 'e.yaml', 'f.yaml'];
    const out = join(dir, 'many');
    mkdirSync(out);
    for (const n of names) writeFileSync(join(out, n), 'mine\n');
    const why =
      'not written by an export; export --force replaces only the files of an earlier export, so move them away or export to another directory';
    const five = names
      .slice(0, 5)
      .map((n) => join(out, n))
      .join(', ');
    const six = refusal(() => writeExport(out, files(...names), { force: true }));
    expect(six.message).toBe(`${five}, … 6 in all: ${why}; nothing was written`);
    const exactly = refusal(() => writeExport(out, files(...names.slice(0, 5)), { force: true }));
    expect(exactly.message).toBe(`${five}: ${why}; nothing was written`);
  });
});

describe('a file the redaction would change', () => {
  it('is refused, naming it, and nothing is written: an export holds no secret and no [REDACTED] in its place', () => {
    const out = join(dir, 'held-secret');
    const redact = (text: string) => text.replaceAll('s3cret-value-1', '[REDACTED]');
    const texts = [exported('org.yaml'), { file: 'b.yaml', text: `# ${EXPORT_MARK}\ndescription: s3cret-value-1\n` }];
    const err = refusal(() => writeExport(out, texts, { redact }));
    expect(err.message).toBe(
      'refusing to write the export: b.yaml would hold a secret this run holds, written only as [REDACTED]; nothing was written',
    );
    expect(err.message).not.toContain('s3cret');
    expect(() => readdirSync(out)).toThrow(/ENOENT/);
  });
});
