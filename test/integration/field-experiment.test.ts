/**
 * The field experiment (issue 41): a field added to the group declaration and one added to the
 * repo declaration — in a temporary copy, touching only src/model/kinds/declarations.ts and the
 * emulator's contract (schemas/platform-api-v2.openapi.json) — are validated, planned, applied,
 * read back and exported like any other, with no other line of the product changed.
 *
 * The temporary copy is src/ and schemas/ with the two edits. The four outputs of `npm run generate`
 * that the edits change are made again from it — its generator bundled from the copy — and written
 * into it; then the library is bundled from the copy as it now is, and run against its own emulator
 * over loopback. Each bundle (rolldown, as the CLI's bundle is made) is CommonJS loaded with Node's
 * own `require`, in this process: vite does not transform the copy's modules, which was most of this
 * test's CPU when vitest loaded the copy's src/ as it loads ours (two copies, each with ≈0.5 MB of
 * generated contract validators; issue 63). In a bundle `import.meta.url` is the bundle's
 * file, so the library finds the copy's schemas/ and package.json above it, as it does installed;
 * packages stay in node_modules (the copy links ours), but those that are ES modules only are bundled.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { rolldown } from 'rolldown';
import { afterAll, describe, expect, it } from 'vitest';
import { setUpdateMaskPatterns } from '../support/update-masks.js';
import { CONTRACT_VALIDATORS_MODULE } from '../../src/emulator/contract-keys.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const load = createRequire(import.meta.url);
const temp = mkdtempSync(join(tmpdir(), 'platform-sync-field-experiment-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** Inserts `line` after the first line matching `after` inside the `kind: Type.Object({` block of the declarations. */
function declare(text: string, kind: string, line: string): string {
  const opening = `  ${kind}: Type.Object({\n`;
  const start = text.indexOf(opening);
  expect(start, `the declaration of ${kind}`).toBeGreaterThanOrEqual(0);
  // The kind's first field, whatever the formatter made of the lines after it.
  const end = start + opening.length;
  return `${text.slice(0, end)}${line}\n${text.slice(end)}`;
}

/** Adds a string field to the contract's resource, create and patch schemas of a component. */
function contract(
  doc: { components: { schemas: Record<string, { properties: Record<string, unknown> }> } },
  component: string,
  field: string,
): void {
  for (const name of [component, `${component}Create`, `${component}Patch`])
    doc.components.schemas[name]!.properties[field] = { type: 'string', maxLength: 200 };
}

/**
 * Whether Node loads the file as an ES module (by its extension, or the `type` of the package.json nearest it):
 * the bundles take those packages in, since a CommonJS bundle's default import of one `require`d is its namespace.
 */
function isEsModule(file: string): boolean {
  if (/\.[cm]js$/.test(file)) return file.endsWith('.mjs');
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir))
    if (existsSync(join(dir, 'package.json')))
      return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { type?: string }).type === 'module';
  return false;
}

/**
 * Bundles entries of the copy (name → file) as CommonJS into `<copy>/<dir>/` and loads each with Node's own
 * `require`, which vitest does not intercept. Node's built-in modules and the packages Node can `require` stay
 * outside, found at run time through the copy's node_modules link.
 */
async function bundle(copy: string, dir: string, input: Record<string, string>): Promise<Record<string, unknown>> {
  const build = await rolldown({
    input,
    platform: 'node',
    logLevel: 'warn',
    external: (id) => isBuiltin(id) || (!id.startsWith('.') && !isAbsolute(id) && !isEsModule(load.resolve(id))),
  });
  await build.write({
    dir: join(copy, dir),
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: '[name]-[hash].cjs',
  });
  await build.close();
  return Object.fromEntries(Object.keys(input).map((name) => [name, load(join(copy, dir, `${name}.cjs`))]));
}

describe('a field added to the declaration and the contract, and nothing else', () => {
  it('is validated, planned, applied, read back and exported (a group field and a repo field)', async () => {
    const copy = join(temp, 'copy');
    for (const dir of ['src', 'schemas']) cpSync(join(ROOT, dir), join(copy, dir), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));

    // The two edits: the declaration, and the emulator's contract.
    const declarations = join(copy, 'src', 'model', 'kinds', 'declarations.ts');
    let text = readFileSync(declarations, 'utf8');
    text = declare(
      text,
      'group',
      '    owner: Type.Optional(Type.String({ title: "Owner", description: "Who answers for the group." })),',
    );
    text = declare(
      text,
      'repo',
      '    criticality: Type.Optional(Type.String({ title: "Criticality", description: "How critical the repo is." })),',
    );
    writeFileSync(declarations, text);
    const openapi = join(copy, 'schemas', 'platform-api-v2.openapi.json');
    const doc = JSON.parse(readFileSync(openapi, 'utf8'));
    contract(doc, 'Group', 'owner');
    contract(doc, 'Repo', 'criticality');
    // The contract's update masks name every field of a PATCH body: derived again, as its own test holds them.
    setUpdateMaskPatterns(doc as unknown as Record<string, unknown>);
    writeFileSync(openapi, JSON.stringify(doc, null, 2));

    // `npm run generate`: its outputs made from the edited declarations and contract, written into the copy…
    const generator = await bundle(copy, 'generator', {
      schemas: join(copy, 'src', 'manifest', 'generate-schemas.ts'),
      declaration: join(copy, 'src', 'manifest', 'manifest-declaration.ts'),
      validators: join(copy, 'src', 'emulator', 'generate-validators.ts'),
    });
    const schemas = generator.schemas as typeof import('../../src/manifest/generate-schemas.js');
    const { manifestSchema } = generator.declaration as typeof import('../../src/manifest/manifest-declaration.js');
    const validators = generator.validators as typeof import('../../src/emulator/generate-validators.js');
    writeFileSync(join(copy, schemas.MANIFEST_SCHEMA_FILE), schemas.renderManifestSchema());
    writeFileSync(join(copy, schemas.DECLARED_FIELDS_MODULE), schemas.renderDeclaredFieldsModule());
    writeFileSync(join(copy, schemas.SCHEMA_VALIDATOR_MODULE), schemas.renderSchemaValidatorModule(manifestSchema()));
    writeFileSync(
      join(copy, CONTRACT_VALIDATORS_MODULE),
      validators.renderContractValidatorsModule(readFileSync(openapi, 'utf8')),
    );
    expect(readFileSync(join(copy, 'src', 'model', 'kinds', 'declared-fields.ts'), 'utf8')).toContain('owner');

    // …and the library bundled from the copy as it then is.
    const lib = (await bundle(copy, 'library', { index: join(copy, 'src', 'index.ts') }))
      .index as typeof import('../../src/index.js');
    const manifest = (owner: string, criticality: string) => ({
      file: 'org.yaml',
      text: `apiVersion: platform-sync/v1\norg:\n  name: acme\n  owner: ${owner}\n  repos:\n    - {name: app, criticality: ${criticality}}\n  groups:\n    - name: team\n      owner: ${owner}-team\n`,
    });

    // validate: the new fields are accepted where declared, refused where not.
    const bad = lib.validateManifestTexts([
      {
        file: 'bad.yaml',
        text: 'apiVersion: platform-sync/v1\norg:\n  name: acme\n  identities:\n    - {name: bot, criticality: gold}\n',
      },
    ]);
    expect(bad.diagnostics.map((d) => d.message).join('\n')).toContain('unknown field "criticality"');
    const first = lib.validateManifestTexts([manifest('ann', 'gold')]);
    expect(first.diagnostics).toEqual([]);

    const emulator = await lib.startEmulator({
      checkAnswers: true,
      port: 0,
      tokens: [{ token: 'field-experiment-token-0001', role: 'owner' }],
    });
    const client = lib.createClient({ baseUrl: emulator.url, token: 'field-experiment-token-0001' });
    try {
      const read = (desired: import('../../src/index.js').DesiredState) =>
        lib.readLiveState(client, { org: { name: 'acme' }, subResources: 'all', expected: desired.resources });
      // plan → apply: the fields are sent on create.
      const created = lib.plan(first.state!, await read(first.state!), { bootstrap: true });
      expect(created.refusals).toEqual([]);
      expect((await lib.apply(created, client, {})).failed).toEqual([]);
      const live = await read(first.state!);
      expect(live.resources.find((r) => r.address === 'org')!.fields).toMatchObject({ owner: 'ann' });
      expect(live.resources.find((r) => r.address === 'group:team')!.fields).toMatchObject({ owner: 'ann-team' });
      expect(live.resources.find((r) => r.address === 'repo:app')!.fields).toMatchObject({ criticality: 'gold' });
      expect(lib.plan(first.state!, live).steps).toEqual([]);

      // A change is one PATCH naming exactly the new field.
      const changed = lib.validateManifestTexts([manifest('bob', 'silver')]).state!;
      const update = lib.plan(changed, live);
      expect(
        update.steps
          .map((s) => `${s.action} ${s.address} ${s.action === 'update' ? s.updateMask.join(',') : ''}`)
          .sort(),
      ).toEqual(['update group:team owner', 'update org owner', 'update repo:app criticality']);
      expect((await lib.apply(update, client, {})).failed).toEqual([]);

      // export writes them, and a plan of the export is empty.
      const after = await read(changed);
      const files = lib.exportManifests(after);
      const exported = files.map((f) => f.text).join('\n');
      expect(exported).toContain('owner: bob');
      expect(exported).toContain('owner: bob-team');
      expect(exported).toContain('criticality: silver');
      const again = lib.validateManifestTexts(files.map((f) => ({ file: f.file, text: f.text })));
      expect(again.diagnostics).toEqual([]);
      expect(lib.plan(again.state!, after).steps).toEqual([]);
    } finally {
      await client.close();
      await emulator.close();
    }
    // The copy bundled and loaded afresh: seconds quiet, far longer at a load of 15 (issue 63: a bound
    // against a hang, never one a loaded machine trips).
  }, 300_000);
});
