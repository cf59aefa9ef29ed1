/**
 * The validators ajv generates from a schema (`npm run generate`), paths relative to src/: its
 * code as JavaScript, up to a megabyte, its declarations in a `.d.ts` beside it — the build copies
 * both to dist (scripts/place-generated.ts), tsc compiles neither, vitest leaves them to Node
 * (test/support/generated-validators.ts). The generators name the same files
 * (`SCHEMA_VALIDATOR_MODULE`, `CONTRACT_VALIDATORS_MODULE`, `PLAN_VALIDATOR_MODULE`):
 * test/unit/generated-validators.test.ts holds the two lists equal. Imports nothing.
 */
export const GENERATED_VALIDATORS: readonly string[] = [
  'manifest/schema-validator.js',
  'emulator/contract-validators.js',
  'saved-plan/plan-validator.js',
];

/** The declarations beside a generated validator. */
export function declarationsOf(module: string): string {
  return module.replace(/\.js$/, '.d.ts');
}
