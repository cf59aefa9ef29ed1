/**
 * A dependency loaded on first use, synchronously: for the libraries most runs never need (the
 * `yaml` package when every manifest is plain, `diff` when no text changed), so that a CLI
 * start does not pay for them. Every package used this way ships a CommonJS build.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}

/**
 * Node's own modules that most runs never use, loaded on first use too: `node:crypto` (≈6 ms of
 * CPU for a fresh process to load: a temporary file's name, the embedded emulator's token, a
 * saved plan's hashes) and `node:readline/promises` (apply's question). A `validate` or an empty
 * `plan` loads neither (docs/performance.md, issue 61).
 */
export const crypto = lazyRequire<typeof import('node:crypto')>('node:crypto');
export const readline = lazyRequire<typeof import('node:readline/promises')>('node:readline/promises');
