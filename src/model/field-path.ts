/**
 * Dotted field paths (`oidc.clientSecret`, `syncConfig.expiration`): what an update mask names
 * inside an object field, and where a request body or a live value holds it.
 */
import { isPlainObject } from './kind-descriptor.js';

/** Sets `value` at a dotted path inside a request body, copying the objects on the way (never the caller's). */
export function setAtPath(body: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let holder = body;
  for (const part of parts.slice(0, -1)) {
    const next = holder[part];
    holder[part] = isPlainObject(next) ? { ...next } : {};
    holder = holder[part] as Record<string, unknown>;
  }
  holder[parts[parts.length - 1]!] = value;
}

/** The value at a dotted path, or undefined when any step on the way is not an object. */
export function valueAtPath(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const part of path) at = isPlainObject(at) && Object.hasOwn(at, part) ? at[part] : undefined;
  return at;
}
