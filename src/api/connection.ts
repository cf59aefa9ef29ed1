/**
 * Where the API is and how to authenticate (DESIGN.md §5): the base URL from `--base-url` or
 * `PLATFORM_API_URL`; the token from `--token-file` or `PLATFORM_TOKEN` — never a plain CLI
 * argument, and never part of any message here (a token file's path is named, not its content).
 */
import { FileReadError, readTextSyncBounded } from '../io/read-file.js';
import { UserError } from '../model/errors.js';

export interface ConnectionInput {
  /** `--base-url`; wins over PLATFORM_API_URL. */
  baseUrl?: string;
  /** `--insecure-http` (or PLATFORM_INSECURE_HTTP=1): allow plain http to a host that is not loopback. */
  insecureHttp?: boolean;
  /** `--token-file`; wins over PLATFORM_TOKEN. */
  tokenFile?: string;
  env?: NodeJS.ProcessEnv;
}

/** A resolved connection: a validated http(s) base URL and a non-empty token. */
export interface Connection {
  baseUrl: string;
  token: string;
  /** Plain http to a host that is not loopback was allowed explicitly. */
  insecureHttp: boolean;
}

/** Resolves the base URL and token, or throws a UserError saying what to set. */
export function resolveConnection(input: ConnectionInput = {}): Connection {
  const env = input.env ?? process.env;
  const baseUrl = (input.baseUrl ?? env.PLATFORM_API_URL ?? '').trim();
  if (baseUrl === '') {
    throw new UserError(
      'CONNECTION_MISSING',
      'no API base URL: pass --base-url or set PLATFORM_API_URL (or use --emulator)',
    );
  }
  const insecureHttp =
    input.insecureHttp === true ||
    ['1', 'true', 'yes'].includes((env.PLATFORM_INSECURE_HTTP ?? '').trim().toLowerCase());
  parseBaseUrl(baseUrl, { allowInsecureHttp: insecureHttp });
  return { baseUrl, token: readToken(input.tokenFile, env), insecureHttp };
}

/** Hosts a plain-http token never leaves the machine for. */
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * A URL as it may be quoted in a message: credentials (`user:pass@`) cut out even when the
 * URL does not parse, control characters escaped, and at most 200 characters.
 */
export function quoteUrl(raw: string): string {
  const cut = withoutCredentials(raw);
  const short = cut.length > 200 ? `${cut.slice(0, 199)}…` : cut;
  return JSON.stringify(short);
}

/**
 * The URL with anything that could be credentials cut out, however it is spelt: everything up to
 * the last `@` (after the scheme, if there is one) — a password may hold `/`, `?`, `#` or a
 * backslash, and a URL without a scheme still carries it.
 */
export function withoutCredentials(raw: string): string {
  const at = raw.lastIndexOf('@');
  if (at < 0) return raw;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(raw)?.[0] ?? '';
  return `${scheme}…@${raw.slice(at + 1)}`;
}

export interface BaseUrlOptions {
  /** Allow `http://` to a host that is not loopback (the token would cross the network in clear). */
  allowInsecureHttp?: boolean;
}

/**
 * Parses an API base URL, or throws a UserError saying what is wrong with it — never quoting
 * credentials: a URL that carries them is refused (the token goes in a header, not the URL),
 * and so is plain http to a host that is not loopback unless explicitly allowed.
 */
export function parseBaseUrl(baseUrl: string, options: BaseUrlOptions = {}): URL {
  // Credentials in any spelling (a password with / ? # or \, no scheme at all) are refused before
  // the URL is even parsed, and never echoed.
  if (baseUrl.includes('@')) throw credentialsError(baseUrl);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UserError('CONNECTION_INVALID', `the API base URL ${quoteUrl(baseUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(
      'CONNECTION_INVALID',
      `the API base URL ${quoteUrl(baseUrl)} must start with http:// or https://`,
    );
  }
  if (url.username !== '' || url.password !== '') throw credentialsError(baseUrl);
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !options.allowInsecureHttp) {
    throw new UserError(
      'CONNECTION_INSECURE',
      `the API base URL ${quoteUrl(baseUrl)} is plain http to ${url.hostname}, so the token would cross the network unencrypted; use https://, ` +
        'or pass --insecure-http (or set PLATFORM_INSECURE_HTTP=1) if this network is trusted',
    );
  }
  return url;
}

function credentialsError(baseUrl: string): UserError {
  return new UserError(
    'CONNECTION_INVALID',
    `the API base URL ${quoteUrl(baseUrl)} carries credentials (user:password@), which would be logged and sent in clear to proxies; remove them — the token is read from PLATFORM_TOKEN or --token-file`,
  );
}

/** Largest token file read: a token is a line, not a file system. */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

function readToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv): string {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = readTextSyncBounded(tokenFile, { maxBytes: MAX_TOKEN_FILE_BYTES });
    } catch (err) {
      throw new UserError(
        'TOKEN_FILE_UNREADABLE',
        `cannot read the token file ${err instanceof FileReadError ? err.message : tokenFile}`,
      );
    }
    const token = text.trim();
    if (token === '') throw new UserError('TOKEN_MISSING', `the token file ${tokenFile} is empty`);
    return token;
  }
  const token = (env.PLATFORM_TOKEN ?? '').trim();
  if (token === '') {
    throw new UserError(
      'TOKEN_MISSING',
      'no API token: set PLATFORM_TOKEN or pass --token-file FILE (a token is never taken as a plain argument)',
    );
  }
  return token;
}
