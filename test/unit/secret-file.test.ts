/**
 * The invite-codes file (DESIGN.md §4, §8 rev 5): a regular file of the user running apply,
 * never a link, made 0600. Another user's file is refused before anything is written (issue 50).
 */
import { chownSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSecretFile } from '../../src/io/write-file.js';

const dir = mkdtempSync(join(tmpdir(), 'secret-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const root = process.getuid?.() === 0;

describe('the invite-codes file', () => {
  it('is made 0600 and appended to', () => {
    const path = join(dir, 'codes.jsonl');
    const file = openSecretFile(path, 'invite codes');
    file.appendLine('{"code":"a"}');
    file.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe('{"code":"a"}\n');
  });

  it('starts on a line of its own after a line an earlier run was killed in the middle of', () => {
    const path = join(dir, 'cut-short.jsonl');
    writeFileSync(path, '{"code":"a"}\n{"code":"b', { mode: 0o600 });
    // Opened and closed with nothing kept: left as it was.
    openSecretFile(path, 'invite codes').close();
    expect(readFileSync(path, 'utf8')).toBe('{"code":"a"}\n{"code":"b');
    const file = openSecretFile(path, 'invite codes');
    file.appendLine('{"code":"c"}');
    file.appendLine('{"code":"d"}');
    file.close();
    expect(readFileSync(path, 'utf8')).toBe('{"code":"a"}\n{"code":"b\n{"code":"c"}\n{"code":"d"}\n');
    // A file that ends its lines (or is empty) gets nothing more than its lines.
    const whole = join(dir, 'whole.jsonl');
    writeFileSync(whole, '{"code":"a"}\n', { mode: 0o600 });
    openSecretFile(whole, 'invite codes').close();
    expect(readFileSync(whole, 'utf8')).toBe('{"code":"a"}\n');
  });

  it('refuses a link, naming it, before any write', () => {
    const target = join(dir, 'target.jsonl');
    writeFileSync(target, '');
    symlinkSync(target, join(dir, 'link.jsonl'));
    expect(() => openSecretFile(join(dir, 'link.jsonl'), 'invite codes')).toThrow('is a symbolic link');
    expect(readFileSync(target, 'utf8')).toBe('');
  });

  it.skipIf(!root)("refuses another user's file before any write (run as root, which can make one)", () => {
    const theirs = join(dir, 'theirs.jsonl');
    writeFileSync(theirs, 'their line\n', { mode: 0o666 });
    chownSync(theirs, 65534, 65534);
    const mode = statSync(theirs).mode;
    expect(() => openSecretFile(theirs, 'invite codes')).toThrow(
      'it belongs to another user (uid 65534, not 0); name a file of your own',
    );
    expect(readFileSync(theirs, 'utf8')).toBe('their line\n');
    expect(statSync(theirs).mode).toBe(mode);
  });
});
