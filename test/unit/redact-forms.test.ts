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
    for (const text of [`x ${SECRET} y`, JSON.stringify({ s: SECRET }), `https://x.example/?s=${encodeURIComponent(SECRET)}`]) {
      const out = redactSecret(text, SECRET);
      expect(out, text).not.toContain('k3y');
    }
  });
});
