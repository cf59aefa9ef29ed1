/**
 * The door's bound (src/io/read-file.ts) is the bytes actually read, whatever the file's size
 * says: a file at the bound reads whole, one byte more is refused, and a file whose size says 0
 * (Linux's /proc) reads on to its end.
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileReadError, readFileSyncBounded } from '../../src/io/read-file.js';

const dir = mkdtempSync(join(tmpdir(), 'ps-read-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fileOf(bytes: number): { path: string; content: Buffer } {
  const content = Buffer.alloc(bytes, 0);
  for (let i = 0; i < bytes; i++) content[i] = 97 + (i % 26);
  const path = join(dir, `f-${bytes}`);
  writeFileSync(path, content);
  return { path, content };
}

describe('reading a file through the door', () => {
  it.each([0, 1, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 300_000])(
    'reads a file of %i bytes whole, at its bound',
    (bytes) => {
      const { path, content } = fileOf(bytes);
      expect(readFileSyncBounded(path, { maxBytes: bytes }).equals(content)).toBe(true);
    },
  );

  it.each([1, 64 * 1024, 300_000])('refuses a file of %i bytes one byte over its bound', (bytes) => {
    const { path } = fileOf(bytes);
    expect(() => readFileSyncBounded(path, { maxBytes: bytes - 1 })).toThrow(FileReadError);
    try {
      readFileSyncBounded(path, { maxBytes: bytes - 1 });
    } catch (err) {
      expect((err as FileReadError).code).toBe('too-large');
    }
  });

  it.runIf(existsSync('/proc/self/status'))(
    'reads a file whose size says 0 to its end, and bounds it by what it read',
    () => {
      const text = readFileSyncBounded('/proc/self/status', { maxBytes: 1 << 20 }).toString('utf8');
      expect(text).toMatch(/^Name:/);
      expect(text).toContain('\nPid:');
      expect(() => readFileSyncBounded('/proc/self/status', { maxBytes: 10 })).toThrow(/is larger than/);
    },
  );
});
