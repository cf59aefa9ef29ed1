/**
 * schemas/plan.schema.json, compiled once, for reading saved plans back (and for tests that
 * hold real planner output against the published contract).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCHEMA_RELATIVE_PATH = join('schemas', 'plan.schema.json');

/**
 * The schema file sits at the package root, reached by walking up from this module both
 * from `src/` (tests) and from `dist/src/` (the built CLI, the published package).
 */
export function findPlanSchemaPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, SCHEMA_RELATIVE_PATH);
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) throw new Error(`${SCHEMA_RELATIVE_PATH} not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

let validator: ValidateFunction | undefined;

/** Problems with a value as a plan document, as `<json pointer>: <message>`; empty when valid. */
export function validatePlanDocument(value: unknown): string[] {
  if (!validator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    validator = ajv.compile(JSON.parse(readFileSync(findPlanSchemaPath(), 'utf8')) as object);
  }
  if (validator(value)) return [];
  return (validator.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}
