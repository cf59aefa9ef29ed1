/** Emulator token configuration: checks, the tokens file, and that no message ever shows a token. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkTokens, readTokensFile } from '../../src/emulator/tokens.js';

const dir = mkdtempSync(join(tmpdir(), 'emulator-tokens-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SCOPE = `${'a'.repeat(40)}/${'b'.repeat(16)}`;

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The message of what `fn` throws. */
function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}

describe('checkTokens', () => {
  it('keeps well-formed tokens and drops nothing', () => {
    expect(
      checkTokens([
        { token: 'a', role: 'owner' },
        { token: 'b', role: 'viewer', scope: SCOPE },
      ]),
    ).toEqual([
      { token: 'a', role: 'owner' },
      { token: 'b', role: 'viewer', scope: SCOPE },
    ]);
  });

  it('names every problem by position, never by the token', () => {
    const msg = messageOf(() =>
      checkTokens([
        { token: 'secret-one', role: 'admin' },
        { token: 'secret-two', role: 'owner', scope: 'engineering' },
        { token: 'secret-two', role: 'viewer' },
        { token: '', role: 'owner', colour: 'red' },
        { token: 'has space', role: 'owner' },
      ]),
    );
    expect(msg).toContain('6 problems');
    expect(msg).toContain('[0].role: must be owner or viewer, got "admin"');
    expect(msg).toContain('[1].scope: must be a group uid');
    expect(msg).toContain('[2].token: is the same token as [1]');
    expect(msg).toContain('[3]: unknown field "colour"');
    expect(msg).toContain('[4].token: must not contain whitespace');
    expect(msg).not.toContain('secret');
    expect(msg).not.toContain('has space');
  });
});

describe('readTokensFile', () => {
  it('reads a YAML or JSON list of tokens', () => {
    const yaml = file(
      'tokens.yaml',
      `- {token: owner-1, role: owner}\n- token: scoped-1\n  role: viewer\n  scope: "${SCOPE}"\n`,
    );
    expect(readTokensFile(yaml)).toEqual([
      { token: 'owner-1', role: 'owner' },
      { token: 'scoped-1', role: 'viewer', scope: SCOPE },
    ]);
    expect(readTokensFile(file('tokens.json', '[{"token":"j","role":"owner"}]'))).toEqual([
      { token: 'j', role: 'owner' },
    ]);
  });

  it('refuses a missing, unparsable, empty or malformed file, naming the file and never the content', () => {
    expect(messageOf(() => readTokensFile(join(dir, 'absent.yaml')))).toMatch(
      /cannot read emulator tokens file .*absent\.yaml: no such file or directory/,
    );
    const broken = messageOf(() => readTokensFile(file('broken.yaml', '- {token: very-secret, role: owner\n')));
    expect(broken).toMatch(/broken\.yaml is not valid YAML\/JSON \(line \d+, column \d+\)/);
    expect(broken).not.toContain('very-secret');
    expect(messageOf(() => readTokensFile(file('empty.yaml', '')))).toContain('must be a non-empty list');
    expect(messageOf(() => readTokensFile(file('map.yaml', 'token: x\nrole: owner\n')))).toContain(
      'must be a non-empty list',
    );
    expect(messageOf(() => readTokensFile(file('bad.yaml', '- {token: hush, role: root}\n')))).toMatch(
      /bad\.yaml:\n {2}- \[0\]\.role/,
    );
  });
});
