/**
 * Keeps the API token out of every string the client lets escape (error messages, event
 * paths, verbose lines). The token may legitimately occur in data — a user can name a
 * resource after it — so everything derived from requests and responses passes through here.
 */

export const REDACTED = '[REDACTED]';

/** Replaces every occurrence of `secret` in `text`; identity when there is no secret. */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  return text.split(secret).join(REDACTED);
}

/** Redacts every string inside a JSON-like value (error details), returning a copy. */
export function redactDeep<T>(value: T, secret: string | undefined): T {
  if (!secret) return value;
  if (typeof value === 'string') return redactSecret(value, secret) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, secret)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redactSecret(k, secret)] = redactDeep(v, secret);
    return out as T;
  }
  return value;
}
