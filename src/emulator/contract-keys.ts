/**
 * What the emulator's generated validators (src/emulator/contract-validators.js) and their
 * generator (generate-validators.ts) agree on, apart from both: where the document and the module
 * live, the digest of the document it is made from, and the key a parameter's validator is found by.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/** The emulator's contract, relative to the package root. */
export const OPENAPI_RELATIVE_PATH = 'schemas/platform-api-v2.openapi.json';

/**
 * Where the generated module lives, relative to the package root: JavaScript, as ajv writes it,
 * with its declarations beside it — nothing for tsc to compile (a megabyte of
 * code and its source map were a third of the build) or for vitest to rewrite; the build copies both.
 */
export const CONTRACT_VALIDATORS_MODULE = join('src', 'emulator', 'contract-validators.js');
export const CONTRACT_VALIDATORS_DECLARATIONS = join('src', 'emulator', 'contract-validators.d.ts');

/** The sha256 of the document's text, its line ends as written in git (a checkout may make them CRLF). */
export function contractDigest(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

/** The key a parameter's validator is found by: the path template, the method, where the parameter is, its name. */
export function parameterKey(template: string, method: string, place: string, name: string): string {
  return `${template} ${method.toLowerCase()} ${place} ${name}`;
}
