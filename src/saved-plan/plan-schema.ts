/**
 * Saved plans checked against schemas/plan.schema.json (the published form of a plan), by the
 * validator ajv generated from it at build time (plan-validator.js, `npm run generate`): reading a
 * plan back loads neither ajv's compiler nor the schema. Also for tests that hold real planner
 * output against the published contract.
 */
import { validate } from './plan-validator.js';

/** Problems with a value as a plan document, as `<json pointer>: <message>`; empty when valid. */
export function validatePlanDocument(value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
}
