// Generated from schemas/plan.schema.json by src/manifest/generate-schemas.ts: the declarations of its validator; do not edit.
import type { ErrorObject } from 'ajv';
type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
/** Whether a value is what schemas/plan.schema.json describes (its errors, when not, on `validate.errors`). */
export declare const validate: Validator;
export default validate;
