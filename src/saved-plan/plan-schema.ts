/**
 * schemas/plan.schema.json, compiled once, for reading saved plans back (and for tests that
 * hold real planner output against the published contract).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { readPackageText } from '../io/read-file.js';
import { join } from 'node:path';
import { findPackageFile } from '../io/package-file.js';

const SCHEMA_RELATIVE_PATH = join('schemas', 'plan.schema.json');

/** Path of schemas/plan.schema.json in this package. */
function findPlanSchemaPath(): string {
  return findPackageFile(SCHEMA_RELATIVE_PATH);
}

let validator: ValidateFunction | undefined;

/** Problems with a value as a plan document, as `<json pointer>: <message>`; empty when valid. */
export function validatePlanDocument(value: unknown): string[] {
  if (!validator) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    validator = ajv.compile(JSON.parse(readPackageText(findPlanSchemaPath())) as object);
  }
  if (validator(value)) return [];
  return (validator.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}
