/**
 * Writes src/emulator/contract-validators.js (and its declarations, contract-validators.d.ts): ajv's standalone code for every schema the
 * emulator checks against its contract (schemas/platform-api-v2.openapi.json) — each component
 * schema (request bodies, answers, `HttpsUrl`) and each parameter an operation declares — so that
 * an emulator neither loads ajv's compiler nor compiles the document when it starts (≈0.25–0.5 s
 * of CPU in every `--emulator` process, more with its answers checked; docs/performance.md).
 *
 * The code is ajv's, from the document alone, with the options the checks need: the bodies' and
 * answers' with every error and the schema each is about (`verbose`: a rule over a whole body is
 * named by its description), the parameters' read from text as the URL gives them (`coerceTypes:
 * 'array'`). The module carries the sha256 of the document it was made from; the emulator refuses
 * to start its checks on another (test/unit/contract-validators.test.ts fails first). Regenerate:
 *
 *     npm run generate
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv2020, type Options } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { findPackageFile } from '../io/package-file.js';
import { readPackageText } from '../io/read-file.js';
import {
  CONTRACT_VALIDATORS_DECLARATIONS,
  CONTRACT_VALIDATORS_MODULE,
  contractDigest,
  OPENAPI_RELATIVE_PATH,
  parameterKey,
} from './contract-keys.js';

type Json = Record<string, unknown>;

/**
 * Component schemas: every error, with the schema it is about (a whole-body rule's description).
 * Each component one function, called where another refers to it, not written out again at every
 * reference (inlineRefs: false): the errors are the same, the code a quarter smaller.
 */
const COMPONENT_OPTIONS: Options = { strict: false, allErrors: true, verbose: true, inlineRefs: false };
/** Parameters arrive as text: integers read as integers, an array parameter takes every value given. */
const PARAMETER_OPTIONS: Options = { strict: false, coerceTypes: 'array' };

/** A schema of the document, its local references made to point into the document (added as `openapi`). */
function localRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(localRefs);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Json).map(([k, v]) => [
        k,
        k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `openapi${v}` : localRefs(v),
      ]),
    );
  return value;
}

/** The methods a path item of OpenAPI 3.1 may hold an operation under. */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Every parameter an operation of the document declares, by key — an operation's own declaration
 * of a name and place overriding its path item's, as OpenAPI says — with its schema as JSON text.
 */
function parameters(doc: Json): Map<string, string> {
  const out = new Map<string, string>();
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      for (const p of [
        ...((item.parameters as Json[] | undefined) ?? []),
        ...((op.parameters as Json[] | undefined) ?? []),
      ])
        out.set(
          parameterKey(template, method, p.in as string, p.name as string),
          JSON.stringify(localRefs(p.schema ?? {})),
        );
    }
  }
  return out;
}

/**
 * ajv's standalone code for `schemas` (export name → schema id) as a CommonJS body, run in a
 * scope of its own so that two of them in one module do not share names; the value of the
 * expression is the exports.
 */
function scopedStandalone(ajv: Ajv2020, exportsByName: Record<string, string>): string {
  const code = standaloneCode.default(ajv, exportsByName);
  return `(() => {\nconst exports = {};\nconst module = { exports };\n${code}\nreturn module.exports;\n})()`;
}

/** The text of the generated module for the document `text`. */
export function renderContractValidatorsModule(text: string): string {
  const doc = JSON.parse(text) as Json;
  const components = Object.keys((doc.components as { schemas: Json }).schemas);
  const componentAjv = new Ajv2020({ ...COMPONENT_OPTIONS, code: { source: true } });
  componentAjv.addSchema(doc, 'openapi');
  const componentExports = Object.fromEntries(
    components.map((name, i) => [`component${i}`, `openapi#/components/schemas/${name}`]),
  );
  // Most parameters share a few schemas (paging, ordering, a uid): one validator each.
  const params = parameters(doc);
  const schemas = [...new Set(params.values())];
  const parameterAjv = new Ajv2020({ ...PARAMETER_OPTIONS, code: { source: true } });
  parameterAjv.addSchema(doc, 'openapi');
  schemas.forEach((schema, i) => parameterAjv.addSchema(JSON.parse(schema) as Json, `parameter${i}`));
  const parameterExports = Object.fromEntries(schemas.map((_, i) => [`parameter${i}`, `parameter${i}`]));
  return [
    `// Generated from schemas/platform-api-v2.openapi.json by src/emulator/generate-validators.ts; do not edit.`,
    '// Regenerate: npm run generate',
    '/* eslint-disable */',
    // ajv's code calls require() for its small runtime helpers.
    "import { createRequire } from 'node:module';",
    'const require = createRequire(import.meta.url);',
    `export const CONTRACT_SHA256 = ${JSON.stringify(contractDigest(text))};`,
    `const components = ${scopedStandalone(componentAjv, componentExports)};`,
    `const parameters = ${scopedStandalone(parameterAjv, parameterExports)};`,
    '/** Each component schema of the document, by name. */',
    'export const COMPONENTS = {',
    ...components.map((name, i) => `  ${JSON.stringify(name)}: components.component${i},`),
    '};',
    '/** Each parameter an operation declares, by `<template> <method> <in> <name>`. */',
    'export const PARAMETERS = {',
    ...[...params].map(([key, schema]) => `  ${JSON.stringify(key)}: parameters.parameter${schemas.indexOf(schema)},`),
    '};',
    '',
  ].join('\n');
}

/** The declarations of the generated module (what contract.ts imports of it), whatever the document. */
export function renderContractValidatorsDeclarations(): string {
  return [
    '// Generated by src/emulator/generate-validators.ts: the declarations of contract-validators.js; do not edit.',
    "import type { ErrorObject } from 'ajv';",
    'type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };',
    '/** The sha256 of the document the validators were made from. */',
    'export declare const CONTRACT_SHA256: string;',
    '/** Each component schema of the document, by name. */',
    'export declare const COMPONENTS: Readonly<Record<string, Validator | undefined>>;',
    '/** Each parameter an operation declares, by `<template> <method> <in> <name>`. */',
    'export declare const PARAMETERS: Readonly<Record<string, Validator | undefined>>;',
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(findPackageFile('package.json'), '..');
  const text = readPackageText(join(root, OPENAPI_RELATIVE_PATH));
  writeFileSync(join(root, CONTRACT_VALIDATORS_MODULE), renderContractValidatorsModule(text));
  writeFileSync(join(root, CONTRACT_VALIDATORS_DECLARATIONS), renderContractValidatorsDeclarations());
  process.stdout.write(`wrote ${CONTRACT_VALIDATORS_MODULE} and ${CONTRACT_VALIDATORS_DECLARATIONS}\n`);
}
