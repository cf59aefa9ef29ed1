/**
 * A response body comes in chunks, cut wherever the connection cut it (src/api/exchange.ts); its
 * text is the UTF-8 text of the chunks joined, whatever the bytes (an untrusted server may send
 * any) and wherever the cuts fall — inside a character, or in an unfinished or broken sequence.
 */
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readBodyText, utf8Text } from '../../src/api/wire.js';

/** Bytes that are mostly text, with multi-byte characters, and some that are no UTF-8 at all. */
const bodyBytes = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }).map((s) => Buffer.from(s, 'utf8')),
      fc.uint8Array({ maxLength: 6 }).map((a) => Buffer.from(a)),
      fc.constantFrom(
        ...[[0xc3], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0x80], [0xff], [0xed, 0xa0, 0x80]].map((b) => Buffer.from(b)),
      ),
    ),
    { maxLength: 20 },
  )
  .map((parts) => Buffer.concat(parts));

/** The body cut into chunks at these places (views of one buffer, as undici's are). */
function cut(body: Buffer, at: number[]): Buffer[] {
  const places = [...new Set(at.map((a) => a % (body.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const to of [...places, body.length]) {
    chunks.push(body.subarray(from, to));
    from = to;
  }
  return chunks;
}

describe('the text of a body in chunks', () => {
  it('is the text of the chunks joined, wherever they are cut (property)', () => {
    fc.assert(
      fc.property(bodyBytes, fc.array(fc.nat(), { maxLength: 8 }), (body, at) => {
        const chunks = cut(body, at);
        expect(utf8Text(chunks, body.length)).toBe(body.toString('utf8'));
      }),
      { numRuns: 400 },
    );
  });

  it('a character cut in two, and a page of a listing in the chunks a connection reads', async () => {
    const euro = Buffer.from('{"name":"5 €"}');
    const at = euro.indexOf(0xe2) + 1;
    expect(utf8Text([euro.subarray(0, at), euro.subarray(at)], euro.length)).toBe('{"name":"5 €"}');
    const page = Buffer.from(
      JSON.stringify({ items: Array.from({ length: 300 }, (_, i) => ({ uid: `u${i}`, name: `ü${i}` })) }),
    );
    const chunks = cut(page, [65536 % page.length, 3000, 7001]);
    expect(await readBodyText(undefined, chunks, page.length, 200, 1 << 24)).toBe(page.toString('utf8'));
    expect(await readBodyText('gzip', cut(gzipSync(page), [100, 2000]), gzipSync(page).length, 200, 1 << 24)).toBe(
      page.toString('utf8'),
    );
    expect(await readBodyText('identity', [], 0, 200, 10)).toBe('');
  });
});
