/**
 * Where the API is and how to authenticate (DESIGN.md §5): the base URL from `--base-url` or
 * `PLATFORM_API_URL`; the token from `--token-file` or `PLATFORM_TOKEN` — never a plain CLI
 * argument, and never part of any message here (a token file's path is named, not its content).
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../model/errors.js';

export interface ConnectionInput {
  /** `--base-url`; wins over PLATFORM_API_URL. */
  baseUrl?: string;
  /** `--token-file`; wins over PLATFORM_TOKEN. */
  tokenFile?: string;
  env?: NodeJS.ProcessEnv;
}

/** A resolved connection: a validated http(s) base URL and a non-empty token. */
export interface Connection {
  baseUrl: string;
  token: string;
}

/** Resolves the base URL and token, or throws a UserError saying what to set. */
export function resolveConnection(input: ConnectionInput = {}): Connection {
  const env = input.env ?? process.env;
  const baseUrl = (input.baseUrl ?? env.PLATFORM_API_URL ?? '').trim();
  if (baseUrl === '') {
    throw new UserError('CONNECTION_MISSING', 'no API base URL: pass --base-url or set PLATFORM_API_URL (or use --emulator)');
  }
  parseBaseUrl(baseUrl);
  return { baseUrl, token: readToken(input.tokenFile, env) };
}

/** Parses an API base URL, or throws a UserError saying what is wrong with it. */
export function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new UserError('CONNECTION_INVALID', `the API base URL "${baseUrl}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError('CONNECTION_INVALID', `the API base URL "${baseUrl}" must start with http:// or https://`);
  }
  return url;
}

function readToken(tokenFile: string | undefined, env: NodeJS.ProcessEnv): string {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(tokenFile, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new UserError('TOKEN_FILE_UNREADABLE', `cannot read the token file ${tokenFile} (${code})`);
    }
    const token = text.trim();
    if (token === '') throw new UserError('TOKEN_MISSING', `the token file ${tokenFile} is empty`);
    return token;
  }
  const token = (env.PLATFORM_TOKEN ?? '').trim();
  if (token === '') {
    throw new UserError('TOKEN_MISSING', 'no API token: set PLATFORM_TOKEN or pass --token-file FILE (a token is never taken as a plain argument)');
  }
  return token;
}
