/**
 * The tests load the generated validators as the build compiled them, by Node (test/support/
 * compiled-validators.ts) — and only while the build's copy is as new as the source.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GENERATED_VALIDATORS } from '../../scripts/source-graph.js';
import { compiledValidators, compiledValidatorsPlugin, externalPatterns } from '../support/compiled-validators.js';
import { makeTempDir } from '../support/temp-dirs.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const temp = makeTempDir('compiled-validators');
afterAll(temp.remove);

/** A root holding each generated validator's source and, where `builtAge` says, its build at that age (seconds). */
function rootWith(builtAge: (module: string) => number | undefined): string {
  const root = join(temp.dir, `root-${Math.random().toString(36).slice(2)}`);
  for (const module of GENERATED_VALIDATORS) {
    const source = join(root, 'src', module);
    mkdirSync(join(source, '..'), { recursive: true });
    writeFileSync(source, '// source\n');
    utimesSync(source, 1_000_000, 1_000_000);
    const age = builtAge(module);
    if (age === undefined) continue;
    const built = join(root, 'dist', 'src', module.replace(/\.ts$/, '.js'));
    mkdirSync(join(built, '..'), { recursive: true });
    writeFileSync(built, '// built\n');
    utimesSync(built, 1_000_000 - age, 1_000_000 - age);
  }
  return root;
}

describe('the generated validators as the build compiled them', () => {
  it('are used only where the build is as new as the source', () => {
    const [first, second, third] = GENERATED_VALIDATORS;
    const root = rootWith((m) => (m === first ? 0 : m === second ? 60 : undefined));
    const compiled = compiledValidators(root);
    expect([...compiled]).toEqual([
      [join(root, 'src', first!), join(root, 'dist', 'src', first!.replace(/\.ts$/, '.js'))],
    ]);
    expect(compiled.has(join(root, 'src', second!))).toBe(false); // the source is newer: npm run generate after the build
    expect(compiled.has(join(root, 'src', third!))).toBe(false); // never built
  });

  it('are what src/ imports resolve to, and nothing else is', () => {
    const root = rootWith(() => 0);
    const plugin = compiledValidatorsPlugin(compiledValidators(root));
    const resolveId = plugin.resolveId as (id: string, importer?: string) => string | undefined;
    expect(resolveId('./contract-validators.js', join(root, 'src', 'emulator', 'contract.ts'))).toBe(
      join(root, 'dist', 'src', 'emulator', 'contract-validators.js'),
    );
    expect(resolveId('../emulator/contract-validators.js', join(root, 'src', 'saved-plan', 'x.ts'))).toBe(
      join(root, 'dist', 'src', 'emulator', 'contract-validators.js'),
    );
    expect(resolveId('./contract-keys.js', join(root, 'src', 'emulator', 'contract.ts'))).toBeUndefined();
    expect(resolveId('ajv', join(root, 'src', 'emulator', 'contract.ts'))).toBeUndefined();
    // An edited copy (the field experiment's) loads its own validators.
    const copy = join(temp.dir, 'copy', 'src', 'emulator', 'contract.ts');
    expect(resolveId('./contract-validators.js', copy)).toBeUndefined();
    const [pattern] = externalPatterns(compiledValidators(root)).filter((p) => p.source.includes('contract'));
    expect(pattern!.test(join(root, 'dist', 'src', 'emulator', 'contract-validators.js'))).toBe(true);
    expect(pattern!.test(join(root, 'dist', 'src', 'emulator', 'contract-validators.js.map'))).toBe(false);
    expect(pattern!.test(join(root, 'dist', 'src', 'emulator', 'contract-validatorsXjs'))).toBe(false);
  });

  it('are, in this run, the very modules Node loads from dist (when the build is fresh)', async () => {
    const source = join(ROOT, 'src', 'emulator', 'contract-validators.ts');
    const built = compiledValidators(ROOT).get(source);
    const viaSource = await import('../../src/emulator/contract-validators.js');
    // Node's own loader, which vitest does not see (require of an ES module: Node's module map).
    const viaDist = createRequire(import.meta.url)(join(ROOT, 'dist', 'src', 'emulator', 'contract-validators.js'));
    // Fresh (npm test builds first): one module, Node's. Stale: vite's copy of the source, another.
    if (built !== undefined) expect(viaSource).toBe(viaDist);
    else expect(viaSource).not.toBe(viaDist);
    expect(viaSource.CONTRACT_SHA256).toBe(viaDist.CONTRACT_SHA256);
  });
});
