/** Request-body rules: create validation and the spec's PATCH mask rules (pure). */
import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../src/emulator/failures.js';
import { validateCreate, validatePatch } from '../../src/emulator/validate.js';

function violations(fn: () => unknown): { field: string; description: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiFailure);
    expect((err as ApiFailure).toBody().code).toBe(3);
    return (err as ApiFailure).toBody().details.flatMap((d: any) => d.fieldViolations ?? []);
  }
  throw new Error('expected a validation failure');
}

describe('validateCreate', () => {
  it('returns stored data for a valid body', () => {
    expect(
      validateCreate('identity', { name: 'bot', claimMatch: { issuer: 'https://i.example', subject: 's' } }),
    ).toEqual({
      name: 'bot',
      claimMatch: { issuer: 'https://i.example', subject: 's' },
    });
    expect(validateCreate('tag', { name: 'v1.0-rc_1', digest: `sha256:${'f'.repeat(64)}` }).name).toBe('v1.0-rc_1');
  });

  it('names the pattern for a missing or bad name', () => {
    expect(violations(() => validateCreate('identity', {}))).toEqual([
      { field: 'name', description: 'name must match "^[a-z0-9 ._-]{1,}$"' },
    ]);
    expect(violations(() => validateCreate('group', { name: 'Upper' }))[0]!.field).toBe('name');
  });

  it('rejects fields the kind does not take on create (including read-only ones)', () => {
    expect(
      violations(() => validateCreate('tag', { name: 'v1', digest: `sha256:${'0'.repeat(64)}`, deprecated: true })).map(
        (v) => v.field,
      ),
    ).toEqual(['deprecated']);
    expect(violations(() => validateCreate('repo', { name: 'r', uid: 'x' })).map((v) => v.field)).toEqual(['uid']);
  });

  it('checks capabilities, sinks and digests', () => {
    expect(violations(() => validateCreate('role', { name: 'r', capabilities: [] }))[0]!.description).toContain(
      'non-empty',
    );
    expect(
      violations(() => validateCreate('role', { name: 'r', capabilities: ['repo.list', 'repo.list'] }))[0]!.description,
    ).toContain('more than once');
    expect(violations(() => validateCreate('subscription', { sink: 'ftp://x' }))[0]!.field).toBe('sink');
    expect(violations(() => validateCreate('tag', { name: 'v', digest: 'md5:abc' }))[0]!.field).toBe('digest');
  });
});

describe('validatePatch', () => {
  it('without a mask takes the fields present', () => {
    expect(validatePatch('repo', { description: 'd' }, undefined)).toEqual({ description: 'd' });
  });
  it('with a mask takes only the named fields, clearing absent ones', () => {
    expect(validatePatch('repo', { description: 'ignored', name: 'n' }, 'name')).toEqual({ name: 'n' });
    expect(validatePatch('repo', {}, 'description')).toEqual({ description: '' });
    expect(validatePatch('identity', {}, 'claimMatch')).toEqual({ claimMatch: undefined });
  });
  it('with * replaces every updatable field', () => {
    expect(validatePatch('role', { name: 'r', capabilities: ['tag.list'] }, '*')).toEqual({
      name: 'r',
      description: '',
      capabilities: ['tag.list'],
    });
    expect(violations(() => validatePatch('role', { name: 'r' }, '*')).map((v) => v.field)).toEqual(['capabilities']);
  });
  it('rejects unknown and read-only fields in the mask or a mask-less body', () => {
    expect(violations(() => validatePatch('repo', {}, 'updateTime'))[0]).toEqual({
      field: 'updateMask.updateTime',
      description: expect.stringContaining('read-only'),
    });
    expect(violations(() => validatePatch('repo', {}, 'size'))[0]!.description).toContain('not a field');
    expect(violations(() => validatePatch('repo', { uid: 'x' }, undefined))[0]!.field).toBe('uid');
    expect(violations(() => validatePatch('roleBinding', { identityUid: 'x' }, undefined))[0]!.description).toContain(
      'read-only',
    );
    expect(violations(() => validatePatch('readme', { content: 'x' }, 'content,*'))[0]!.field).toBe('updateMask');
  });
});
