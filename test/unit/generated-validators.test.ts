/**
 * The tests load the generated validators as Node loads them, not rewritten by vite
 * (test/support/generated-validators.ts) — the module a test imports is Node's own.
 */
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declarationsOf, GENERATED_VALIDATORS } from '../../scripts/generated-validators.js';
import { CONTRACT_VALIDATORS_DECLARATIONS, CONTRACT_VALIDATORS_MODULE } from '../../src/emulator/contract-keys.js';
import {
  PLAN_VALIDATOR_DECLARATIONS,
  PLAN_VALIDATOR_MODULE,
  SCHEMA_VALIDATOR_DECLARATIONS,
  SCHEMA_VALIDATOR_MODULE,
} from '../../src/manifest/generate-schemas.js';
import { generatedValidatorPatterns } from '../support/generated-validators.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

describe('the generated validators in the tests', () => {
  it('are the files the generators write, and their declarations', () => {
    const named = [SCHEMA_VALIDATOR_MODULE, CONTRACT_VALIDATORS_MODULE, PLAN_VALIDATOR_MODULE];
    expect(GENERATED_VALIDATORS.map((m) => join('src', m))).toEqual(named);
    expect(GENERATED_VALIDATORS.map((m) => join('src', declarationsOf(m)))).toEqual([
      SCHEMA_VALIDATOR_DECLARATIONS,
      CONTRACT_VALIDATORS_DECLARATIONS,
      PLAN_VALIDATOR_DECLARATIONS,
    ]);
  });

  it('are each named by a pattern that matches that file alone', () => {
    const patterns = generatedValidatorPatterns('/r');
    expect(patterns).toHaveLength(GENERATED_VALIDATORS.length);
    const contract = patterns.find((p) => p.test('/r/src/emulator/contract-validators.js'))!;
    expect(contract).toBeDefined();
    expect(contract.test('/r/src/emulator/contract-validators.d.ts')).toBe(false);
    expect(contract.test('/r/src/emulator/contract-validatorsXjs')).toBe(false);
    expect(contract.test('/x/r/src/emulator/contract-validators.js')).toBe(false);
  });

  it('are the very modules Node loads: what src/ imports is what require gives', async () => {
    const viaSource = await import('../../src/emulator/contract-validators.js');
    // Node's own loader, which vitest does not see (require of an ES module: Node's module map).
    const viaNode = createRequire(import.meta.url)(join(ROOT, 'src', 'emulator', 'contract-validators.js'));
    expect(viaSource).toBe(viaNode);
    expect(viaSource.CONTRACT_SHA256).toMatch(/^[0-9a-f]{64}$/);
  });
});
