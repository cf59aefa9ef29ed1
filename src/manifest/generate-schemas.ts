/**
 * Writes what comes from the one declaration of the fields (src/model/kinds/declarations.ts):
 *
 * - schemas/manifest.schema.json, the manifest schema (manifest-declaration.ts);
 * - src/model/kinds/declared-fields.ts, the field lists the descriptors are built from, so run
 *   time never loads TypeBox;
 * - src/manifest/schema-validator.js, ajv's standalone code for the schema (JavaScript, with its
 *   declarations in schema-validator.d.ts: nothing for tsc to compile or vitest to rewrite; the
 *   build copies both), so that a run of
 *   platform-sync neither loads ajv's compiler nor compiles the schema (about 90 ms of CPU on
 *   every start);
 * - src/saved-plan/plan-validator.js (and .d.ts), the same for schemas/plan.schema.json (written by hand, the
 *   published form of a saved plan), which every `apply plan.json` checks a plan against (about
 *   0.2 s of CPU compiling it, and ajv's compiler loaded, on every such apply).
 *
 * test/unit/declaration.test.ts and manifest-schema.test.ts fail when a committed file no longer
 * matches the declaration. Regenerate with:
 *
 *     npm run generate
 */
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findPackageFile } from '../io/package-file.js';
import { readPackageText } from '../io/read-file.js';
import { FIELD_DECLARATIONS } from '../model/kinds/declarations.js';
import { manifestSchema } from './manifest-declaration.js';

/** Where the generated files live, relative to the package root. */
export const SCHEMA_VALIDATOR_MODULE = join('src', 'manifest', 'schema-validator.js');
export const SCHEMA_VALIDATOR_DECLARATIONS = join('src', 'manifest', 'schema-validator.d.ts');
export const MANIFEST_SCHEMA_FILE = join('schemas', 'manifest.schema.json');
export const DECLARED_FIELDS_MODULE = join('src', 'model', 'kinds', 'declared-fields.ts');
export const PLAN_VALIDATOR_MODULE = join('src', 'saved-plan', 'plan-validator.js');
export const PLAN_VALIDATOR_DECLARATIONS = join('src', 'saved-plan', 'plan-validator.d.ts');
export const PLAN_SCHEMA_FILE = join('schemas', 'plan.schema.json');

/** The text of schemas/manifest.schema.json. */
export function renderManifestSchema(): string {
  return `${JSON.stringify(manifestSchema(), null, 2)}\n`;
}

/** The JSON type of a declared field's schema: what its FieldType is by default. */
function jsonTypeOf(schema: unknown): string {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string')
    throw new Error(`a declared field needs a single JSON type, got ${JSON.stringify(schema)}`);
  return type;
}

/** The text of declared-fields.ts: each kind's fields in declaration order, with their JSON types. */
export function renderDeclaredFieldsModule(): string {
  const lines = Object.entries(FIELD_DECLARATIONS).map(([kind, decl]) => {
    const fields = Object.entries(decl.properties as Record<string, unknown>).map(
      ([name, schema]) => `{ name: ${JSON.stringify(name)}, json: ${JSON.stringify(jsonTypeOf(schema))} }`,
    );
    return `  ${kind}: [${fields.join(', ')}],`;
  });
  return [
    '// Generated from src/model/kinds/declarations.ts by src/manifest/generate-schemas.ts; do not edit.',
    '// Regenerate: npm run generate',
    "import type { DeclaredField } from '../kind-descriptor.js';",
    '',
    "/** Each kind's managed fields as declared, in order, with the JSON type of their values. */",
    'export const DECLARED_FIELDS = {',
    ...lines,
    '} as const satisfies Record<string, readonly DeclaredField[]>;',
    '',
  ].join('\n');
}

/** ajv's standalone ESM code for `schema` with `options`, as a module generated from `source`. */
function standaloneModule(source: string, schema: object, options: Options): string {
  const ajv = new Ajv2020({ ...options, code: { source: true, esm: true } });
  return [
    `// Generated from ${source} by src/manifest/generate-schemas.ts; do not edit.`,
    '// Regenerate: npm run generate',
    '/* eslint-disable */',
    // ajv's ESM output still calls require() for its small runtime helpers.
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    standaloneCode.default(ajv, ajv.compile(schema)),
    '',
  ].join('\n');
}

/**
 * The text of the generated module. Options: every error (allErrors), and errors that carry the
 * data and the schema they are about (verbose), which the messages of schema.ts need. Each `$defs`
 * entry is one function, not inlined at every `$ref` (inlineRefs: false): an org and a group list
 * the same kinds, so inlined, each kind's checks were written twice — 336 KB of code against
 * 238 KB, which every `plan` and `validate` compiles (≈15 ms of CPU, docs/performance.md). The
 * errors are the same objects in the same order; only their `schemaPath` names the definition.
 */
export function renderSchemaValidatorModule(schema: Record<string, unknown>): string {
  return standaloneModule('schemas/manifest.schema.json', schema, {
    allErrors: true,
    verbose: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    inlineRefs: false,
  });
}

/**
 * The text of the saved plan's generated validator, made from the text of schemas/plan.schema.json:
 * every error, in the schema's strict reading, as saved-plan/plan-schema.ts reports them.
 */
export function renderPlanValidatorModule(schemaText: string): string {
  return standaloneModule('schemas/plan.schema.json', JSON.parse(schemaText) as object, {
    allErrors: true,
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
  });
}

/** The declarations of a generated validator module (what schema.ts and plan-schema.ts import of it). */
export function renderValidatorDeclarations(source: string): string {
  return [
    `// Generated from ${source} by src/manifest/generate-schemas.ts: the declarations of its validator; do not edit.`,
    "import type { ErrorObject } from 'ajv';",
    'type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };',
    `/** Whether a value is what ${source} describes (its errors, when not, on \`validate.errors\`). */`,
    'export declare const validate: Validator;',
    'export default validate;',
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(findPackageFile('package.json'), '..');
  writeFileSync(join(root, MANIFEST_SCHEMA_FILE), renderManifestSchema());
  writeFileSync(join(root, DECLARED_FIELDS_MODULE), renderDeclaredFieldsModule());
  writeFileSync(join(root, SCHEMA_VALIDATOR_MODULE), renderSchemaValidatorModule(manifestSchema()));
  writeFileSync(join(root, SCHEMA_VALIDATOR_DECLARATIONS), renderValidatorDeclarations('schemas/manifest.schema.json'));
  writeFileSync(
    join(root, PLAN_VALIDATOR_MODULE),
    renderPlanValidatorModule(readPackageText(join(root, PLAN_SCHEMA_FILE))),
  );
  writeFileSync(join(root, PLAN_VALIDATOR_DECLARATIONS), renderValidatorDeclarations('schemas/plan.schema.json'));
  process.stdout.write(
    `wrote ${MANIFEST_SCHEMA_FILE}, ${DECLARED_FIELDS_MODULE}, ${SCHEMA_VALIDATOR_MODULE} and ${PLAN_VALIDATOR_MODULE} (with their declarations)\n`,
  );
}
