/**
 * A secret is redacted in the forms a server or a JSON error may carry it, each tested on its own
 * (issue 63: the double-JSON-escaped form was caught by one distant regression only).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeJsonText } from '../../src/io/escape.js';
import { REDACTED, redactSecret } from '../../src/io/redact.js';
import { logText } from '../../src/action/workflow-log.js';

const SEED = Number(process.env.REDACTION_SEED ?? process.env.INVARIANT_SEED ?? 63);

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

  it('cuts the twice-escaped form of any secret, as JSON.stringify writes it and as the JSON door writes that (a bidi control escaped)', () => {
    // Characters JSON.stringify leaves raw but the door escapes (bidi, DEL, C1) make the two forms differ.
    const char = fc.oneof(
      fc.constantFrom('"', '\\', '\n', '\u202e', '\u007f', '\u0085', 'é'),
      fc.string({ maxLength: 1 }),
    );
    const secret = fc
      .array(char, { minLength: 8, maxLength: 24 })
      .map((cs) => cs.join(''))
      .filter((s) => s.length >= 8);
    fc.assert(
      fc.property(secret, (s) => {
        const twice = JSON.stringify({ message: `bad request: ${JSON.stringify({ clientSecret: s })}` });
        for (const text of [twice, escapeJsonText(twice)]) {
          const inner = JSON.stringify(JSON.stringify(s).slice(1, -1)).slice(1, -1);
          const form = text === twice ? inner : escapeJsonText(inner);
          expect(text).toContain(form);
          const out = redactSecret(text, s);
          expect(out, JSON.stringify(text)).toContain(REDACTED);
          expect(out, JSON.stringify(text)).not.toContain(form);
        }
      }),
      { numRuns: 40, seed: SEED },
    );
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

describe('redactSecret and the workflow-log escape', () => {
  it("cuts a secret as the Action's log escape writes it (a line that starts with ::, a ##[ in it), redacted after escaping as the Action's summary and comments are", () => {
    for (const secret of [
      '::client-secret-0123456789',
      'client##[secret-0123456789',
      'client#\u00ad#[secret-0123',
      '::client##[secret-0123',
    ]) {
      const escaped = logText(`${secret}\nsaid: ${secret}`);
      const out = redactSecret(escaped, secret);
      expect(out).toBe(`${REDACTED}\nsaid: ${REDACTED}`);
    }
  });
});
