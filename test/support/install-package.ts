/**
 * Two ways of putting this repository's built package into `<project>/node_modules/platform-sync`
 * for test/e2e/installed-package.test.ts (what each checks: that file's header).
 *
 * - `installFiles` (npm test): the files `npm pack` would ship — asked of npm's own packlist, the
 *   function `npm pack` calls, loaded from the npm that runs the tests — copied with their modes;
 *   the bins linked in `<project>/node_modules/.bin` as npm links them (a relative symlink to the
 *   bin file); each of package.json's `dependencies`, and nothing else, a symlink to this
 *   repository's installed copy (whose own dependencies resolve from there).
 * - `installWithNpm` (test:deep): `npm pack` to a tarball and `npm ci --offline` from it.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, relative, resolve } from 'node:path';

interface PackageJson {
  name: string;
  version: string;
  license: string;
  dependencies: Record<string, string>;
  bin: Record<string, string>;
  engines: Record<string, string>;
  bundleDependencies?: unknown;
  bundledDependencies?: unknown;
}

function readPackage(root: string): PackageJson {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  // npm normalises other shapes (a string, a `./` path) before its packlist reads them; here the
  // package is read as written, so only the shape written today is taken.
  const bins = pkg.bin as unknown;
  if (typeof bins !== 'object' || bins === null || Object.values(bins).some((f) => String(f).startsWith('./')))
    throw new Error('package.json bin is not a map of plain paths: installFiles reads it as written; normalise it');
  return pkg;
}

/** The directory of the npm that runs the tests: `npm test` and `npx` name its CLI, else the `npm` on the PATH. */
function npmDirectory(): string {
  const named = process.env.npm_execpath;
  const cli =
    named !== undefined && /[\\/]npm-cli\.js$/.test(named)
      ? named
      : (process.env.PATH ?? '')
          .split(delimiter)
          .map((dir) => join(dir, 'npm'))
          .find((file) => existsSync(file));
  if (cli === undefined) throw new Error('no npm found (npm_execpath, PATH): the package cannot be listed');
  // …/npm/bin/npm-cli.js (the `npm` on the PATH is a link to it).
  return resolve(dirname(realpathSync(cli)), '..');
}

type Packlist = (tree: object, options: { path: string }) => Promise<string[]>;

/**
 * The files `npm pack` puts in the tarball, by npm's own rules (npm-packlist, which pacote calls
 * with the package's tree; of the tree it reads the package, its path, and its edges for bundled
 * dependencies only — this package bundles none, and says so if it starts to).
 */
export async function packedFiles(root: string): Promise<string[]> {
  const pkg = readPackage(root);
  if (pkg.bundleDependencies !== undefined || pkg.bundledDependencies !== undefined) {
    throw new Error('package.json bundles dependencies: installFiles does not; install with npm (test:deep)');
  }
  const packlist = createRequire(join(npmDirectory(), 'package.json'))('npm-packlist') as Packlist;
  const tree = { path: root, package: pkg, isProjectRoot: true, edgesOut: new Map() };
  return packlist(tree, { path: root });
}

/** An empty project that depends on platform-sync. */
function writeProject(project: string, spec: string): void {
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'project', version: '1.0.0', private: true, dependencies: { 'platform-sync': spec } }),
  );
}

/** The package as npm would install it, without a tarball or npm's install: see the header. */
export async function installFiles(root: string, project: string): Promise<void> {
  const pkg = readPackage(root);
  writeProject(project, pkg.version);
  const modules = join(project, 'node_modules');
  const installed = join(modules, pkg.name);
  for (const file of await packedFiles(root)) {
    const to = join(installed, file);
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(join(root, file), to);
    // The mode as the repository has it (`npm pack` and npm's install both make a bin executable
    // whatever it was: here a bin without its executable bit stays so, and fails).
    chmodSync(to, statSync(join(root, file)).mode & 0o777);
  }
  // Bins: a relative symlink in node_modules/.bin to the bin file, as npm's bin-links makes it.
  mkdirSync(join(modules, '.bin'), { recursive: true });
  for (const [name, file] of Object.entries(pkg.bin)) {
    const link = join(modules, '.bin', name);
    symlinkSync(relative(dirname(link), join(installed, file)), link);
  }
  // The dependencies, exactly package.json's list: a symlink each to the copy `npm ci` put in
  // this repository (a devDependency is not among them, so an import of one fails here).
  for (const name of Object.keys(pkg.dependencies)) {
    const link = join(modules, name);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(realpathSync(join(root, 'node_modules', name)), link, 'dir');
  }
}

/**
 * The package packed to a tarball (`npm pack`, scripts off: the build is done) and installed from
 * it into an empty project with `npm ci --offline`: nothing beyond what the lockfile's install
 * already put in npm's cache.
 */
export function installWithNpm(root: string, project: string, packDestination: string): void {
  const tarball = execFileSync(
    'npm',
    ['pack', root, '--ignore-scripts', '--silent', '--pack-destination', packDestination],
    { cwd: packDestination, encoding: 'utf8' },
  )
    .trim()
    .split('\n')
    .pop()!;
  const pkg = readPackage(root);
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; link?: boolean; version?: string; resolved?: string }>;
  };
  // A lockfile for the project: the tarball, and this repo's locked production dependencies
  // (by integrity, so npm ci finds them in its cache and asks no registry).
  const spec = `file:${relative(project, join(packDestination, tarball))}`;
  const packages: Record<string, unknown> = {
    '': { name: 'project', version: '1.0.0', dependencies: { 'platform-sync': spec } },
    'node_modules/platform-sync': {
      version: pkg.version,
      resolved: spec,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev || entry.link) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    packages[path] = {
      ...entry,
      resolved: entry.resolved ?? `https://registry.npmjs.org/${name}/-/${name.split('/').pop()}-${entry.version}.tgz`,
    };
  }
  writeProject(project, spec);
  writeFileSync(
    join(project, 'package-lock.json'),
    JSON.stringify({ name: 'project', version: '1.0.0', lockfileVersion: 3, requires: true, packages }),
  );
  execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: project,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}
