/**
 * Turns schemas/manifest.schema.json into src/manifest/schema-validator.ts: ajv's standalone
 * code for the schema, so that a run of platform-sync neither loads ajv's compiler nor compiles
 * the schema (about 90 ms of CPU on every start). test/unit/manifest-schema.test.ts fails when
 * the committed file no longer matches the schema. Regenerate with:
 *
 *     npm run build && node dist/src/manifest/generate-schema-validator.js
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findPackageFile } from '../util/package-file.js';
import { readManifestSchema } from './schema.js';

/** Where the generated module lives, relative to the package root. */
export const SCHEMA_VALIDATOR_MODULE = join('src', 'manifest', 'schema-validator.ts');

/**
 * The text of the generated module. Options: every error (allErrors), and errors that carry the
 * data and the schema they are about (verbose), which the messages of schema.ts need.
 */
export function renderSchemaValidatorModule(schema: Record<string, unknown>): string {
  const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, strictRequired: false, allowUnionTypes: true, code: { source: true, esm: true } });
  const code = standaloneCode.default(ajv, ajv.compile(schema));
  return [
    '// @ts-nocheck',
    '// Generated from schemas/manifest.schema.json by src/manifest/generate-schema-validator.ts; do not edit.',
    '// Regenerate: npm run build && node dist/src/manifest/generate-schema-validator.js',
    '/* eslint-disable */',
    // ajv's ESM output still calls require() for its small runtime helpers.
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    code,
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const target = join(findPackageFile('package.json'), '..', SCHEMA_VALIDATOR_MODULE);
  writeFileSync(target, renderSchemaValidatorModule(readManifestSchema()));
  process.stdout.write(`wrote ${target}\n`);
}
