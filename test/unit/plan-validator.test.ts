/**
 * Saved plans are checked by the validator ajv generated from schemas/plan.schema.json at build
 * time (src/saved-plan/plan-validator.js, its declarations beside it): it is what the generator makes of the schema as it is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PLAN_SCHEMA_FILE,
  PLAN_VALIDATOR_DECLARATIONS,
  PLAN_VALIDATOR_MODULE,
  renderPlanValidatorModule,
  renderValidatorDeclarations,
} from '../../src/manifest/generate-schemas.js';
import { validatePlanDocument } from '../../src/saved-plan/plan-schema.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe("the saved plan's generated validator", () => {
  it('is what the generator makes of schemas/plan.schema.json as it is', () => {
    const committed = readFileSync(join(ROOT, PLAN_VALIDATOR_MODULE), 'utf8');
    const schema = readFileSync(join(ROOT, PLAN_SCHEMA_FILE), 'utf8');
    expect(
      committed === renderPlanValidatorModule(schema),
      `${PLAN_VALIDATOR_MODULE} is stale; regenerate: npm run generate`,
    ).toBe(true);
    expect(readFileSync(join(ROOT, PLAN_VALIDATOR_DECLARATIONS), 'utf8')).toBe(
      renderValidatorDeclarations('schemas/plan.schema.json'),
    );
  });

  it('names every problem of a document by its pointer', () => {
    expect(validatePlanDocument({ formatVersion: 'x' }).length).toBeGreaterThan(1);
    expect(validatePlanDocument([])).toEqual(['/: must be object']);
  });
});
