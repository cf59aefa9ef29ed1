/**
 * Keeps the API token out of every string the client lets escape (error messages, event
 * paths, verbose lines). The token may legitimately occur in data — a user can name a
 * resource after it — so everything derived from requests and responses passes through here.
 */

export const REDACTED = '[REDACTED]';

/**
 * Below this length a secret is redacted only where it is the whole text. Cutting a short token
 * out of ordinary words protects nothing (a secret that short falls to guessing anyway) and
 * gives it away: `globe[REDACTED]` for the token "x" in a group named "globex" shows the token
 * to anyone reading, and mangles every message it touches.
 */
export const MIN_REDACTED_LENGTH = 8;

/**
 * Replaces every occurrence of `secret` in `text`; identity when there is no secret. A secret
 * shorter than MIN_REDACTED_LENGTH is replaced only when it is all of `text`.
 */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  if (secret.length < MIN_REDACTED_LENGTH) return text === secret ? REDACTED : text;
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
