/**
 * The shape check (src/manifest/plain-shape.ts) reads "#" as YAML does: it starts a comment only
 * after a space, so a plain key or scalar that holds one goes on past it (issue 63, the named
 * mutant "a plain scalar ending at #": a scalar or key cut at its "#" would let the fast path
 * take a line that is no plain scalar, or refuse a key that is one).
 */
import { describe, expect, it } from 'vitest';
import { keyEndAt, plainShape } from '../../src/manifest/plain-shape.js';

const HEAD = 'apiVersion: platform-sync/v1\norg:\n  name: acme\n';

describe('"#" in the plain shape', () => {
  it('a plain scalar goes on past a "#" that follows no space: a ": " after it makes the line no plain scalar', () => {
    expect(plainShape(`${HEAD}  description: eng#ops: x\n`)).toBeUndefined();
    expect(plainShape(`${HEAD}  description: eng#ops:\n`)).toBeUndefined();
    // The same "#" after a space starts a comment, where anything may follow.
    expect(plainShape(`${HEAD}  description: eng #ops: x\n`)).toBe(1);
    expect(plainShape(`${HEAD}  description: eng#ops # a: comment\n`)).toBe(1);
  });

  it('a plain key goes on past a "#" that follows no space', () => {
    const line = 'ops#team: x';
    expect(keyEndAt(line, 0, line.length)).toBe('ops#team'.length);
    expect(plainShape(`${HEAD}  labels:\n    ops#team: x\n`)).toBe(1);
    // After a space it starts a comment, before any ":" of the key.
    const commented = 'ops #team: x';
    expect(keyEndAt(commented, 0, commented.length)).toBe(0);
  });
});
