/**
 * The two ways untrusted text goes into markdown (src/io/escape.ts; found by the review): as a
 * code span nothing in the text can close, or as escaped prose GitHub renders as the text itself,
 * with no HTML, link, image, emphasis, cell break or block, and no autolink or @mention.
 */
import { describe, expect, it } from 'vitest';
import { markdownCode, markdownCodeCell, markdownText } from '../../src/io/escape.js';
import { secretForms } from '../../src/io/redact.js';

describe('markdownCode', () => {
  it('fences with one backtick more than the longest run inside, padded, so the text cannot close the span', () => {
    expect(markdownCode('repo:app')).toBe('`repo:app`');
    expect(markdownCode('a `` <img src=x> @octocat')).toBe('``` a `` <img src=x> @octocat ```');
    expect(markdownCode('`')).toBe('`` ` ``');
    // A text that starts or ends with a backtick would join the fence without the padding.
    expect(markdownCode('``x')).toBe('``` ``x ```');
    // Padding is stripped by the renderer; a text with its own spaces keeps them.
    expect(markdownCode(' x ')).toBe('`  x  `');
  });

  it('is one line: a newline cannot end the paragraph and start markdown of its own', () => {
    expect(markdownCode('a\n\n## Approved')).toBe('`a\\u{a}\\u{a}## Approved`');
  });

  it("in a table cell writes | as \\| (GFM reads it as the cell's |, backslash dropped)", () => {
    expect(markdownCodeCell('a|b')).toBe('`a\\|b`');
    expect(markdownCodeCell('a\\|b')).toBe('`a\\\\|b`');
  });
});

describe('markdownText', () => {
  it('leaves no HTML, link, image or code span', () => {
    expect(markdownText('<img src=x> [click](y) ![i](z) `c` &#64;')).toBe(
      '&lt;img src=x&gt; \\[click\\](y) !\\[i\\](z) \\`c\\` &amp;#&#8203;64;',
    );
  });

  it('breaks @mentions, team mentions, e-mail addresses, URLs, www. and #123 with a zero-width space entity', () => {
    expect(markdownText('@octocat @acme/admins me@x.dev https://evil.example www.evil.example a_www.x #12')).toBe(
      '@&#8203;octocat @&#8203;acme/admins me@&#8203;x.dev https:&#8203;//evil.example www&#8203;.evil.example a_www&#8203;.x #&#8203;12',
    );
  });

  it('escapes emphasis, strike-through, math and cell breaks, but not an underscore inside a word', () => {
    expect(markdownText('*b* _i_ ~~s~~ $m$ a|b a\\b snake_case')).toBe(
      '\\*b\\* \\_i\\_ \\~\\~s\\~\\~ \\$m\\$ a\\|b a\\\\b snake_case',
    );
  });

  it('opens no heading or list with its first characters, and is one line', () => {
    expect(markdownText('# x')).toBe('\\# x');
    expect(markdownText('- x')).toBe('\\- x');
    expect(markdownText('1. x')).toBe('1\\. x');
    // `- --` would be a rule, and a line indented four columns code.
    expect(markdownText('--')).toBe('\\--');
    expect(markdownText('    x')).toBe('&#32;   x');
    expect(markdownText('\tx')).toBe('&#9;x');
    expect(markdownText('a\n\n## b')).toBe('a  ## b');
  });

  it('every form it writes a secret in is one redaction knows', () => {
    const secret = 'p@ss|w`rd_<x>#1';
    const forms = secretForms(secret);
    expect(forms).toContain(markdownText(secret));
    expect(forms.some((f) => markdownCodeCell(secret).includes(f))).toBe(true);
  });
});
