import { describe, expect, it } from 'vitest';
import { MIN_REDACTED_LENGTH, REDACTED, redactDeep, redactSecret } from '../../src/io/redact.js';

describe('redactSecret', () => {
  it('replaces every occurrence of a token of ordinary length', () => {
    expect(redactSecret('list groups named "tok-8a1f-secret" or tok-8a1f-secret', 'tok-8a1f-secret')).toBe(
      `list groups named "${REDACTED}" or ${REDACTED}`,
    );
  });

  it('leaves a short token inside other text alone: cutting it out of words would show it', () => {
    expect(MIN_REDACTED_LENGTH).toBe(8);
    expect(redactSecret('list groups named "globex"', 'x')).toBe('list groups named "globex"');
    expect(redactSecret('No changes. The org matches the manifests.', 'T')).toBe(
      'No changes. The org matches the manifests.',
    );
    expect(redactSecret('1234567 in a path /1234567/', '1234567')).toBe('1234567 in a path /1234567/');
  });

  it('still redacts a short token that is the whole text', () => {
    expect(redactSecret('x', 'x')).toBe(REDACTED);
    expect(redactDeep({ token: 'x', name: 'globex' }, 'x')).toEqual({ token: REDACTED, name: 'globex' });
  });

  it('is the identity without a secret', () => {
    expect(redactSecret('anything', undefined)).toBe('anything');
    expect(redactSecret('anything', '')).toBe('anything');
  });
});
