/**
 * Keeps the API token out of every string the client lets escape (error messages, event
 * paths, verbose lines). The token may legitimately occur in data — a user can name a
 * resource after it — so everything derived from requests and responses passes through here.
 */

import { escapeControl, escapeHtml, escapeJsonText, escapeValue, escapeWorkflowLog, markdownText } from './escape.js';

export const REDACTED = '[REDACTED]';

/**
 * Below this length a secret is redacted only where it is the whole text. Cutting a short token
 * out of ordinary words protects nothing (a secret that short falls to guessing anyway) and
 * gives it away: `globe[REDACTED]` for the token "x" in a group named "globex" shows the token
 * to anyone reading, and mangles every message it touches.
 */
export const MIN_REDACTED_LENGTH = 8;

/** A string's text inside JSON quotes, as JSON.stringify writes it. */
function jsonInner(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/**
 * Every form a secret can take on its way out (DESIGN.md §8 rev 4): as is; JSON-escaped, once
 * (a server that echoes a request) and twice (a JSON error message quoting a JSON body), with
 * the door's `\uXXXX` escapes; with the door's `\u{…}` escapes; URL-encoded (upper and lower
 * case hex, `+` for a space); HTML- and markdown-escaped as the markdown views write text; and as
 * the workflow-log escape writes it.
 * Longest first, so that a longer form is cut whole before a shorter one inside it.
 */
export function secretForms(secret: string): string[] {
  const j1 = jsonInner(secret);
  const j2 = jsonInner(j1);
  const url = encodeURIComponent(secret);
  const forms = [
    secret,
    j1,
    j2,
    escapeJsonText(j1),
    escapeJsonText(j2),
    escapeControl(secret),
    escapeValue(secret),
    escapeControl(j1),
    url,
    url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
    url.replace(/%20/g, '+'),
    encodeURI(secret),
    escapeHtml(secret),
    escapeHtml(j1),
    escapeHtml(escapeControl(secret)),
    markdownText(secret),
    markdownText(escapeValue(secret)),
    // In a code span (markdownCode) the value is as escapeValue writes it; in a table's, `|` is `\|`.
    escapeValue(secret).replaceAll('|', '\\|'),
    // As the Action's log escape writes it (it redacts some text after escaping it): at the start
    // of a line (`::` written `\u{3a}:`) and anywhere else (`##[` written `#\u0023[`).
    escapeWorkflowLog(secret),
    escapeWorkflowLog(`.${secret}`).slice(1),
    escapeWorkflowLog(escapeValue(secret)),
    ...base64Cores(secret),
  ];
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/**
 * The secret base64-encoded (standard and URL-safe) inside any longer base64 text: at each of the
 * 3 byte alignments it can start at, the characters that its own bytes alone decide (the first
 * and last may mix in the neighbours' bits, so they are left out). A standalone encoding is the
 * alignment 0 case: what is left around the cut (a character, the padding) tells nothing.
 */
function base64Cores(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    const core = encoded.slice(Math.ceil((8 * k) / 6), Math.floor((8 * (k + bytes.length)) / 6));
    cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

const FORMS = new Map<string, string[]>();

/**
 * Replaces every occurrence of `secret`, in each of its {@link secretForms}, in `text`; identity
 * when there is no secret. A secret shorter than MIN_REDACTED_LENGTH is replaced only when it is
 * all of `text`.
 */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret) return text;
  if (secret.length < MIN_REDACTED_LENGTH) return text === secret ? REDACTED : text;
  let forms = FORMS.get(secret);
  if (forms === undefined) {
    forms = secretForms(secret);
    if (FORMS.size > 1000) FORMS.clear();
    FORMS.set(secret, forms);
  }
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
  return out;
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

/**
 * The redaction a library caller gets when it passes none: the secrets of the environment — the
 * API token (PLATFORM_TOKEN) and every PLATFORM_SYNC_SECRET_* a manifest may name — in each of
 * their forms. The CLI passes its Output's, which knows the session's token too.
 */
export function environmentRedactor(env: NodeJS.ProcessEnv = process.env): (text: string) => string {
  const secrets = Object.entries(env).flatMap(([name, value]) =>
    value && (name === 'PLATFORM_TOKEN' || name.startsWith('PLATFORM_SYNC_SECRET_')) ? [value] : [],
  );
  return (text) => redactAll(text, secrets);
}

/** `text` with every one of `secrets` redacted (redactSecret, one after the other). */
export function redactAll(text: string, secrets: readonly string[]): string {
  return secrets.reduce((t, s) => redactSecret(t, s), text);
}
