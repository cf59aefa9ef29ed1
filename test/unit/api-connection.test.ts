import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
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
    expect(
      resolveConnection({ env: { PLATFORM_API_URL: 'http://127.0.0.1:9', PLATFORM_TOKEN: ` ${TOKEN}\n` } }),
    ).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      insecureHttp: false,
      token: TOKEN,
    });
  });

  it('prefers --base-url and --token-file, trimming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ps-conn-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'token');
    writeFileSync(file, `${TOKEN}\n\n`);
    expect(
      resolveConnection({
        baseUrl: 'https://api.example',
        tokenFile: file,
        env: { PLATFORM_API_URL: 'https://x', PLATFORM_TOKEN: 'other' },
      }),
    ).toEqual({ baseUrl: 'https://api.example', token: TOKEN, insecureHttp: false });
  });

  it('says what to set when the base URL or token is missing', () => {
    expect(caught(() => resolveConnection({ env: { PLATFORM_TOKEN: TOKEN } })).message).toMatch(
      /--base-url or set PLATFORM_API_URL/,
    );
    expect(caught(() => resolveConnection({ env: { PLATFORM_API_URL: 'https://x' } })).message).toMatch(
      /set PLATFORM_TOKEN or pass --token-file/,
    );
    expect(
      caught(() => resolveConnection({ env: { PLATFORM_API_URL: 'ftp://x', PLATFORM_TOKEN: TOKEN } })).message,
    ).toMatch(/http:\/\/ or https:\/\//);
  });

  it('names an unreadable or empty token file by path, never by content', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ps-conn-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const missing = caught(() =>
      resolveConnection({ tokenFile: join(dir, 'nope'), env: { PLATFORM_API_URL: 'https://x' } }),
    );
    expect(missing.message).toMatch(/cannot read the token file .*nope: no such file or directory/);
    const empty = join(dir, 'empty');
    writeFileSync(empty, '  \n');
    expect(
      caught(() => resolveConnection({ tokenFile: empty, env: { PLATFORM_API_URL: 'https://x' } })).message,
    ).toMatch(/is empty/);
  });
});

describe('base URL rules', () => {
  const env = (url: string, extra: Record<string, string> = {}) => ({
    env: { PLATFORM_API_URL: url, PLATFORM_TOKEN: TOKEN, ...extra },
  });

  it('refuses credentials in the URL without ever quoting them, even when the URL does not parse', () => {
    for (const url of [
      'https://alice:S3cret@api.example.com',
      'http://alice:S3cret@host:99999',
      'https://S3cret@api.example.com/v2',
    ]) {
      const err = caught(() => resolveConnection(env(url)));
      expect(err.message).not.toContain('S3cret');
      expect(err.message).not.toContain('alice');
    }
    expect(caught(() => resolveConnection(env('https://alice:S3cret@api.example.com'))).message).toBe(
      'the API base URL "https://…@api.example.com" carries credentials (user:password@), which would be logged and sent in clear to proxies; remove them — the token is read from PLATFORM_TOKEN or --token-file',
    );
    expect(caught(() => resolveConnection(env('http://alice:S3cret@host:99999'))).message).toContain(
      'the API base URL "http://…@host:99999" carries credentials',
    );
  });

  it('refuses plain http to a host that is not loopback unless allowed, and says why', () => {
    const err = caught(() => resolveConnection(env('http://api.example.com')));
    expect(err.code).toBe('CONNECTION_INSECURE');
    expect(err.message).toContain(
      'is plain http to api.example.com, so the token would cross the network unencrypted; use https://, or pass --insecure-http',
    );
    expect(resolveConnection({ ...env('http://api.example.com'), insecureHttp: true }).insecureHttp).toBe(true);
    expect(resolveConnection(env('http://api.example.com', { PLATFORM_INSECURE_HTTP: '1' })).insecureHttp).toBe(true);
    for (const loopback of [
      'http://127.0.0.1:8080',
      'http://localhost:8080',
      'http://[::1]:8080',
      'http://127.3.2.1',
    ]) {
      expect(resolveConnection(env(loopback)).baseUrl).toBe(loopback);
    }
    expect(() => createClient({ baseUrl: 'http://api.example.com', token: TOKEN })).toThrow(
      /plain http to api\.example\.com/,
    );
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
