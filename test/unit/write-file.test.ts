/**
 * The one writer of files (src/io/write-file.ts, issue 52): whole files atomically and redacted,
 * an exclusive write that never replaces a file, a failure that names the file and leaves nothing.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendUserFile, writeUserFile, writeUserFiles } from '../../src/io/write-file.js';

const dir = mkdtempSync(join(tmpdir(), 'write-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const redact = (text: string) => text.replaceAll('hunter2-secret', '[REDACTED]');
const NOBODY = 65534;

describe('writeUserFile', () => {
  it('writes the redacted text, replacing what was there, and leaves no temporary file', () => {
    const path = join(dir, 'report.sarif');
    writeFileSync(path, 'old');
    writeUserFile(path, 'new hunter2-secret', 'the report', { redact });
    expect(readFileSync(path, 'utf8')).toBe('new [REDACTED]');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('exclusive: a file that exists is never replaced, and the error names it', () => {
    const path = join(dir, 'README.md');
    writeFileSync(path, 'mine');
    expect(() => writeUserFile(path, 'starter', 'the README', { redact, exclusive: true })).toThrow(
      /cannot write the README to .*README\.md/,
    );
    expect(readFileSync(path, 'utf8')).toBe('mine');
    writeUserFile(join(dir, 'new.md'), 'starter', 'the README', { redact, exclusive: true });
    expect(readFileSync(join(dir, 'new.md'), 'utf8')).toBe('starter');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a directory that does not exist is a clear error, and nothing is left', () => {
    expect(() => writeUserFile(join(dir, 'missing', 'x.json'), 'x', 'the plan', { redact })).toThrow(
      /cannot write the plan to .*x\.json: its directory .* does not exist/,
    );
  });

  it('appends redacted text', () => {
    const path = join(dir, 'summary.md');
    appendUserFile(path, 'a hunter2-secret\n', 'the summary', redact);
    appendUserFile(path, 'b\n', 'the summary', redact);
    expect(readFileSync(path, 'utf8')).toBe('a [REDACTED]\nb\n');
  });
});

describe('writeUserFile keeps what it replaces', () => {
  it("a replaced file keeps its permission bits; a new one is the umask's 0644", () => {
    const path = join(dir, 'private.json');
    writeFileSync(path, 'old');
    chmodSync(path, 0o600);
    writeUserFile(path, 'new', 'the plan', { redact });
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    writeUserFile(join(dir, 'fresh.json'), 'x', 'the plan', { redact });
    expect(statSync(join(dir, 'fresh.json')).mode & 0o777).toBe(0o644 & ~process.umask());
  });
});

describe('writeUserFiles: all or none', () => {
  let fresh = 0;
  /** A directory of its own holding `a.yaml` and `b.yaml`. */
  function twoFiles(): string {
    const at = join(dir, `set-${++fresh}`);
    mkdirSync(at);
    writeFileSync(join(at, 'a.yaml'), 'a: old\n');
    writeFileSync(join(at, 'b.yaml'), 'b: old\n');
    return at;
  }
  const entries = (at: string) => readdirSync(at).sort();

  it('writes every file, redacted, and leaves nothing staged', () => {
    const at = twoFiles();
    writeUserFiles(
      [
        { path: join(at, 'a.yaml'), text: 'a: new hunter2-secret\n', what: 'the manifest' },
        { path: join(at, 'b.yaml'), text: 'b: new\n', what: 'the manifest' },
        { path: join(at, 'r.md'), text: 'report\n', what: 'the drift report' },
      ],
      { redact },
    );
    expect(readFileSync(join(at, 'a.yaml'), 'utf8')).toBe('a: new [REDACTED]\n');
    expect(readFileSync(join(at, 'b.yaml'), 'utf8')).toBe('b: new\n');
    expect(entries(at)).toEqual(['a.yaml', 'b.yaml', 'r.md']);
  });

  it('a file that cannot be written, after others: an error naming it, nothing written, nothing left', () => {
    const at = twoFiles();
    const missing = join(at, 'missing', 'r.md');
    expect(() =>
      writeUserFiles(
        [
          { path: join(at, 'a.yaml'), text: 'a: new\n', what: 'the manifest' },
          { path: join(at, 'b.yaml'), text: 'b: new\n', what: 'the manifest' },
          { path: missing, text: 'report\n', what: 'the drift report' },
        ],
        { redact },
      ),
    ).toThrow(
      `cannot write the drift report to ${missing}: its directory ${join(at, 'missing')} does not exist; nothing was written`,
    );
    expect(readFileSync(join(at, 'a.yaml'), 'utf8')).toBe('a: old\n');
    expect(readFileSync(join(at, 'b.yaml'), 'utf8')).toBe('b: old\n');
    expect(entries(at)).toEqual(['a.yaml', 'b.yaml']);
  });

  it('refuseLink: a link is refused before any write; without it, the link is replaced, never written through', () => {
    const at = twoFiles();
    symlinkSync('b.yaml', join(at, 'link.yaml'));
    const files = [
      { path: join(at, 'a.yaml'), text: 'a: new\n', what: 'the manifest' },
      { path: join(at, 'link.yaml'), text: 'link: new\n', what: 'the manifest', refuseLink: true },
    ];
    expect(() => writeUserFiles(files, { redact })).toThrow(
      `cannot write the manifest to ${join(at, 'link.yaml')}: it is a symbolic link, which is neither replaced nor written through; name the file it leads to; nothing was written`,
    );
    expect(readFileSync(join(at, 'a.yaml'), 'utf8')).toBe('a: old\n');
    expect(readlinkSync(join(at, 'link.yaml'))).toBe('b.yaml');
    expect(readFileSync(join(at, 'b.yaml'), 'utf8')).toBe('b: old\n');
    writeUserFiles([{ ...files[1]!, refuseLink: false }], { redact });
    expect(lstatSync(join(at, 'link.yaml')).isFile()).toBe(true);
    expect(readFileSync(join(at, 'b.yaml'), 'utf8')).toBe('b: old\n');
  });

  it('one path twice, or a directory: refused before any write', () => {
    const at = twoFiles();
    const a = { path: join(at, 'a.yaml'), text: 'a: new\n', what: 'the manifest' };
    expect(() => writeUserFiles([a, { ...a, path: `${at}/./a.yaml`, what: 'the drift report' }], { redact })).toThrow(
      `cannot write the drift report to ${at}/./a.yaml: the manifest is written there too; nothing was written`,
    );
    expect(() => writeUserFiles([a, { ...a, path: at }], { redact })).toThrow(`${at} is a directory; name a file`);
    expect(readFileSync(join(at, 'a.yaml'), 'utf8')).toBe('a: old\n');
    expect(entries(at)).toEqual(['a.yaml', 'b.yaml']);
  });

  // A rename that fails once every file is staged: another user's file in a sticky directory
  // (root may replace it, so the writer runs as nobody, which only root can arrange).
  it.skipIf(process.getuid?.() !== 0)('a rename that fails puts back the files renamed before it', () => {
    // Outside this run's private temporary directory, which nobody cannot enter.
    const at = mkdtempSync('/tmp/write-file-sticky-');
    try {
      const mine = join(at, 'mine');
      const shared = join(at, 'shared');
      mkdirSync(mine);
      mkdirSync(shared);
      chmodSync(at, 0o755);
      chmodSync(shared, 0o1777); // like /tmp: anyone makes files, only a file's owner replaces it
      writeFileSync(join(mine, 'a.yaml'), 'a: old\n');
      writeFileSync(join(shared, 'b.yaml'), 'b: old\n', { mode: 0o666 });
      chmodSync(join(shared, 'b.yaml'), 0o666);
      chownSync(mine, NOBODY, NOBODY);
      chownSync(join(mine, 'a.yaml'), NOBODY, NOBODY);
      const files = [
        { path: join(mine, 'a.yaml'), text: 'a: new\n', what: 'the manifest' },
        { path: join(shared, 'b.yaml'), text: 'b: new\n', what: 'the manifest' },
      ];
      const writer = join(process.cwd(), 'dist', 'src', 'io', 'write-file.js');
      const script = `import(${JSON.stringify(writer)}).then((m) => { try { m.writeUserFiles(${JSON.stringify(files)}, { redact: (t) => t }); } catch (err) { process.stdout.write(err.message); } })`;
      const run = spawnSync(process.execPath, ['-e', script], { uid: NOBODY, gid: NOBODY, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe(
        `cannot write the manifest to ${join(shared, 'b.yaml')}: permission denied; nothing was written`,
      );
      expect(readFileSync(join(mine, 'a.yaml'), 'utf8')).toBe('a: old\n');
      expect(readFileSync(join(shared, 'b.yaml'), 'utf8')).toBe('b: old\n');
      expect(readdirSync(mine)).toEqual(['a.yaml']);
      expect(readdirSync(shared)).toEqual(['b.yaml']);
    } finally {
      rmSync(at, { recursive: true, force: true });
    }
  });
});
