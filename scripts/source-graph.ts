/**
 * The source of src/ as structure, for the architecture tests and the reading walk (walk.ts): each module parsed (rolldown's
 * parser, the one the bundle is built with), its run-time imports read from the syntax tree —
 * `import type`, `export type` and type-only specifiers erased as TypeScript erases them — and
 * resolved as TypeScript resolves them under NodeNext (`./x.js` is `./x.ts`). Nothing is matched
 * as text.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseAst } from 'rolldown/parseAst';
import { GENERATED_VALIDATORS } from './generated-validators.js';

/** The project's root: the nearest folder up with a package.json (this file runs from scripts/ in tests and from dist/scripts/ built). */
function projectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const SRC = join(projectRoot(import.meta.dirname), 'src');

export type AstNode = { type: string; [key: string]: unknown };

/** Every node of a tree, depth first (in source order; with a stack of its own: a generator per level was the tests' hot spot). */
export function* walkAst(root: unknown): Generator<AstNode> {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push(node[i]);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const n = node as AstNode;
    if (typeof n.type === 'string') yield n;
    const entries = Object.entries(n);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i]!;
      if (key !== 'type' && value !== null && typeof value === 'object') stack.push(value);
    }
  }
}

export function parseSource(text: string, file = 'probe.ts'): AstNode {
  return parseAst(text, { lang: 'ts' }, file) as unknown as AstNode;
}

/** One run-time import: the specifier as written, and the names it takes ('*' for a namespace, default or side effect). */
export interface RuntimeImport {
  source: string;
  names: string[];
}

/** The run-time imports of a module: type-only ones are erased. */
export function runtimeImportsOf(tree: AstNode): RuntimeImport[] {
  const out: RuntimeImport[] = [];
  for (const node of walkAst(tree)) {
    if (node.type === 'ImportDeclaration') {
      if (node.importKind === 'type') continue;
      const specifiers = node.specifiers as AstNode[];
      const names = specifiers.flatMap((s) =>
        s.type === 'ImportSpecifier'
          ? s.importKind === 'type'
            ? []
            : [String((s.imported as AstNode).name ?? (s.imported as AstNode).value)]
          : ['*'],
      );
      // `import { type A } from 'x'` is erased whole; `import 'x'` runs it.
      if (specifiers.length > 0 && names.length === 0) continue;
      out.push({ source: String((node.source as AstNode).value), names: specifiers.length === 0 ? ['*'] : names });
    } else if ((node.type === 'ExportNamedDeclaration' || node.type === 'ExportAllDeclaration') && node.source) {
      if (node.exportKind === 'type') continue;
      const specifiers = (node.specifiers as AstNode[] | undefined) ?? [];
      const names =
        node.type === 'ExportAllDeclaration'
          ? ['*']
          : specifiers
              .filter((s) => s.exportKind !== 'type')
              .map((s) => String((s.local as AstNode).name ?? (s.local as AstNode).value));
      if (names.length === 0) continue;
      out.push({ source: String((node.source as AstNode).value), names });
    } else if (node.type === 'ImportExpression' && (node.source as AstNode).type === 'Literal') {
      out.push({ source: String((node.source as AstNode).value), names: ['*'] });
    }
  }
  return out;
}

/**
 * A relative specifier resolved to the module it names (NodeNext: `.js` written, `.ts` on disk —
 * or `.js` on disk for a generated validator).
 */
export function resolveModule(from: string, source: string): string | undefined {
  if (!source.startsWith('.')) return undefined;
  const target = resolve(dirname(from), source);
  const generated = GENERATED_VALIDATORS.some((g) => target === join(SRC, g));
  for (const candidate of [
    target.replace(/\.js$/, '.ts'),
    `${target}.ts`,
    join(target, 'index.ts'),
    ...(generated ? [target] : []),
  ])
    if (existsSync(candidate)) return candidate;
  return undefined;
}

export interface SourceModule {
  file: string;
  /** Path relative to src/, `/`-separated. */
  rel: string;
  tree: AstNode;
  imports: (RuntimeImport & { resolved?: string })[];
}

/**
 * The generated validators (scripts/generated-validators.ts) hold nothing of our structure beyond
 * their imports: parsed up to them, which is all the tests and the walk read of them (the whole
 * tree took seconds to parse and walk).
 */
export { GENERATED_VALIDATORS };

/** A generated module's text up to its last import: its comments, blank lines and imports, as written. */
function importHeader(text: string): string {
  const lines = text.split('\n');
  const end = lines.findIndex((line) => !/^(\/\/|\/\*|import\s|$)/.test(line));
  return lines.slice(0, end < 0 ? lines.length : end).join('\n');
}

let cached: SourceModule[] | undefined;

/** Every module of src/ with its run-time imports, parsed once per test process. */
export function sourceModules(): SourceModule[] {
  cached ??= readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter(
      (f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || GENERATED_VALIDATORS.includes(f.split('\\').join('/')),
    )
    .sort()
    .map((f) => {
      const file = join(SRC, f);
      const text = readFileSync(file, 'utf8');
      const generated = GENERATED_VALIDATORS.includes(f.split('\\').join('/'));
      const tree = parseSource(generated ? importHeader(text) : text, file);
      const imports = runtimeImportsOf(tree).map((i) => {
        const resolved = resolveModule(file, i.source);
        return resolved ? { ...i, resolved } : i;
      });
      return { file, rel: relative(SRC, file).split('\\').join('/'), tree, imports };
    });
  return cached;
}
