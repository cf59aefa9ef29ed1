/**
 * The last step of `npm run build`, after tsc: the CLI as one CommonJS file,
 * dist/platform-sync.cjs, which bin/platform-sync loads (src/cli/launch.ts).
 *
 * The bundle is dist/src/cli/main.js with everything it imports, third-party packages
 * included (their licenses are appended); what the code requires at run time by path (undici's
 * pool, the `yaml` and `diff` packages, ajv's runtime) stays in node_modules. dist/platform-sync.cjs
 * holds what a command's start reaches by static imports; the API client (every command that
 * talks to a server loads it, `validate` never) is dist/platform-sync-client-<hash>.cjs; everything else the code imports only lazily — export, adopt,
 * audit, init, and the `yaml` and `diff` packages they import (no ajv compiler: every validator
 * is generated at build time) — is in dist/platform-sync-lazy-<hash>.cjs, which Node
 * compiles only when a command reaches for one of them (issue 61). A `plan` or `validate` so
 * compiles ≈1 MB of code instead of ≈2 MB. The emulator (its contract's validators most of it)
 * is a file of its own, dist/platform-sync-emulator-<hash>.cjs: `--emulator`, `emulator` and
 * `accept-invite` compile its ≈0.8 MB, not also the lazy file's ≈0.35 MB (issue 63).
 * Saved plans (their module and generated validator)
 * are a file of their own, dist/platform-sync-plan-file-<hash>.cjs: `plan --out` and the Action's
 * plan step write one without compiling the emulator's file.
 * The GitHub Action's runner (dist/src/action/run.js) is a second entry: its own modules go to
 * dist/platform-sync-action.cjs, which takes the rest from the others, so that the Action
 * (src/action/main.ts) runs from the bundle too and the CLI never reads its code (issue 63). The
 * first line of dist/platform-sync.cjs names a hash of the text of all the
 * files, which the entry module is marked with. The bundle is then run as the bin runs it
 * (checkBundle), unless `--no-check` is given: `npm test` passes it, since its suite runs the same
 * two commands from the bin in processes of their own (test/e2e/embedded.test.ts) and checks that
 * the bin takes the bundle (test/unit/bundle-start.test.ts, test/e2e/installed-package.test.ts).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown, type Plugin } from 'rolldown';
import {
  ACTION_BUNDLE_FILE,
  BUNDLE_ID_PREFIX,
  BUNDLE_PART_FILE,
  ENTRY_MARK_PREFIX,
  loadBundle,
} from '../src/cli/launch.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = join(ROOT, 'dist', 'src', 'cli', 'main.js');
/** The Action's runner: the entry of the Action's file of the bundle. */
const ACTION = join(ROOT, 'dist', 'src', 'action', 'run.js');
/**
 * The API client: imported lazily (`validate` never needs it) but by every command that reads a
 * server; a file of its own, which such a command loads beside the start file (its modules name
 * `node:zlib` and `node:timers/promises` at their top: a `validate` loads neither).
 */
const CLIENT = join(ROOT, 'dist', 'src', 'api', 'client.js');
/** Saved plans: what `plan --out` and the Action's plan step write with, and `apply <plan>` reads. */
const SAVED_PLAN = join(ROOT, 'dist', 'src', 'saved-plan', 'saved-plan.js');
/** The emulator, as `--emulator`, `emulator` and `accept-invite` import it: a file of its own. */
const EMULATOR = ['index.js', 'state-lock.js', 'invites.js'].map((f) => join(ROOT, 'dist', 'src', 'emulator', f));
const DIST = join(ROOT, 'dist');
const BUNDLE = join(DIST, 'platform-sync.cjs');
const BIN = join(ROOT, 'bin', 'platform-sync');
const EXAMPLE = join(ROOT, 'examples', 'acme');

/**
 * The modules a start needs: what the entry imports statically, found once the graph is built;
 * those the API client needs beyond them (its file); and those a saved plan needs beyond them (`plan --out`, `apply <plan>`,
 * every plan step of the Action): the saved-plan modules and their generated validator, in a file
 * of their own, so that writing a plan does not compile the emulator's validators. Every other module goes to the lazy file.
 */
function startModules(): {
  plugin: Plugin;
  has(id: string): boolean;
  client(id: string): boolean;
  planFile(id: string): boolean;
  emulator(id: string): boolean;
} {
  const start = new Set<string>();
  const client = new Set<string>();
  const planFile = new Set<string>();
  const emulator = new Set<string>();
  const plugin: Plugin = {
    name: 'start-modules',
    buildEnd() {
      const walk = (into: Set<string>, id: string): void => {
        if (into.has(id) || start.has(id)) return;
        into.add(id);
        for (const next of this.getModuleInfo(id)?.importedIds ?? []) walk(into, next);
      };
      walk(start, ENTRY);
      walk(client, CLIENT);
      walk(planFile, SAVED_PLAN);
      for (const id of EMULATOR) if (!planFile.has(id)) walk(emulator, id);
      for (const id of [CLIENT, SAVED_PLAN, ...EMULATOR])
        if (this.getModuleInfo(id) === null) throw new Error(`the bundle no longer reaches ${id}`);
    },
  };
  // rolldown's own runtime helpers go with the start.
  return {
    plugin,
    has: (id) => start.has(id) || id.startsWith('\0rolldown'),
    // The walks stop at what the start holds; the client's file holds what it shares with the others.
    client: (id) => client.has(id),
    planFile: (id) => planFile.has(id) && !client.has(id),
    emulator: (id) => emulator.has(id) && !planFile.has(id) && !client.has(id),
  };
}

/** The Action's own modules (src/action/). */
const isAction = (id: string): boolean => id.startsWith(join(ROOT, 'dist', 'src', 'action', '/'));

async function writeBundle(): Promise<void> {
  const start = startModules();
  const build = await rolldown({
    input: { cli: ENTRY, action: ACTION },
    platform: 'node',
    logLevel: 'warn',
    plugins: [start.plugin],
    // The lazy file imports what it shares with the start from the entry file.
    preserveEntrySignatures: 'allow-extension',
    // A dynamic import of a module the start imports statically anyway stays where it is.
    onLog: (level, log, handler) => {
      if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') handler(level, log);
    },
  });
  const { output } = await build.generate({
    format: 'cjs',
    entryFileNames: (chunk) => (chunk.name === 'action' ? ACTION_BUNDLE_FILE : 'platform-sync.cjs'),
    chunkFileNames: 'platform-sync-[name]-[hash].cjs',
    // ASCII only, doc comments dropped (the module path comments stay): one `—` in a comment made
    // the whole file a two-byte string, slower to decode and to scan; measured in docs/performance.md.
    charset: 'ascii',
    comments: { legal: true, annotation: true, jsdoc: false },
    codeSplitting: {
      includeDependenciesRecursively: false,
      groups: [
        { name: 'start', test: (id) => start.has(id) },
        // What the Action's runner alone imports: a file only the Action reads.
        { name: 'action', test: (id) => !start.has(id) && isAction(id) },
        // The API client: what every command that reads a server loads beside the start.
        { name: 'client', test: (id) => start.client(id) && !isAction(id) },
        { name: 'plan-file', test: (id) => start.planFile(id) && !isAction(id) },
        { name: 'emulator', test: (id) => start.emulator(id) && !isAction(id) },
        {
          name: 'lazy',
          test: (id) =>
            !start.has(id) && !isAction(id) && !start.client(id) && !start.planFile(id) && !start.emulator(id),
        },
      ],
    },
  });
  await build.close();
  const chunks = output.filter((o) => o.type === 'chunk');
  const entry = chunks.find((c) => c.isEntry && c.fileName === 'platform-sync.cjs');
  const action = chunks.find((c) => c.isEntry && c.fileName === ACTION_BUNDLE_FILE);
  if (
    entry === undefined ||
    action?.exports.includes('runAction') !== true ||
    chunks.length !== output.length ||
    chunks.some((c) => c !== entry && !BUNDLE_PART_FILE.test(c.fileName))
  )
    throw new Error(`unexpected bundle files: ${output.map((o) => o.fileName).join(', ')}`);
  const texts = new Map(chunks.map((c) => [c.fileName, `${c.code}\n${licenseNotice(c.moduleIds)}`]));
  const hash = createHash('sha256');
  for (const name of [...texts.keys()].sort()) hash.update(`${name}\n${texts.get(name)!.length}\n${texts.get(name)!}`);
  const id = hash.digest('hex');
  for (const f of readdirSync(DIST)) if (BUNDLE_PART_FILE.test(f)) rmSync(join(DIST, f));
  for (const [name, text] of texts)
    writeFileSync(join(DIST, name), name === entry.fileName ? `${BUNDLE_ID_PREFIX}${id}\n${text}` : text);
  // The entry names the bundle made from it: the bin uses the bundle only while the entry is
  // this one (`tsc` alone writes it again, without the mark), whatever the files' times.
  const module = readFileSync(ENTRY, 'utf8').replace(new RegExp(`^${ENTRY_MARK_PREFIX}.*\n`, 'm'), '');
  const mapAt = module.lastIndexOf('//# sourceMappingURL=');
  const mark = `${ENTRY_MARK_PREFIX}${id}\n`;
  writeFileSync(ENTRY, mapAt < 0 ? `${module}${mark}` : `${module.slice(0, mapAt)}${mark}${module.slice(mapAt)}`);
}

/** The package directory of a module inside node_modules, or undefined for our own modules. */
function packageDirOf(moduleId: string): string | undefined {
  const at = moduleId.lastIndexOf('/node_modules/');
  if (at < 0) return undefined;
  const rest = moduleId.slice(at + '/node_modules/'.length).split('/');
  const name = rest[0]!.startsWith('@') ? rest.slice(0, 2).join('/') : rest[0]!;
  return `${moduleId.slice(0, at)}/node_modules/${name}`;
}

/** A comment with the name, version, license and license text of every package bundled. */
function licenseNotice(moduleIds: readonly string[]): string {
  const dirs = [...new Set(moduleIds.map(packageDirOf).filter((d): d is string => d !== undefined))].sort();
  const parts = dirs.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license?: string;
    };
    const file = readdirSync(dir).find((f) => /^licen[cs]e(\.md|\.txt)?$/i.test(f));
    const text = file === undefined ? '(no license file in the package)' : readFileSync(join(dir, file), 'utf8').trim();
    return `${pkg.name}@${pkg.version} (${pkg.license ?? 'see its package'})\n\n${text}`;
  });
  const body = ['Third-party packages bundled in this file, with their licenses:', ...parts].join('\n\n----\n\n');
  return `/*\n${body.replaceAll('*/', '* /')}\n*/\n`;
}

/**
 * Runs the bundle as the bin does (`apply` of examples/acme to an embedded emulator, then a
 * `plan` that finds nothing to change): a bundle that cannot plan the example is broken.
 */
function checkBundle(): void {
  // A code cache of earlier builds (made until issue 61) is no part of the package any more.
  rmSync(`${BUNDLE}.cache`, { force: true });
  const loaded = loadBundle(BUNDLE, ENTRY);
  if (loaded === undefined) throw new Error('the bin does not take the bundle it was just given');
  if (typeof (loaded.part(ACTION_BUNDLE_FILE) as { runAction?: unknown }).runAction !== 'function')
    throw new Error(`${ACTION_BUNDLE_FILE} does not export the Action's runner`);
  const dir = mkdtempSync(join(tmpdir(), 'platform-sync-build-'));
  try {
    const run = (args: string[]): void => {
      const r = spawnSync(process.execPath, [BIN, ...args, EXAMPLE, '--emulator'], {
        cwd: dir,
        encoding: 'utf8',
        // The code cache in the check's own directory (the plan run compiles with the apply's).
        env: {
          ...process.env,
          NO_COLOR: '1',
          PLATFORM_SYNC_SECRET_ACME_OKTA: 'build-check-secret',
          PLATFORM_SYNC_CODE_CACHE_DIR: join(dir, 'code-cache'),
        },
      });
      if (r.status !== 0 || r.stderr !== '')
        throw new Error(
          `the bundle's check run \`platform-sync ${args.join(' ')}\` exited ${r.status}:\n${r.stderr}${r.stdout}`,
        );
    };
    run(['apply', '--bootstrap', '--auto-approve']);
    run(['plan', '--detailed-exitcode']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await writeBundle();
if (!process.argv.includes('--no-check')) checkBundle();
const files = readdirSync(DIST).filter((f) => f === 'platform-sync.cjs' || BUNDLE_PART_FILE.test(f));
const sizes = files.map((f) => `${f} ${(readFileSync(join(DIST, f)).length / 1024).toFixed(0)} KiB`);
process.stdout.write(`bundled the CLI in ${DIST}: ${sizes.join(', ')}\n`);
