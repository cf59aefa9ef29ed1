/**
 * The bin's loader (src/cli/launch.ts): a bundle is run while the entry module is the one it was
 * made from; no bundle means the modules in dist/src. It sets no V8 flag: on a Node whose V8
 * does not know a flag, V8 prints an error on every run (issue 61), so a fresh process on this
 * Node must print nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  BUNDLE_ID_PREFIX,
  ENTRY_MARK_PREFIX,
  exitWhenIdle,
  loadBundle,
  type ExitingProcess,
} from '../../src/cli/launch.js';

const dir = mkdtempSync(join(tmpdir(), 'ps-launch-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A bundle that exports main/processIo like the CLI's, and says where it runs from. */
function writeBundle(file: string, id: string, answer: number): void {
  const body = [
    `exports.main = async () => ${answer};`,
    'exports.processIo = () => ({ where: __filename, dir: __dirname, canRequire: typeof require("node:path").join });',
    // enough functions for a cache worth the name
    ...Array.from({ length: 50 }, (_, i) => `exports.f${i} = (x) => x * ${i} + ${answer};`),
  ].join('\n');
  writeFileSync(file, `${BUNDLE_ID_PREFIX}${id}\n${body}\n`);
}

/** Loads `file` in a fresh process: what its main answers, and what the process printed besides. */
function loadFresh(file: string): { answer: number; stderr: string } {
  const script = `
    const { loadBundle } = await import('./dist/src/cli/launch.js');
    const loaded = loadBundle(${JSON.stringify(file)});
    console.log(JSON.stringify(await loaded.cli.main([], loaded.cli.processIo())));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  return { answer: JSON.parse(r.stdout) as number, stderr: r.stderr };
}

describe('loadBundle', () => {
  it('is undefined without a bundle, or for a file that is not one', () => {
    expect(loadBundle(join(dir, 'missing.cjs'))).toBeUndefined();
    const other = join(dir, 'other.cjs');
    writeFileSync(other, 'exports.main = 1;\n');
    expect(loadBundle(other)).toBeUndefined();
    // Its first line names no build hash (64 hex digits, which name the code cache's files too).
    for (const id of [`../../${'a'.repeat(58)}`, 'A'.repeat(64), `${'a'.repeat(63)} `]) {
      writeBundle(other, id, 1);
      expect(loadBundle(other), id).toBeUndefined();
    }
    writeBundle(other, 'a'.repeat(64), 1);
    expect(loadBundle(other)).toBeDefined();
  });

  it('is used only while the entry module is the one it was made from (by content: file times do not matter)', () => {
    const file = join(dir, 'older.cjs');
    const entry = join(dir, 'main.js');
    writeBundle(file, 'd'.repeat(64), 3);
    // Built by `tsc` alone after the bundle: the entry carries no mark of it.
    writeFileSync(entry, 'export {};\n');
    expect(loadBundle(file, entry)).toBeUndefined();
    writeFileSync(entry, `export {};\n${ENTRY_MARK_PREFIX}${'e'.repeat(64)}\n`);
    expect(loadBundle(file, entry)).toBeUndefined();
    // Marked with this bundle's id: used, even when the entry looks newer (as after an install).
    writeFileSync(entry, `export {};\n${ENTRY_MARK_PREFIX}${'d'.repeat(64)}\n//# sourceMappingURL=main.js.map\n`);
    utimesSync(file, new Date(2026, 0, 1), new Date(2026, 0, 1));
    utimesSync(entry, new Date(2026, 0, 2), new Date(2026, 0, 2));
    expect(loadBundle(file, entry)?.cli).toBeDefined();
  });

  it('runs the bundle as a CommonJS module, in this process and in a fresh one, where it prints nothing', async () => {
    const file = join(dir, 'cli.cjs');
    writeBundle(file, 'a'.repeat(64), 7);
    const first = loadBundle(file)!;
    expect(await first.cli.main([], first.cli.processIo())).toBe(7);
    expect(first.cli.processIo()).toEqual({ where: file, dir, canRequire: 'function' });
    expect(loadFresh(file)).toEqual({ answer: 7, stderr: '' });
  });

  it("loads another file of the bundle beside it by its name (the Action's), and nothing named otherwise", () => {
    const file = join(dir, 'parts.cjs');
    writeBundle(file, 'b'.repeat(64), 5);
    writeFileSync(join(dir, 'platform-sync-action.cjs'), 'exports.runAction = () => require("./parts.cjs").f1(1);\n');
    const loaded = loadBundle(file)!;
    expect((loaded.part('platform-sync-action.cjs') as { runAction: () => number }).runAction()).toBe(6);
    for (const name of ['../parts.cjs', 'parts.cjs', 'platform-sync-x.cjs/../../parts.cjs', 'platform-sync-a.js'])
      expect(() => loaded.part(name), name).toThrow(/not a file of the bundle/);
  });

  it('evaluates each file of the bundle once: the entry and every part share one module of each (one error class)', () => {
    const at = join(dir, 'once');
    mkdirSync(at);
    const count = (name: string) => `(globalThis.launchOnce ??= []).push(${JSON.stringify(name)});`;
    writeFileSync(
      join(at, 'platform-sync.cjs'),
      `${BUNDLE_ID_PREFIX}${'c'.repeat(64)}\n${count('entry')}\nexports.ApiError = class ApiError extends Error {};\n` +
        'exports.main = async () => require("./platform-sync-client-X.cjs").fail();\nexports.processIo = () => ({});\n',
    );
    writeFileSync(
      join(at, 'platform-sync-client-X.cjs'),
      `${count('client')}\nexports.fail = () => new (require("./platform-sync.cjs").ApiError)();\n`,
    );
    writeFileSync(
      join(at, 'platform-sync-action.cjs'),
      `${count('action')}\nexports.client = require("./platform-sync-client-X.cjs");\nexports.cli = require("./platform-sync.cjs");\n`,
    );
    const loaded = loadBundle(join(at, 'platform-sync.cjs'))!;
    const cli = loaded.cli as unknown as { ApiError: new () => Error; main(): Promise<Error> };
    const action = loaded.part('platform-sync-action.cjs') as { client: unknown; cli: unknown };
    return cli.main().then((error) => {
      expect(error).toBeInstanceOf(cli.ApiError);
      expect(action.cli).toBe(loaded.cli);
      expect(action.client).toBe(loaded.part('platform-sync-client-X.cjs'));
      expect((globalThis as { launchOnce?: string[] }).launchOnce).toEqual(['entry', 'action', 'client']);
    });
  });
});

/** Runs `body` (an ES module that has `exitWhenIdle` and `net`) in a fresh process. */
function runFresh(body: string): { status: number | null; stdout: string; stderr: string } {
  const script = `
    import net from 'node:net';
    const { exitWhenIdle } = await import('./dist/src/cli/launch.js');
    ${body}`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('exitWhenIdle (how the bin ends after main)', () => {
  /** A process that records what is asked of it, with these resources active. */
  const fakeProcess = (active: string[]) => {
    const exits: number[] = [];
    const proc: ExitingProcess = {
      getActiveResourcesInfo: () => active,
      exit: ((code: number) => exits.push(code)) as ExitingProcess['exit'],
    };
    return { proc, exits };
  };

  it('ends the process with the code once nothing is left to run, and leaves it to Node while anything is', async () => {
    const idle = fakeProcess([]);
    exitWhenIdle(2, idle.proc);
    expect(idle.exits).toEqual([]); // not before the promise jobs queued before it have run
    await nextTurn();
    expect(idle.exits).toEqual([2]);
    expect(idle.proc.exitCode).toBe(2);
    const busy = fakeProcess(['TCPServerWrap']);
    exitWhenIdle(3, busy.proc);
    await nextTurn();
    expect(busy.exits).toEqual([]);
    expect(busy.proc.exitCode).toBe(3);
  });

  it('in a real process: the whole output, the exit listeners, and the code', () => {
    const r = runFresh(`
      process.on('exit', (code) => process.stderr.write('exit listener saw ' + code + '\\n'));
      process.stdout.write('x'.repeat(1 << 20));
      exitWhenIdle(3);`);
    expect(r).toEqual({ status: 3, stdout: 'x'.repeat(1 << 20), stderr: 'exit listener saw 3\n' });
  });

  it('in a real process: what is still to run (a timer set by a promise job, a server) runs before the end', () => {
    const r = runFresh(`
      exitWhenIdle(4);
      Promise.resolve().then(() => setTimeout(() => process.stdout.write('timer ran\\n'), 20));
      const server = net.createServer().listen(0, '127.0.0.1', () =>
        setTimeout(() => server.close(() => process.stdout.write('server closed\\n')), 40));`);
    expect(r).toEqual({ status: 4, stdout: 'timer ran\nserver closed\n', stderr: '' });
  });
});
