/**
 * Address globs match in time linear in the address length whatever the number of `*` (DESIGN.md
 * §3, §8): a property test against a regular-expression reading of the same glob over generated
 * globs and addresses, and the backtracking bombs that kept `validate` at 100% CPU before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAddressGlob } from '../../src/model/address.js';
import { validateManifestTexts } from '../../src/manifest/index.js';

function oracle(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split('*')
      .map((run) => run.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\?/g, '.'))
      .join('.*')}$`,
  );
}

describe('address globs', () => {
  it('match exactly as the regular expression of the same glob, over generated globs and addresses', () => {
    const alphabet = fc.constantFrom('a', 'b', '/', ':', '=', '.');
    const address = fc.string({ unit: alphabet, maxLength: 14 });
    const glob = fc.string({ unit: fc.constantFrom('a', 'b', '/', ':', '*', '?', '.'), maxLength: 8 });
    fc.assert(
      fc.property(glob, address, (g, a) => {
        expect(compileAddressGlob(g).test(a)).toBe(oracle(g).test(a));
      }),
      { numRuns: 3000, seed: Number(process.env.INVARIANT_SEED ?? 7) },
    );
  });

  it('finish a 16-star glob against a long address at once (was exponential backtracking)', () => {
    const glob = `repo:${'*a'.repeat(16)}*c`;
    const name = 'a'.repeat(60);
    const t0 = performance.now();
    for (let i = 0; i < 100; i++) expect(compileAddressGlob(glob).test(`repo:${name}`)).toBe(false);
    // 100 matches: microseconds each, not seconds (a loose bound: the machines are shared).
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('keep validate of a manifest with that glob fast', () => {
    const text = `apiVersion: platform-sync/v1\norg:\n  name: acme\n  repos:\n    - name: ${'a'.repeat(40)}\nsettings:\n  ignore: ["repo:${'*a'.repeat(16)}*c"]\n`;
    const t0 = performance.now();
    expect(validateManifestTexts([{ file: 'm.yaml', text }]).diagnostics).toEqual([]);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});
