/**
 * The README's library example runs as written (issue 40 item 5), against the package's own
 * source, and the library calls it documents behave as documented: `main(argv, io)` reads paths
 * in `io.cwd`, a refused plan never says "No changes", a missing org is missing drift,
 * `exportOrg` takes `{name}`, the JSON views are strings, `readTokensFile` is exported.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import * as lib from '../../src/index.js';
import { REPO_ROOT, runCli } from './cli-harness.js';
import { readDoc } from '../support/docs.js';

const SNIPPETS = join(REPO_ROOT, 'test', '.readme-snippets');
afterAll(() => rmSync(SNIPPETS, { recursive: true, force: true }));

/** The first fenced block of a language after a heading of the README. */
function blockAfter(heading: string, lang: string): string {
  const readme = readDoc('library.md');
  const at = readme.indexOf(`\n${heading}\n`);
  expect(at, heading).toBeGreaterThan(0);
  const start = readme.indexOf(`\`\`\`${lang}\n`, at) + lang.length + 4;
  return readme.slice(start, readme.indexOf('```', start));
}

describe("the README's library API", () => {
  it('runs its example as written: bootstrap, apply, in sync, export and audit', async () => {
    mkdirSync(SNIPPETS, { recursive: true });
    const code = blockAfter('# Library API', 'ts')
      .replace("from 'platform-sync'", `from ${JSON.stringify(join(REPO_ROOT, 'src', 'index.ts'))}`)
      .replaceAll('process.stdout.write(', 'written.push(');
    expect(code).toContain('bootstrap: true');
    const file = join(SNIPPETS, 'library.ts');
    // What the example prints is kept; its last values are exported for the checks below.
    writeFileSync(
      file,
      `export const written: string[] = [];\n${code.replace('describeDrift(plan(desired, after)).inSync;', 'export const inSync = describeDrift(plan(desired, after)).inSync;').replace('const result = await apply(', 'export const result = await apply(')}`,
    );
    const ran = (await import(file)) as { written: string[]; inSync: boolean; result: { ok: boolean } };
    expect(ran.result.ok).toBe(true);
    expect(ran.inSync).toBe(true);
    expect(ran.written.join('')).toContain('create org');
  });

  it('main(argv, io) reads manifest paths in io.cwd', async () => {
    const run = await runCli(['validate', 'acme'], { cwd: join(REPO_ROOT, 'examples') });
    expect(run.code, run.stdout + run.stderr).toBe(0);
  });

  it('a refused plan never reads "No changes", and drift files a missing org as missing', () => {
    const desired = {
      org: { name: 'newco', source: { file: 'o.yaml', line: 1, column: 1 } },
      resources: [],
      settings: { prune: true, ignore: [], protect: [] },
      files: [],
    } as lib.DesiredState;
    const live = {
      org: null,
      resources: [],
      incomplete: [],
      ambiguities: [],
      unplaced: [],
      builtinRoles: {},
    } as unknown as lib.LiveState;
    const refused = lib.plan(desired, live);
    expect(refused.refusals.map((r) => r.rule)).toEqual(['org-not-visible']);
    const text = lib.renderTextPlan(refused, { color: false });
    expect(text).not.toContain('No changes');
    expect(text).toContain('Nothing planned: the plan is refused.');
    const drift = lib.describeDrift(refused);
    expect(drift.inSync).toBe(false);
    expect(drift.items).toEqual([expect.objectContaining({ category: 'missing', address: 'org' })]);
  });

  it('exportOrg takes {name} or {uid} and names the org it could not find', async () => {
    const emulator = await lib.startEmulator({
      checkAnswers: true,
      port: 0,
      tokens: [{ token: 'export-org-token-1234', role: 'owner' }],
    });
    const client = lib.createClient({ baseUrl: emulator.url, token: 'export-org-token-1234' });
    try {
      await expect(lib.exportOrg(client, { name: 'nowhere' })).rejects.toThrow(/org "nowhere" is not visible/);
      emulator.seed({ orgs: [{ name: 'somewhere' }] });
      const files = await lib.exportOrg(client, { name: 'somewhere' });
      expect(files.map((f) => f.file)).toEqual(['org.yaml']);
    } finally {
      await client.close();
      await emulator.close();
    }
  });

  it('exports what it documents, in the shapes it documents', () => {
    expect(typeof lib.readTokensFile).toBe('function');
    const p = lib.plan(
      {
        org: { name: 'a', source: { file: 'o', line: 1, column: 1 } },
        resources: [],
        settings: { prune: true, ignore: [], protect: [] },
        files: [],
      } as lib.DesiredState,
      {
        org: { uid: 'u', name: 'a' },
        resources: [],
        incomplete: [],
        ambiguities: [],
        unplaced: [],
        builtinRoles: {},
      } as unknown as lib.LiveState,
    );
    for (const view of [lib.renderJsonPlan(p), lib.renderJsonDrift(lib.describeDrift(p))])
      expect(typeof view).toBe('string');
    expect(JSON.parse(lib.renderJsonPlan(p))).toEqual(lib.toPlanDocument(p));
  });
});
