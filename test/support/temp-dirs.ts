/**
 * Temporary directories of the tests (`makeTempDir`): each removed by its test's own cleanup, and
 * — for a describe block whose tests were all skipped (`-t`, `.skip`), whose afterAll never runs —
 * by this setup file after each test file. What is left after that is a real leak, and the run's
 * own temporary directory names it (own-temp-dir.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made = new Set<string>();

/** A fresh temporary directory and a function that removes it. */
export function makeTempDir(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `platform-sync-${prefix}-`));
  made.add(dir);
  return {
    dir,
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      made.delete(dir);
    },
  };
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
});
