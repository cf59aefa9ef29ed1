/**
 * A secret is redacted in the forms a server or a JSON error may carry it, each tested on its own
 * (issue 63: the double-JSON-escaped form was caught by one distant regression only).
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecret } from '../../src/io/redact.js';

const SECRET = 'k3y"with\\quote\nand-newline';

describe('redactSecret', () => {
  it('cuts the secret JSON-escaped twice: a JSON error message that quotes a JSON body that held it', () => {
    const body = JSON.stringify({ clientSecret: SECRET });
    const error = JSON.stringify({ message: `bad request: ${body}` });
    expect(error).toContain(JSON.stringify(JSON.stringify(SECRET).slice(1, -1)).slice(1, -1));
    const out = redactSecret(error, SECRET);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain('k3y');
  });

  it('cuts it as is, JSON-escaped once, and URL-encoded', () => {
    for (const text of [
      `x ${SECRET} y`,
      JSON.stringify({ s: SECRET }),
      `https://x.example/?s=${encodeURIComponent(SECRET)}`,
    ]) {
      const out = redactSecret(text, SECRET);
      expect(out, text).not.toContain('k3y');
    }
  });

  it('cuts it URL-encoded with lower-case hex digits (a server or proxy that re-encodes writes %2f, not %2F)', () => {
    const secret = 'tok/en with spaces?';
    const lower = encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase());
    expect(lower).toContain('%2f');
    const out = redactSecret(`GET /callback?code=${lower} failed`, secret);
    expect(out).toBe(`GET /callback?code=${REDACTED} failed`);
  });
});

describe('redactSecret, base64', () => {
  const CODE = 'inv_Zq8~x/+k2Lw9';
  it('cuts the secret base64-encoded (standard and URL-safe) inside longer base64 text, at each of the 3 byte alignments', () => {
    for (let before = 0; before < 6; before++) {
      for (let after = 0; after < 3; after++) {
        const bytes = Buffer.concat([
          Buffer.from('p'.repeat(before)),
          Buffer.from(CODE),
          Buffer.from('s'.repeat(after)),
        ]);
        for (const encoded of [bytes.toString('base64'), bytes.toString('base64url')]) {
          const out = redactSecret(`{"blob":"${encoded}"}`, CODE);
          expect(out, `${before}/${after}: ${encoded}`).toContain(REDACTED);
          // What is left around the cut is a few characters of the neighbours': never 4 of the secret's own.
          expect(out.replace(/\[REDACTED\]/g, '').length, encoded).toBeLessThan(
            `{"blob":""}`.length + encoded.length - Math.floor((CODE.length * 4) / 3) + 4,
          );
        }
      }
    }
  });
});
