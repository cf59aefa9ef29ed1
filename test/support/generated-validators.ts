/**
 * The generated validators (`npm run generate`: ajv's JavaScript, up to 800 KB a module, which
 * imports only Node and ajv's runtime) are loaded by Node itself, not rewritten by vite for its
 * module runner (issue 63: a suite in a minute): that took 1.0–1.2 s of the main thread on every
 * run — a third of loading the whole of src/, while the workers waited for it.
 */
import { join, resolve } from 'node:path';
import { GENERATED_VALIDATORS } from '../../scripts/generated-validators.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** What vitest leaves to Node (`server.deps.external`; a string there names a package, so a pattern per file). */
export function generatedValidatorPatterns(root = ROOT): RegExp[] {
  return GENERATED_VALIDATORS.map((module) => {
    const file = join(root, 'src', module);
    return new RegExp(`^${file.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')}$`);
  });
}
