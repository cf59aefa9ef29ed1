/**
 * Files shipped at the package root (schemas/…), found by walking up from this module: the
 * same code runs from `src/` (tests) and from `dist/src/` (the built CLI, the published package).
 */
import { existsSync } from 'node:fs';
import { readPackageText } from './read-file.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function findPackageFile(relativePath: string): string {
  const here = fileURLToPath(import.meta.url);
  let dir = dirname(here);
  for (;;) {
    const candidate = join(dir, relativePath);
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error(`${relativePath} not found above ${here}`);
    dir = up;
  }
}

let version: string | undefined;

/** platform-sync's own version (package.json), read once. */
export function packageVersion(): string {
  version ??= (JSON.parse(readPackageText(findPackageFile('package.json'))) as { version: string }).version;
  return version;
}
