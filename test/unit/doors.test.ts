/**
 * One door in, one door out (DESIGN.md §8 rev 4, STYLE.md 14), held over the structure of the
 * code: every module of src/ is parsed (rolldown's parser, the one the bundle is built with) and
 * its imports and calls are read from the syntax tree, not matched as text.
 *
 * - In: no module but src/io/read-file.ts imports a function that reads a file or a directory
 *   from node:fs (or the whole module, or requires it), save the exceptions named below with why.
 * - Out: no module writes to the process's streams or the console but the process shell
 *   (src/cli/context.ts) and the programs that are not the product's output (the demo, the
 *   schema generator, the emulator's server log, the Action's last-resort error); the views
 *   import no file system; no module but src/io writes, renames or appends to a file or opens a
 *   stream to one (the one writer, src/io/write-file.ts, redacting and atomic), save the
 *   exceptions named below with why.
 */
import { describe, expect, it } from 'vitest';
import { parseSource, sourceModules, walkAst as walk, type AstNode as Node } from '../support/source-graph.js';

const modules = sourceModules();

const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);
/** What reads a file or a directory (or opens one, which is how a read starts). */
const READS = new Set([
  'readFile',
  'readFileSync',
  'read',
  'readSync',
  'readv',
  'readvSync',
  'readdir',
  'readdirSync',
  'opendir',
  'opendirSync',
  'open',
  'openSync',
  'createReadStream',
  'cp',
  'cpSync',
  'copyFile',
  'copyFileSync',
  'openAsBlob',
  'watch',
  'watchFile',
]);

/** What a module takes from node:fs at run time: named value imports, `*`/default imports as '*', `require('fs')` as '*'. */
function fsImports(tree: Node): string[] {
  const out: string[] = [];
  for (const node of walk(tree)) {
    if (
      node.type === 'ImportDeclaration' &&
      FS_MODULES.has(String((node.source as Node).value)) &&
      node.importKind !== 'type'
    ) {
      for (const spec of node.specifiers as Node[]) {
        if (spec.type === 'ImportSpecifier') {
          if (spec.importKind !== 'type')
            out.push(String((spec.imported as Node).name ?? (spec.imported as Node).value));
        } else out.push('*');
      }
    }
    if (node.type === 'ImportExpression' && FS_MODULES.has(String((node.source as Node).value))) out.push('*');
    if (
      node.type === 'CallExpression' &&
      (node.callee as Node).type === 'Identifier' &&
      (node.callee as Node).name === 'require'
    ) {
      const arg = (node.arguments as Node[])[0];
      if (arg && FS_MODULES.has(String(arg.value))) out.push('*');
    }
  }
  return out;
}

/** Calls of `process.stdout.write`, `process.stderr.write` and `console.*` in a module. */
function processWrites(tree: Node): string[] {
  const out: string[] = [];
  for (const node of walk(tree)) {
    if (node.type !== 'MemberExpression') continue;
    const object = node.object as Node;
    const property = node.property as Node;
    if (object.type === 'Identifier' && object.name === 'console') out.push(`console.${String(property.name)}`);
    if (
      object.type === 'MemberExpression' &&
      (object.object as Node).type === 'Identifier' &&
      (object.object as Node).name === 'process' &&
      ['stdout', 'stderr'].includes(String((object.property as Node).name)) &&
      property.name === 'write'
    ) {
      out.push(`process.${String((object.property as Node).name)}.write`);
    }
  }
  return out;
}

/** Modules allowed a read from node:fs outside the door, each for a reason that is not a read of a user's file. */
const READ_EXCEPTIONS: Record<string, { names: string[]; why: string }> = {
  'io/read-file.ts': { names: [...READS], why: 'the door itself' },
  'emulator/persist.ts': {
    names: ['open', 'openSync'],
    why: 'opens the journal to append and truncate (it reads it through the door) and the state directory to fsync it',
  },
  'cli/demo.ts': { names: ['cpSync'], why: "copies the package's own examples into the demo's temporary directory" },
  'io/write-file.ts': {
    names: ['openSync', 'copyFileSync'],
    why: 'opens the --invite-codes file write-only to append (O_NOFOLLOW, 0600) and a new temporary file to stage a write; copies a file it is about to replace beside it, to put it back if a later file of the set fails (writeUserFiles): it never reads them',
  },
};

/** What writes a file, renames or links one, or opens a stream to one. */
const FILE_WRITES = new Set([
  'write',
  'writeSync',
  'writev',
  'writevSync',
  'writeFile',
  'writeFileSync',
  'appendFile',
  'appendFileSync',
  'rename',
  'renameSync',
  'createWriteStream',
  'truncate',
  'truncateSync',
  'ftruncate',
  'ftruncateSync',
  'link',
  'linkSync',
  'symlink',
  'symlinkSync',
  'copyFile',
  'copyFileSync',
  'cp',
  'cpSync',
]);

/** Modules allowed a file write outside src/io, each for a reason that is not a file of the product's output. */
const FILE_WRITE_EXCEPTIONS: Record<string, { names: string[]; why: string }> = {
  'emulator/persist.ts': {
    names: ['writeSync', 'ftruncateSync', 'rename'],
    why: "the emulator's own durable store (its state file and journal), a server's, not the client's output",
  },
  'emulator/state-lock.ts': {
    names: ['linkSync', 'renameSync', 'writeFileSync'],
    why: "the emulator's state lock (made by an atomic link)",
  },
  'manifest/generate-schemas.ts': { names: ['writeFileSync'], why: 'a build step (npm run generate)' },
  'emulator/generate-validators.ts': { names: ['writeFileSync'], why: 'a build step (npm run generate)' },
  'cli/demo.ts': { names: ['cpSync'], why: "copies the package's own examples into the demo's temporary directory" },
};

const WRITE_EXCEPTIONS: Record<string, string> = {
  'cli/context.ts': 'the process shell: hands process.stdout/stderr to createOutput',
  'cli/demo.ts': 'the guided tour is a program of its own, not the product output',
  'manifest/generate-schemas.ts': 'a build step',
  'emulator/generate-validators.ts': 'a build step',
  'emulator/index.ts': "the emulator server's own log",
  'action/main.ts': "the Action's last-resort error, when its run cannot start",
};

describe('one door in', () => {
  it('no module but src/io/read-file.ts reads files or directories (named exceptions only)', () => {
    const offenders: string[] = [];
    for (const { rel, tree } of modules) {
      const allowed = new Set(READ_EXCEPTIONS[rel]?.names ?? []);
      for (const name of fsImports(tree))
        if ((name === '*' || READS.has(name)) && !allowed.has(name)) offenders.push(`${rel}: ${name}`);
    }
    expect(offenders).toEqual([]);
  });

  it('the checker sees a read however it is imported (it can fail)', () => {
    const probe = (text: string) => fsImports(parseSource(text));
    expect(probe("import { readFileSync as r } from 'node:fs';")).toEqual(['readFileSync']);
    expect(probe("import * as fs from 'fs';")).toEqual(['*']);
    expect(probe("import fs from 'node:fs/promises';")).toEqual(['*']);
    expect(probe("const fs = require('fs');")).toEqual(['*']);
    expect(probe("const m = await import('node:fs');")).toEqual(['*']);
    expect(probe("import type { Stats } from 'node:fs';")).toEqual([]);
  });
});

describe('one door out', () => {
  it('no module writes to the process streams or the console but the named ones', () => {
    const offenders = modules.flatMap(({ rel, tree }) =>
      WRITE_EXCEPTIONS[rel] ? [] : processWrites(tree).map((w) => `${rel}: ${w}`),
    );
    expect(offenders).toEqual([]);
  });

  it('views only make text: they import no file system and write nowhere', () => {
    const offenders = modules
      .filter((m) => m.rel.startsWith('views/'))
      .flatMap(({ rel, tree }) => [...fsImports(tree), ...processWrites(tree)].map((x) => `${rel}: ${x}`));
    expect(offenders).toEqual([]);
  });

  it('no module but src/io writes a file (named exceptions only): one writer, redacting and atomic', () => {
    const offenders: string[] = [];
    for (const { rel, tree } of modules) {
      if (rel.startsWith('io/')) continue;
      const allowed = new Set(FILE_WRITE_EXCEPTIONS[rel]?.names ?? []);
      for (const name of fsImports(tree))
        if ((name === '*' || FILE_WRITES.has(name)) && !allowed.has(name)) offenders.push(`${rel}: ${name}`);
    }
    expect(offenders).toEqual([]);
    // Every exception is still needed: one that no longer writes is taken off the list.
    const unused = Object.entries(FILE_WRITE_EXCEPTIONS).flatMap(([rel, { names }]) => {
      const used = new Set(fsImports(modules.find((m) => m.rel === rel)?.tree ?? parseSource('')));
      return names.filter((n) => !used.has(n)).map((n) => `${rel}: ${n}`);
    });
    expect(unused).toEqual([]);
  });

  it("in src/io, appending is the Output's and the writer's alone", () => {
    const offenders = modules.flatMap(({ rel, tree }) =>
      rel === 'io/write-file.ts'
        ? []
        : fsImports(tree)
            .filter((n) => n === 'appendFile' || n === 'appendFileSync')
            .map((n) => `${rel}: ${n}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the checker sees a write to the streams (it can fail)', () => {
    const probe = (text: string) => processWrites(parseSource(text));
    expect(probe('process.stderr.write("x"); console.log(1);')).toEqual(['process.stderr.write', 'console.log']);
  });
});
