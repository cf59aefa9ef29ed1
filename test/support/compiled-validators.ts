/**
 * The generated validators (`npm run generate`: ajv's standalone code, up to 800 KB a module) as
 * the build compiled them, loaded by Node itself (issue 63: a suite in a minute). Vite rewrote each
 * for its module runner on every run — 1.0–1.2 s of the main thread's time for the three, about a
 * third of loading the whole of src/ (and the workers wait for it at the start) — though they are
 * plain JavaScript that imports only Node and ajv's runtime. `npm test` builds first, so dist/src
 * holds tsc's output of the same text; a test that imports `src/…/contract-validators.js` gets
 * `dist/src/…/contract-validators.js`, not transformed.
 *
 * Only when dist's copy is at least as new as the source: `npm run generate` writes the sources
 * after its build, a checkout of another branch rewrites them — then the source is loaded as
 * before, through vite. The edited copies the field experiment loads are not src/: untouched.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Plugin } from 'vite';
import { GENERATED_VALIDATORS } from '../../scripts/source-graph.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** src/<validator>.ts → dist/src/<validator>.js, for each generated validator dist holds as new as its source. */
export function compiledValidators(root = ROOT): Map<string, string> {
  const compiled = new Map<string, string>();
  for (const module of GENERATED_VALIDATORS) {
    const source = join(root, 'src', module);
    const built = join(root, 'dist', 'src', module.replace(/\.ts$/, '.js'));
    if (existsSync(built) && statSync(built).mtimeMs >= statSync(source).mtimeMs) compiled.set(source, built);
  }
  return compiled;
}

/** What vitest leaves to Node (`server.deps.external`: a string there names a package, so a pattern per file). */
export function externalPatterns(compiled: Map<string, string>): RegExp[] {
  return [...compiled.values()].map((file) => new RegExp(`^${file.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')}$`));
}

/** A vite plugin that resolves the generated validators to their compiled copies (vitest must leave those to Node). */
export function compiledValidatorsPlugin(compiled: Map<string, string>): Plugin {
  return {
    name: 'platform-sync:compiled-validators',
    enforce: 'pre',
    resolveId(id, importer) {
      if (importer === undefined || !id.startsWith('.')) return undefined;
      const target = resolve(importer, '..', id.replace(/\.js$/, '.ts'));
      return compiled.get(target);
    },
  };
}
