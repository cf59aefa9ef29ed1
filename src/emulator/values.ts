/**
 * The emulator's own value helpers (STYLE.md 16: it shares no function with the client, so that
 * a bug in the client's helpers is never one in the oracle that judges it).
 */

/** A JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A deep copy of a JSON value (arrays and objects copied, scalars as they are). */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => copyJson(v)) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: copyJson(v), enumerable: true, writable: true, configurable: true });
    return out as T;
  }
  return value;
}
