import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConnection } from '../../src/api/connection.js';
import { createClient } from '../../src/api/client.js';
import { UserError } from '../../src/model/errors.js';

const TOKEN = 'tok-connection-secret-91';

function caught(fn: () => unknown): UserError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return err as UserError;
  }
  throw new Error('expected a UserError');
}

describe('resolveConnection', () => {
  it('takes the base URL and token from the environment', () => {
    expect(resolveConnection({ env: { PLATFORM_API_URL: 'http://127.0.0.1:9', PLATFORM_TOKEN: ` ${TOKEN}\n` } })).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      token: TOKEN,
    });
  });

  it('prefers --base-url and --token-file, trimming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ps-conn-'));
    const file = join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n\n`);
    expect(
      resolveConnection({ baseUrl: 'https://api.example', tokenFile: file, env: { PLATFORM_API_URL: 'http://x', PLATFORM_TOKEN: 'other' } }),
    ).toEqual({ baseUrl: 'https://api.example', token: TOKEN });
  });

  it('says what to set when the base URL or token is missing', () => {
    expect(caught(() => resolveConnection({ env: { PLATFORM_TOKEN: TOKEN } })).message).toMatch(/--base-url or set PLATFORM_API_URL/);
    expect(caught(() => resolveConnection({ env: { PLATFORM_API_URL: 'http://x' } })).message).toMatch(/set PLATFORM_TOKEN or pass --token-file/);
    expect(caught(() => resolveConnection({ env: { PLATFORM_API_URL: 'ftp://x', PLATFORM_TOKEN: TOKEN } })).message).toMatch(/http:\/\/ or https:\/\//);
  });

  it('names an unreadable or empty token file by path, never by content', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ps-conn-'));
    const missing = caught(() => resolveConnection({ tokenFile: join(dir, 'nope'), env: { PLATFORM_API_URL: 'http://x' } }));
    expect(missing.message).toMatch(/cannot read the token file .*nope \(ENOENT\)/);
    const empty = join(dir, 'empty');
    writeFileSync(empty, '  \n');
    expect(caught(() => resolveConnection({ tokenFile: empty, env: { PLATFORM_API_URL: 'http://x' } })).message).toMatch(/is empty/);
  });
});

describe('createClient', () => {
  it('refuses a token no HTTP header can carry, without showing it', async () => {
    for (const token of ['tok-sec\u0001ret-91', 'tok secret 91', 'tok-sécret-91', 'tok-secret\r\nx-evil: 1']) {
      const err = caught(() => createClient({ baseUrl: 'http://127.0.0.1:9', token }));
      expect(err.code).toBe('TOKEN_INVALID');
      expect(err.message).not.toContain('sec');
    }
    // A token a header can carry makes a client that opens and closes cleanly.
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', token: TOKEN });
    expect(client.requestCount).toBe(0);
    await expect(client.close()).resolves.toBeUndefined();
  });
});
