import { describe, expect, it } from 'vitest';
import {
  compileAddressGlob,
  groupAddress,
  kindOfAddress,
  matchesAnyGlob,
  namedAddress,
  parentPath,
  pathDepth,
  referenceText,
  roleBindingAddress,
  tagAddress,
} from '../../src/model/address.js';

describe('addresses', () => {
  it('names groups, the org and named resources relative to the org root', () => {
    expect(groupAddress('')).toBe('org');
    expect(groupAddress('engineering/platform')).toBe('group:engineering/platform');
    expect(namedAddress('identity', 'engineering', 'ci-bot')).toBe('identity:engineering/ci-bot');
    expect(namedAddress('repo', '', 'nginx')).toBe('repo:nginx');
    expect(namedAddress('subscription', '', 'https://h.example/x')).toBe('subscription:https://h.example/x');
    expect(tagAddress('team/nginx', '1.0')).toBe('tag:team/nginx:1.0');
  });

  it('writes binding references as a manifest would: sibling bare, elsewhere from the root', () => {
    expect(roleBindingAddress('', { path: 'release-bot' }, { builtin: 'registry.push' })).toBe(
      'roleBinding:release-bot=registry.push',
    );
    expect(roleBindingAddress('engineering', { path: 'release-bot' }, { builtin: 'viewer' })).toBe(
      'roleBinding:engineering//release-bot=viewer',
    );
    expect(roleBindingAddress('', { path: 'engineering/ci-bot' }, { path: 'deployer' })).toBe(
      'roleBinding:/engineering/ci-bot=deployer',
    );
    // The two bindings above that mention engineering and release-bot differ: no collision.
    expect(roleBindingAddress('engineering', { path: 'engineering/ci-bot' }, { path: 'release-manager' })).toBe(
      'roleBinding:engineering/ci-bot=/release-manager',
    );
    expect(roleBindingAddress('', { uid: 'abc/def' }, { builtin: 'viewer' })).toBe('roleBinding:uid:abc/def=viewer');
  });

  it('names a reference bare exactly when it is one segment below the group of the binding', () => {
    const paths = ['', 'a', 'b', 'a/b', 'a/c', 'a/b/c', 'b/a', '/a', 'a/', 'a//b', '/'];
    for (const group of paths) {
      for (const path of paths) {
        const sibling = parentPath(path) === group && pathDepth(path) === pathDepth(group) + 1;
        expect(referenceText(group, { path }), `${JSON.stringify(path)} from ${JSON.stringify(group)}`).toBe(
          sibling ? path.slice(path.lastIndexOf('/') + 1) : `/${path}`,
        );
      }
    }
  });

  it('reads the kind back and matches globs', () => {
    expect(kindOfAddress('org')).toBe('group');
    expect(kindOfAddress('roleBinding:a=b')).toBe('roleBinding');
    const globs = ['identity:engineering/human-*', 'repo:*'].map(compileAddressGlob);
    expect(matchesAnyGlob('identity:engineering/human-ann', globs)).toBe(true);
    expect(matchesAnyGlob('identity:engineering/bot', globs)).toBe(false);
    expect(matchesAnyGlob('repo:team/nginx', globs)).toBe(true);
    expect(compileAddressGlob('repo:a.b').test('repo:axb')).toBe(false);
  });
});
