/**
 * The shape of the code (STYLE.md, issue "kinds that own their knowledge"): library modules do
 * not import views (only the views, the CLI and the Action's shell — both front-ends — and the
 * public barrel do), and src/model has no import circle at run time (type-only imports are
 * erased, so they do not count).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');
const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .map((f) => join(SRC, f));

/** Relative modules a file imports at run time (`import type` and `export type` left out). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']+)';/gms)) {
    if (m[2]) continue;
    out.push(resolve(dirname(file), m[3]!.replace(/\.js$/, '.ts')));
  }
  for (const m of text.matchAll(/^import\s+'(\.[^']+)';/gm)) out.push(resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
  return out;
}

describe('architecture', () => {
  it('no library module imports a view (views, the CLI, the Action shell and the public barrel may)', () => {
    const allowed = (file: string) => {
      const rel = relative(SRC, file);
      return rel.startsWith('views/') || rel.startsWith('cli/') || rel.startsWith('action/') || rel === 'index.ts' || rel === 'demo.ts';
    };
    const offenders: string[] = [];
    for (const file of files) {
      if (allowed(file)) continue;
      for (const target of runtimeImports(file)) if (relative(SRC, target).startsWith('views/')) offenders.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
    }
    expect(offenders).toEqual([]);
  });

  it('src/model has no import circle at run time', () => {
    const model = files.filter((f) => relative(SRC, f).startsWith('model/'));
    const graph = new Map(model.map((f) => [f, runtimeImports(f).filter((t) => relative(SRC, t).startsWith('model/'))]));
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(SRC, f)).join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of model) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('a kind is named only by its descriptor: no module outside src/model/kinds names the readme sub-resource', () => {
    // The emulator is the server (its own contract names the path); the schema validator is generated from the schema.
    const exempt = (rel: string) => rel.startsWith('model/kinds/') || rel.startsWith('emulator/') || rel === 'manifest/schema-validator.ts';
    const offenders = files
      .map((f) => relative(SRC, f))
      .filter((rel) => !exempt(rel))
      .flatMap((rel) => readFileSync(join(SRC, rel), 'utf8').split('\n').flatMap((line, i) => (/readme/.test(line) ? [`${rel}:${i + 1}: ${line.trim()}`] : [])));
    expect(offenders).toEqual([]);
  });

  it('safety rules and step references use descriptor properties, never a kind name', () => {
    const text = readFileSync(join(SRC, 'plan', 'safety.ts'), 'utf8');
    expect(text.match(/kind\s*[!=]==\s*'[a-zA-Z]+'/g) ?? []).toEqual([]);
    expect(readFileSync(join(SRC, 'model', 'plan.ts'), 'utf8')).not.toMatch(/identityUid\?:|roleUid\?:|defaultRole\?:/);
  });

  it("the emulator's tables are its own contract's: no emulator module reads the client's kind descriptors", () => {
    const offenders = files
      .filter((f) => relative(SRC, f).startsWith('emulator/'))
      .flatMap((f) => (/\b(KIND_INFO|DESCRIPTORS|descriptorOf|declaredFieldSpecs|DECLARED_FIELDS)\b/.test(readFileSync(f, 'utf8')) ? [relative(SRC, f)] : []));
    expect(offenders).toEqual([]);
  });
});
