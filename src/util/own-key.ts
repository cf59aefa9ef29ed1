/**
 * `target[key] = value` as an own data property whatever the key. Assigning `"__proto__"` sets
 * the object's prototype instead (the key vanishes, and what the value holds is inherited), and
 * a JSON object from a server or a client may hold that key as data: `JSON.parse` keeps it so.
 */
export function setOwnKey(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
