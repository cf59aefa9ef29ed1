/**
 * The last step of `npm run build`, after tsc: the CLI as one CommonJS file,
 * dist/platform-sync.cjs, which bin/platform-sync loads (src/cli/launch.ts).
 *
 * The bundle is dist/src/cli/main.js with everything it imports, third-party packages
 * included (their licenses are appended), and the lazily imported commands inlined; what
 * the code requires at run time by path (undici's pool, the `yaml` and `diff` packages, ajv's
 * runtime) stays in node_modules. Its first line names a hash of the rest, which the entry
 * module is marked with. The bundle is then run as the bin runs it (checkBundle).
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import { BUNDLE_ID_PREFIX, ENTRY_MARK_PREFIX, loadBundle } from '../src/cli/launch.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const BUNDLE = join(ROOT, 'dist', 'platform-sync.cjs');
const BIN = join(ROOT, 'bin', 'platform-sync');
const EXAMPLE = join(ROOT, 'examples', 'acme');

async function writeBundle(): Promise<void> {
  const build = await rolldown({ input: ENTRY, platform: 'node', logLevel: 'warn' });
  const { output } = await build.generate({ format: 'cjs', codeSplitting: false });
  await build.close();
  if (output.length !== 1 || output[0].type !== 'chunk')
    throw new Error(`expected one chunk, got ${output.map((o) => o.fileName).join(', ')}`);
  const text = `${output[0].code}\n${licenseNotice(output[0].moduleIds)}`;
  const id = createHash('sha256').update(text).digest('hex');
  writeFileSync(BUNDLE, `${BUNDLE_ID_PREFIX}${id}\n${text}`);
  // The entry names the bundle made from it: the bin uses the bundle only while the entry is
  // this one (`tsc` alone writes it again, without the mark), whatever the files' times.
  const entry = readFileSync(ENTRY, 'utf8').replace(new RegExp(`^${ENTRY_MARK_PREFIX}.*\n`, 'm'), '');
  const mapAt = entry.lastIndexOf('//# sourceMappingURL=');
  const mark = `${ENTRY_MARK_PREFIX}${id}\n`;
  writeFileSync(ENTRY, mapAt < 0 ? `${entry}${mark}` : `${entry.slice(0, mapAt)}${mark}${entry.slice(mapAt)}`);
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
  if (loadBundle(BUNDLE, ENTRY) === undefined) throw new Error('the bin does not take the bundle it was just given');
  const dir = mkdtempSync(join(tmpdir(), 'platform-sync-build-'));
  try {
    const run = (args: string[]): void => {
      const r = spawnSync(process.execPath, [BIN, ...args, EXAMPLE, '--emulator'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', PLATFORM_SYNC_SECRET_ACME_OKTA: 'build-check-secret' },
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
checkBundle();
process.stdout.write(`bundled the CLI: ${BUNDLE} (${(readFileSync(BUNDLE).length / 1024).toFixed(0)} KiB)\n`);
