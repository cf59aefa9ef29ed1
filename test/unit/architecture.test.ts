/**
 * The shape of the code (STYLE.md, issue "kinds that own their knowledge"): library modules do
 * not import views (only the views, the CLI and the Action's shell — both front-ends — and the
 * public barrel do), and src/model has no import circle at run time (type-only imports are
 * erased, so they do not count).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { everyImport, stackRooms } from '../../scripts/rooms.js';
import {
  parseSource,
  resolveModule,
  runtimeImportsOf,
  SRC,
  sourceModules,
  walkAst,
  type AstNode,
} from '../support/source-graph.js';

/** `x.kind` (not computed). */
const isKindMember = (n: AstNode | undefined): boolean =>
  n?.type === 'MemberExpression' && n.computed !== true && (n.property as AstNode).name === 'kind';
/** A name or a string that says readme (what names the sub-resource in code). */
const namesReadme = (n: AstNode): boolean =>
  (n.type === 'Identifier' && /readme/i.test(String(n.name))) ||
  (n.type === 'Literal' && typeof n.value === 'string' && /readme/.test(n.value)) ||
  (n.type === 'TemplateElement' && /readme/.test(String((n.value as AstNode).raw)));
const textOf = (n: AstNode): string => String(n.name ?? n.value ?? (n.value as AstNode | undefined)?.raw);

const modules = sourceModules();
const files = modules.map((m) => m.file);

/** Modules a file imports at run time, resolved over the syntax tree (test/support/source-graph.ts). */
function runtimeImports(file: string): string[] {
  return (modules.find((m) => m.file === file)?.imports ?? []).flatMap((i) => (i.resolved ? [i.resolved] : []));
}

describe('architecture', () => {
  it('the import reader sees structure: type-only imports are erased, value imports and re-exports are not (it can fail)', () => {
    const probe = (text: string) => runtimeImportsOf(parseSource(text)).map((i) => `${i.source}:${i.names.join(',')}`);
    expect(
      probe("import type { A } from './a.js'; import { type B } from './b.js'; export type { C } from './c.js';"),
    ).toEqual([]);
    expect(
      probe(
        "import { type B, c } from './b.js'; export { d } from './d.js'; export * from './e.js'; import './f.js'; const g = await import('./g.js');",
      ),
    ).toEqual(['./b.js:c', './d.js:d', './e.js:*', './f.js:*', './g.js:*']);
    // A string that looks like an import is no import.
    expect(probe('const text = "import { x } from \'./views/y.js\';";')).toEqual([]);
    expect(resolveModule(join(SRC, 'cli', 'main.ts'), '../views/escape.js')).toBe(join(SRC, 'views', 'escape.ts'));
  });

  it('every relative run-time import resolves to a module of src/', () => {
    const unresolved = modules.flatMap((m) =>
      m.imports.filter((i) => i.source.startsWith('.') && !i.resolved).map((i) => `${m.rel}: ${i.source}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('no library module imports a view (views, the CLI, the Action shell and the public barrel may)', () => {
    const allowed = (file: string) => {
      const rel = relative(SRC, file);
      return rel.startsWith('views/') || rel.startsWith('cli/') || rel.startsWith('action/') || rel === 'index.ts';
    };
    const offenders: string[] = [];
    for (const file of files) {
      if (allowed(file)) continue;
      for (const target of runtimeImports(file))
        if (relative(SRC, target).startsWith('views/'))
          offenders.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
    }
    expect(offenders).toEqual([]);
  });

  it('src/model has no import circle at run time', () => {
    const model = files.filter((f) => relative(SRC, f).startsWith('model/'));
    const graph = new Map(
      model.map((f) => [f, runtimeImports(f).filter((t) => relative(SRC, t).startsWith('model/'))]),
    );
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
    // Read from the syntax tree: a name or a string that says readme is naming it; a comment is not.
    const exempt = (rel: string) =>
      rel.startsWith('model/kinds/') || rel.startsWith('emulator/') || rel === 'manifest/schema-validator.js';
    const offenders = modules
      .filter((m) => !exempt(m.rel))
      .flatMap((m) => [...walkAst(m.tree)].filter(namesReadme).map((n) => `${m.rel}: ${textOf(n)}`));
    expect(offenders).toEqual([]);
  });

  it('safety rules and step references use descriptor properties, never a kind name', () => {
    const safety = modules.find((m) => m.rel === 'plan/safety.ts')!;
    // `x.kind === 'group'` (or `!==`, either side), from the syntax tree.
    const kindTests = [...walkAst(safety.tree)].filter(
      (n) =>
        n.type === 'BinaryExpression' &&
        ['===', '!=='].includes(String(n.operator)) &&
        [
          [n.left, n.right],
          [n.right, n.left],
        ].some(
          ([a, b]) =>
            isKindMember(a as AstNode) && (b as AstNode).type === 'Literal' && typeof (b as AstNode).value === 'string',
        ),
    );
    expect(kindTests.length).toBe(0);
    // The step type names no reference field: which fields carry uids is the descriptors' to say.
    const planModule = modules.find((m) => m.rel === 'model/plan.ts')!;
    const fields = [...walkAst(planModule.tree)]
      .filter((n) => n.type === 'TSPropertySignature')
      .map((n) => String((n.key as AstNode).name ?? (n.key as AstNode).value));
    expect(fields.filter((f) => ['identityUid', 'roleUid', 'defaultRole'].includes(f))).toEqual([]);
  });

  it('reads those rules from the syntax tree: a comment is no code, a kind test split over lines is one', () => {
    const probe = parseSource(
      "// if (s.kind === 'group') readme\nconst a = s\n  .kind\n  !==\n 'role';\ninterface T { roleUid?: string }",
    );
    expect(
      [...walkAst(probe)].filter((n) => n.type === 'BinaryExpression' && isKindMember(n.left as AstNode)).length,
    ).toBe(1);
    expect([...walkAst(probe)].filter(namesReadme)).toEqual([]);
    expect(
      [...walkAst(probe)].filter((n) => n.type === 'TSPropertySignature').map((n) => (n.key as AstNode).name),
    ).toEqual(['roleUid']);
  });

  it('the emulator shares no rule with the client: from outside src/emulator it imports only types, the shared error class and the doors', () => {
    // Allowed at run time: the doors (src/io), package files and lazy loading (src/util),
    // UserError, the shared error class, and the service's facts (src/service: data read off its
    // SDK, DESIGN.md §2 rev 6 — facts of the service, no rule of the client). Everything else of
    // the client — model rules, API tables, the planner — only as types (erased).
    const allowed = (target: string) =>
      /^(emulator|io|service)\//.test(target) || ['util/lazy-require.ts', 'model/errors.ts'].includes(target);
    const offenders = modules
      .filter((m) => m.rel.startsWith('emulator/'))
      .flatMap((m) =>
        m.imports
          .filter((i) => i.resolved && !allowed(relative(SRC, i.resolved).split('\\').join('/')))
          .map((i) => `${m.rel} → ${i.source} (${i.names.join(', ')})`),
      );
    expect(offenders).toEqual([]);
    const errorsImports = modules
      .filter((m) => m.rel.startsWith('emulator/'))
      .flatMap((m) =>
        m.imports.filter((i) => i.resolved?.endsWith(join('model', 'errors.ts'))).flatMap((i) => i.names),
      );
    expect([...new Set(errorsImports)]).toEqual(['UserError']);
  });

  it("the emulator's tables are its own contract's: no emulator module reads the client's kind descriptors", () => {
    const descriptorTables = new Set([
      'KIND_INFO',
      'DESCRIPTORS',
      'descriptorOf',
      'declaredFieldSpecs',
      'DECLARED_FIELDS',
      '*',
    ]);
    const offenders = modules
      .filter((m) => m.rel.startsWith('emulator/'))
      .flatMap((m) =>
        m.imports
          .filter(
            (i) =>
              i.resolved &&
              !relative(SRC, i.resolved).startsWith('emulator/') &&
              /^model\/(kinds|kind-descriptor)/.test(relative(SRC, i.resolved)) &&
              i.names.some((n) => descriptorTables.has(n)),
          )
          .map((i) => `${m.rel} → ${i.source}: ${i.names.join(', ')}`),
      );
    expect(offenders).toEqual([]);
  });

  it('the folders stack without circles: at most 2 imports run back up (issue 52; `npm run rooms` draws the house)', () => {
    const house = stackRooms(everyImport());
    expect(house.circles).toEqual([]);
    expect(house.backUp.map((i) => `${i.from} → ${i.to}`).length).toBeLessThanOrEqual(2);
    // It can fail: an import from the model up into the planner is a circle.
    const probe = stackRooms([...everyImport(), { from: 'model/plan.ts', to: 'plan/phases/members.ts' }]);
    expect(probe.circles.length).toBe(1);
    expect(probe.backUp.length).toBeGreaterThan(0);
  });

  it('no source file is longer than 500 lines as the formatter writes it (src, test, bench, scripts; the generated aside)', () => {
    // `biome ci` (npm test's first step) holds the width (biome.json); this holds the length.
    const ROOT = join(SRC, '..');
    // The generated validators are JavaScript (scripts/source-graph.ts GENERATED_VALIDATORS), not read here.
    const generated = ['src/model/kinds/declared-fields.ts'];
    const sources = ['src', 'test', 'bench', 'scripts'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|mjs)$/.test(f) && !f.split(sep).includes('fixtures'))
        .map((f) => join(ROOT, dir, f)),
    );
    expect(sources.length).toBeGreaterThan(files.length);
    const over = sources
      .filter((f) => !generated.includes(relative(ROOT, f).split(sep).join('/')))
      .map((f) => [relative(ROOT, f), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > 500);
    expect(over).toEqual([]);
  });

  it('what a kind is comes from its descriptor: no test of a kind name outside src/model (the emulator, its own contract, aside)', () => {
    const KIND_NAMES = new Set([
      'group',
      'identity',
      'role',
      'roleBinding',
      'repo',
      'tag',
      'subscription',
      'identityProvider',
      'groupMapping',
      'accountAssociation',
      'terms',
      'groupInvite',
    ]);
    const isName = (n: AstNode | undefined) => n?.type === 'Literal' && KIND_NAMES.has(String(n.value));
    const offenders = modules
      .filter((m) => !m.rel.startsWith('model/') && !m.rel.startsWith('emulator/'))
      .flatMap((m) =>
        [...walkAst(m.tree)].flatMap((n) => {
          const tests =
            n.type === 'BinaryExpression' &&
            ['===', '!=='].includes(String(n.operator)) &&
            [
              [n.left, n.right],
              [n.right, n.left],
            ].some(([a, b]) => isKindMember(a as AstNode) && isName(b as AstNode));
          const cases =
            n.type === 'SwitchStatement' &&
            isKindMember(n.discriminant as AstNode) &&
            (n.cases as AstNode[]).some((c) => isName(c.test as AstNode));
          return tests || cases ? [`${m.rel}:${textOf((n.right as AstNode) ?? n)}`] : [];
        }),
      );
    expect(offenders).toEqual([]);
    // It can fail: a kind test in a probe is found.
    const probe = parseSource("if (r.kind === 'groupInvite') x(); switch (s.kind) { case 'roleBinding': break; }");
    expect(
      [...walkAst(probe)].filter(
        (n) =>
          (n.type === 'BinaryExpression' && isKindMember(n.left as AstNode) && isName(n.right as AstNode)) ||
          (n.type === 'SwitchStatement' && isKindMember(n.discriminant as AstNode)),
      ).length,
    ).toBe(2);
  });
});
