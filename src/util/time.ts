/**
 * Times as the API writes them, from the time it is given — a Date made from it, never the
 * clock — so that the planner, which may read no clock, can use it.
 */

/** `2026-12-04T03:16:55Z`: RFC 3339 in UTC, to the second (what an invite's expiration is sent as). */
export function rfc3339Seconds(ms: number): string {
  return `${rfc3339Millis(Math.floor(ms / 1000) * 1000).slice(0, -5)}Z`;
}

/**
 * `2026-12-04T03:16:55.123Z`: RFC 3339 in UTC with milliseconds, the one form the service answers
 * every time in — exactly what the standard library writes (`Date.prototype.toISOString`).
 */
export function rfc3339Millis(ms: number): string {
  return new Date(ms).toISOString();
}
