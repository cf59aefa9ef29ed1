/**
 * The emulator's contract as an outside reader has it: schemas/platform-api-v2.openapi.json,
 * parsed once per worker (vitest's `isolate: false` keeps module state across a worker's files)
 * and frozen, so that every test reading it shares one document — and one compiled checker of it
 * (conformanceOf) — and a test that changes it works on a copy.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export const CONTRACT_DOCUMENT: Readonly<Record<string, unknown>> = deepFreeze(
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'schemas', 'platform-api-v2.openapi.json'), 'utf8')),
);
