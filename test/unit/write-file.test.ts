/**
 * The one writer of files (src/io/write-file.ts, issue 52): whole files atomically and redacted,
 * an exclusive write that never replaces a file, a failure that names the file and leaves nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appendUserFile, writeUserFile } from '../../src/io/write-file.js';

const dir = mkdtempSync(join(tmpdir(), 'write-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const redact = (text: string) => text.replaceAll('hunter2-secret', '[REDACTED]');

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
