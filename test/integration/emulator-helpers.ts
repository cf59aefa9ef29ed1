/**
 * Test helpers for the emulator's integration tests: a started emulator on port 0 and a tiny
 * fetch wrapper. Deliberately not the project's API client: these tests check the wire.
 */
import { afterAll, beforeAll } from 'vitest';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

export const OWNER = 'owner-token-1';
export const VIEWER = 'viewer-token-1';
export const DIGEST = `sha256:${'ab'.repeat(32)}`;

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  body: any;
  text: string;
}

export function startTestEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({
    checkAnswers: true,
    tokens: [
      { token: OWNER, role: 'owner' },
      { token: VIEWER, role: 'viewer' },
    ],
    ...options,
  });
}

/** Sends one request; `token: null` sends no Authorization header. */
export async function call(
  emu: Emulator,
  method: string,
  path: string,
  body?: unknown,
  token: string | null = OWNER,
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? undefined : JSON.parse(text), text };
}

export const get = (emu: Emulator, path: string, token: string | null = OWNER) =>
  call(emu, 'GET', path, undefined, token);
export const post = (emu: Emulator, path: string, body: unknown, token: string | null = OWNER) =>
  call(emu, 'POST', path, body, token);
export const patch = (emu: Emulator, path: string, body: unknown, token: string | null = OWNER) =>
  call(emu, 'PATCH', path, body, token);
export const del = (emu: Emulator, path: string, token: string | null = OWNER) =>
  call(emu, 'DELETE', path, undefined, token);

/** The `@type` suffixes of an error body's details. */
export function detailTypes(body: { details: { '@type': string }[] }): string[] {
  return body.details.map((d) => d['@type'].split('.').pop()!);
}

export function detail(body: { details: { '@type': string }[] }, type: string): any {
  return body.details.find((d) => d['@type'].endsWith(type));
}

/** Follows nextPageToken to the end; returns every item and the number of requests. */
export async function listAll(
  emu: Emulator,
  path: string,
  plural: string,
  startToken?: string,
): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let token: string | undefined = startToken;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r = await get(emu, token ? `${path}${sep}page_token=${encodeURIComponent(token)}` : path);
    if (r.status !== 200) throw new Error(`GET ${path} → ${r.status} ${r.text}`);
    items.push(...r.body[plural]);
    token = r.body.nextPageToken || undefined;
    pages++;
  } while (token);
  return { items, pages };
}

/**
 * An emulator seeded with one org, `acme`, for the tests of the suite it is called in: started
 * before them, closed after them. `org` is the org's uid.
 */
export function useAcmeEmulator(): { readonly emu: Emulator; readonly org: string } {
  let emu: Emulator | undefined;
  let org = '';
  beforeAll(async () => {
    emu = await startTestEmulator({ seed: { orgs: [{ name: 'acme' }] } });
    org = (await get(emu, '/iam/v2/groups')).body.groups[0].uid as string;
  });
  afterAll(async () => {
    await emu?.close();
  });
  return {
    get emu() {
      if (!emu) throw new Error('the suite emulator starts before the first test');
      return emu;
    },
    get org() {
      return org;
    },
  };
}
