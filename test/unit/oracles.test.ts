/**
 * Oracles of their own (issue 47 item 3, STYLE.md 17): what judges the product in
 * test/invariants imports none of the product's judgement — its access model, its field tables,
 * its kind descriptors, its audit — only what it tests (plan, apply, read, the emulator) and
 * types. Read from the syntax tree (rolldown's parser, as the architecture tests read), so that a comment or a string naming
 * a module is not an import, and an import split over lines is one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSource, runtimeImportsOf } from '../support/source-graph.js';
import { describe, expect, it } from 'vitest';

const INVARIANTS = join(import.meta.dirname, '..', 'invariants');
/** Modules whose answers would judge the product by itself. */
const JUDGEMENT = [
  /\/src\/access\//,
  /\/src\/plan\/fields\.js$/,
  /\/src\/model\/kinds(\/|\.js$)/,
  /\/src\/model\/kind-descriptor\.js$/,
  /\/src\/audit\//,
];

/** The modules a file imports for their values (type-only imports are erased and run nothing), from its syntax tree. */
function valueImports(text: string, fileName = 'file.ts'): string[] {
  return runtimeImportsOf(parseSource(text, fileName)).map((i) => i.source);
}

describe('oracles of their own', () => {
  it('reads imports from the syntax tree: a comment or a string is no import, a type-only import runs nothing', () => {
    expect(
      valueImports(
        "// import { x } from '../../src/access/relation.js';\nconst s = \"from '../../src/access/x.js'\";\nimport type { A } from '../../src/access/relation.js';\nimport {\n  type B,\n  c,\n} from '../../src/plan/fields.js';",
      ),
    ).toEqual(['../../src/plan/fields.js']);
  });

  it('nothing under test/invariants imports the access model, field tables, kind descriptors or audit to judge', () => {
    const found: string[] = [];
    for (const name of readdirSync(INVARIANTS).filter((n) => n.endsWith('.ts'))) {
      for (const spec of valueImports(readFileSync(join(INVARIANTS, name), 'utf8'), name))
        if (JUDGEMENT.some((j) => j.test(spec))) found.push(`${name} imports ${spec}`);
    }
    expect(found).toEqual([]);
  });
});
