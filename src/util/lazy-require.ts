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
