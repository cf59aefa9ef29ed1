/**
 * `npm run walk`: the reading walk of the planner (issue 36). It starts at one function
 * (default: planFromManifests in src/pipeline.ts) and follows, in source order, every named
 * function, constant or class of src/ it refers to, each once, the way a reader follows the
 * code: into the file that defines it, through its body, and back. Method calls on objects (the
 * API client, a Map) are the I/O shell or the language, and are not followed.
 *
 * From the sequence of files the walk is in it counts:
 * - stays: the walk's runs in one file (a move to another file starts a new stay);
 * - files: the distinct files it stays in;
 * - climbs: moves to a file of a higher layer than the one it is in (a return counts); the
 *   layers, from the top: the pipeline; the stages (manifest, live, plan); the API client; the
 *   rooms every layer shares (model, util, io);
 * - revisits: stays in a file the walk had already left.
 *
 * Usage: npm run walk -- [file.ts#function] [--depth=N] [--trace] [--files]
 */
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AstNode, resolveModule, SRC, sourceModules, walkAst } from './source-graph.js';

/** Layers from the top (0) down, by a file's first folder under src/ (or its name). */
const LAYERS: readonly (readonly string[])[] = [
  ['pipeline.ts', 'index.ts'],
  ['manifest', 'live', 'plan'],
  ['api'],
  ['model', 'util', 'io'],
];

export function layerOf(file: string): number {
  const first = relative(SRC, file).split(/[\\/]/)[0]!;
  const layer = LAYERS.findIndex((names) => names.includes(first));
  return layer === -1 ? LAYERS.length : layer;
}

/** Expressions wrapped in type syntax: the type is skipped, the expression read. */
const TS_EXPRESSIONS = new Set([
  'TSAsExpression',
  'TSNonNullExpression',
  'TSSatisfiesExpression',
  'TSTypeAssertion',
  'TSInstantiationExpression',
]);
const TYPE_KEYS = new Set([
  'typeAnnotation',
  'returnType',
  'typeParameters',
  'typeArguments',
  'superTypeArguments',
  'implements',
]);

interface ModuleNames {
  /** Top-level functions, classes and constants: name → the node read when the walk enters it. */
  defs: Map<string, AstNode>;
  /** Local name → specifier and the name it imports ('*' for a namespace). */
  imports: Map<string, { specifier: string; imported: string }>;
  /** Exported name → a local name, or a name re-exported from another module. */
  exports: Map<string, { local: string } | { specifier: string; imported: string }>;
  /** `export * from` specifiers. */
  stars: string[];
}

const nameOf = (n: unknown): string => String((n as AstNode).name ?? (n as AstNode).value);

function namesOf(tree: AstNode): ModuleNames {
  const mod: ModuleNames = { defs: new Map(), imports: new Map(), exports: new Map(), stars: [] };
  const define = (decl: AstNode | null | undefined): string[] => {
    if (!decl) return [];
    if ((decl.type === 'FunctionDeclaration' || decl.type === 'ClassDeclaration') && decl.id) {
      mod.defs.set(nameOf(decl.id), decl);
      return [nameOf(decl.id)];
    }
    if (decl.type !== 'VariableDeclaration') return [];
    return (decl.declarations as AstNode[]).flatMap((d) => {
      const id = d.id as AstNode;
      if (id.type !== 'Identifier' || !d.init) return [];
      mod.defs.set(nameOf(id), d.init as AstNode);
      return [nameOf(id)];
    });
  };
  for (const node of tree.body as AstNode[]) {
    if (node.type === 'ImportDeclaration') {
      if (node.importKind === 'type') continue;
      for (const s of node.specifiers as AstNode[]) {
        if (s.importKind === 'type') continue;
        const imported =
          s.type === 'ImportNamespaceSpecifier'
            ? '*'
            : s.type === 'ImportDefaultSpecifier'
              ? 'default'
              : nameOf(s.imported);
        mod.imports.set(nameOf(s.local), { specifier: String((node.source as AstNode).value), imported });
      }
    } else if (node.type === 'ExportNamedDeclaration') {
      for (const name of define(node.declaration as AstNode | null)) mod.exports.set(name, { local: name });
      for (const s of (node.specifiers as AstNode[] | undefined) ?? []) {
        const local = nameOf(s.local);
        mod.exports.set(
          nameOf(s.exported),
          node.source ? { specifier: String((node.source as AstNode).value), imported: local } : { local },
        );
      }
    } else if (node.type === 'ExportAllDeclaration' && !node.exported) {
      mod.stars.push(String((node.source as AstNode).value));
    } else {
      define(node);
    }
  }
  return mod;
}

export interface WalkStep {
  file: string;
  /** The definition entered, or undefined for a return to the file the walk came from. */
  name?: string;
}

/** The reading walk from one definition of src/, at most `maxDepth` definitions deep. */
export function readingWalk(startFile: string, startName: string, maxDepth = Infinity): WalkStep[] {
  const modules = new Map(sourceModules().map((m) => [m.file, namesOf(m.tree)]));
  type Found = [file: string, name: string] | undefined;
  const resolveName = (file: string, name: string, seen: Set<string>): Found => {
    const mod = modules.get(file);
    if (!mod || seen.has(`${file}#${name}`)) return undefined;
    seen.add(`${file}#${name}`);
    if (mod.defs.has(name)) return [file, name];
    const imp = mod.imports.get(name);
    const target = imp && imp.imported !== '*' ? resolveModule(file, imp.specifier) : undefined;
    return target && imp ? resolveExport(target, imp.imported, seen) : undefined;
  };
  const resolveExport = (file: string, name: string, seen: Set<string>): Found => {
    const mod = modules.get(file);
    const exp = mod?.exports.get(name);
    if (exp && 'local' in exp) return resolveName(file, exp.local, seen);
    if (exp) {
      const target = resolveModule(file, exp.specifier);
      return target ? resolveExport(target, exp.imported, seen) : undefined;
    }
    for (const star of mod?.stars ?? []) {
      const target = resolveModule(file, star);
      const found = target ? resolveExport(target, name, seen) : undefined;
      if (found) return found;
    }
    return undefined;
  };

  const visited = new Set<string>();
  const path: WalkStep[] = [];
  let depth = 0;
  let local = new Set<string>();
  const visit = (file: string, name: string): void => {
    visited.add(`${file}#${name}`);
    path.push({ file, name });
    const def = modules.get(file)!.defs.get(name);
    const outer = local;
    local = boundNames(def);
    depth++;
    read(file, def);
    depth--;
    local = outer;
  };
  const follow = (from: string, found: Found): void => {
    if (!found || visited.has(`${found[0]}#${found[1]}`) || depth >= maxDepth) return;
    visit(found[0], found[1]);
    path.push({ file: from });
  };
  const read = (file: string, node: AstNode | undefined): void => {
    if (!node || (node.type.startsWith('TS') && !TS_EXPRESSIONS.has(node.type))) return;
    if (node.type === 'Identifier')
      return local.has(nameOf(node)) ? undefined : follow(file, resolveName(file, nameOf(node), new Set()));
    const object = node.object as AstNode | undefined;
    if (node.type === 'MemberExpression' && !node.computed && object?.type === 'Identifier') {
      const imp = modules.get(file)!.imports.get(nameOf(object));
      const ns = imp?.imported === '*' ? resolveModule(file, imp.specifier) : undefined;
      if (ns) return follow(file, resolveExport(ns, nameOf(node.property), new Set()));
    }
    for (const child of childrenInOrder(node)) {
      // A property's key and a member's property name are names, not references.
      if (
        !node.computed &&
        ((node.type === 'MemberExpression' && child === node.property) ||
          (node.type === 'Property' && child === node.key))
      )
        continue;
      read(file, child);
    }
  };
  visit(startFile, startName);
  return path;
}

/**
 * The names a definition binds anywhere inside it (parameters, variables, inner functions): they
 * shadow the module's names (a parameter `plan` is not the function plan), for the whole
 * definition — near enough for a walk.
 */
function boundNames(def: AstNode | undefined): Set<string> {
  const names = new Set<string>();
  const bind = (pattern: unknown): void => {
    const p = pattern as AstNode | null | undefined;
    if (!p) return;
    if (p.type === 'Identifier') names.add(nameOf(p));
    else if (p.type === 'ObjectPattern')
      for (const prop of p.properties as AstNode[]) bind(prop.type === 'RestElement' ? prop.argument : prop.value);
    else if (p.type === 'ArrayPattern') for (const e of p.elements as AstNode[]) bind(e);
    else if (p.type === 'AssignmentPattern') bind(p.left);
    else if (p.type === 'RestElement') bind(p.argument);
    else if (p.type === 'TSParameterProperty') bind(p.parameter);
  };
  for (const node of walkAst(def)) {
    if (
      node.type === 'FunctionDeclaration' ||
      node.type === 'FunctionExpression' ||
      node.type === 'ArrowFunctionExpression'
    ) {
      for (const param of node.params as AstNode[]) bind(param);
      if (node !== def && node.type === 'FunctionDeclaration') bind(node.id);
    } else if (node.type === 'VariableDeclarator') bind(node.id);
    else if (node.type === 'CatchClause') bind(node.param);
  }
  return names;
}

function childrenInOrder(node: AstNode): AstNode[] {
  const out: AstNode[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (TYPE_KEYS.has(key)) continue;
    for (const v of Array.isArray(value) ? value : [value])
      if (v !== null && typeof v === 'object' && typeof (v as AstNode).type === 'string') out.push(v as AstNode);
  }
  return out.sort((a, b) => (a.start as number) - (b.start as number));
}

export interface WalkFigures {
  /** The file of each stay, in order. */
  stays: string[];
  files: number;
  climbs: number;
  revisits: number;
}

export function measureWalk(path: readonly WalkStep[]): WalkFigures {
  const stays: string[] = [];
  for (const step of path) if (stays.at(-1) !== step.file) stays.push(step.file);
  const left = new Set<string>();
  let climbs = 0;
  let revisits = 0;
  for (let i = 1; i < stays.length; i++) {
    left.add(stays[i - 1]!);
    if (layerOf(stays[i]!) < layerOf(stays[i - 1]!)) climbs++;
    if (left.has(stays[i]!)) revisits++;
  }
  return { stays, files: new Set(stays).size, climbs, revisits };
}

function main(args: string[]): void {
  const start = args.find((a) => !a.startsWith('--')) ?? 'pipeline.ts#planFromManifests';
  const [file, name] = start.split('#') as [string, string];
  const depthArg = args.find((a) => a.startsWith('--depth='));
  const depths = depthArg ? [Number(depthArg.slice('--depth='.length))] : [2, 3, 4, Infinity];
  for (const depth of depths) {
    const path = readingWalk(join(SRC, file), name, depth);
    const m = measureWalk(path);
    if (args.includes('--trace')) {
      let last: string | undefined;
      for (const step of path) {
        const f = relative(SRC, step.file);
        if (f !== last) process.stdout.write(`${f}\n`);
        if (step.name !== undefined) process.stdout.write(`    ${step.name}\n`);
        last = f;
      }
    }
    const deep = Number.isFinite(depth) ? `${depth} deep` : 'all the way';
    process.stdout.write(
      `${file}#${name}, ${deep}: ${m.stays.length} stays in ${m.files} files, ${m.climbs} climbs, ${m.revisits} revisits\n`,
    );
    if (args.includes('--files')) for (const f of new Set(m.stays)) process.stdout.write(`  ${relative(SRC, f)}\n`);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2));
