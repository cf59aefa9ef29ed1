/**
 * What crosses the wire, as the client reads and names it: response bodies decoded (and bounded
 * after decompression), AIP-193 error bodies, query strings, redirect targets without
 * credentials, and how a request is named in messages. Pure but for decompression.
 */
import { gunzipSync, inflateSync, brotliDecompressSync } from 'node:zlib';
import { ResponseTooLargeError } from './exchange.js';
import { GRPC_CODES, type ErrorBody, type ErrorDetail } from './errors.js';
import type { ListQuery, RequestEvent } from './types.js';
import { KIND_INFO, type ApiKind, type Kind } from '../model/kinds.js';

/** Query parameters of a request, before encoding. */
export type Query = Record<string, string | number | undefined>;

/**
 * The text of a response body, decoded per its `content-encoding` (we ask for none, but a
 * proxy may compress anyway); an encoding this client cannot decode is named, not misread.
 */
export async function readBodyText(
  encoding: string | string[] | undefined,
  raw: Buffer,
  status: number,
  maxBytes: number,
): Promise<string> {
  const name = (Array.isArray(encoding) ? encoding.join(',') : (encoding ?? '')).trim().toLowerCase();
  if (name === '' || name === 'identity') return raw.toString('utf8');
  const decode = { gzip: gunzipSync, 'x-gzip': gunzipSync, deflate: inflateSync, br: brotliDecompressSync }[name];
  if (!decode) throw new UnsupportedEncodingError(name, status);
  try {
    // Bounded after decompression (DESIGN.md §8 rev 4): a 1 MB body that inflates to 1 GiB is
    // refused at the bound, never inflated whole.
    return decode(raw, { maxOutputLength: maxBytes }).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new ResponseTooLargeError(maxBytes);
    throw new UnsupportedEncodingError(name, status, err);
  }
}

/** A response body in a content-encoding this client cannot decode (or a corrupt one). */
export class UnsupportedEncodingError extends Error {
  constructor(
    encoding: string,
    readonly status: number,
    cause?: unknown,
  ) {
    super(`the response body has content-encoding "${encoding.slice(0, 40)}", which could not be decoded`, { cause });
  }
}

/** Where a redirect pointed, without any credentials a URL may carry. */
export function describeLocation(location: string): string {
  try {
    const url = new URL(location, 'http://relative.invalid');
    url.username = '';
    url.password = '';
    return url.host === 'relative.invalid' ? `${url.pathname}${url.search}` : url.toString();
  } catch {
    return JSON.stringify(location.slice(0, 200));
  }
}

/** Escapes each segment of a uid but keeps its `/` separators (uids are sent unescaped, §2). */
export function uidPath(uid: string): string {
  return uid.split('/').map(encodeURIComponent).join('/');
}

export function buildQueryString(query: Query | undefined): string {
  if (!query) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The gRPC code implied by an HTTP status when the body carries none. */
export function grpcCodeForStatus(status: number): number {
  for (const v of Object.values(GRPC_CODES)) if (v.http === status && v.code !== 0) return v.code;
  return status >= 500 ? GRPC_CODES.INTERNAL.code : 2; // 2 = gRPC UNKNOWN
}

export function parseErrorBody(text: string): ErrorBody | undefined {
  try {
    const parsed = JSON.parse(text) as Partial<ErrorBody>;
    if (parsed && typeof parsed === 'object' && typeof parsed.code === 'number') {
      return {
        code: parsed.code,
        message: typeof parsed.message === 'string' ? parsed.message : '',
        details: Array.isArray(parsed.details) ? (parsed.details as ErrorDetail[]) : [],
      };
    }
  } catch {
    // not AIP-193: fall through to a status-only error
  }
  return undefined;
}

/** Describes what a create is making, by its natural key, for messages. */
export function describeCreate(kind: Kind, parentUid: string | null, body: Record<string, unknown>): string {
  const info = KIND_INFO[kind];
  // What names the new resource: its key field, or else the create fields that say what it is
  // (never a secret: those are neither key fields nor plain values of these kinds).
  const key =
    info.keyField !== null && body[info.keyField] !== undefined
      ? JSON.stringify(body[info.keyField])
      : `(${info.createFields
          .filter((f) => f !== 'description' && (typeof body[f] === 'string' || Array.isArray(body[f])))
          .map((f) => `${f} ${JSON.stringify(body[f])}`)
          .join(', ')})`;
  const what = key === '()' ? kind : `${kind} ${key}`;
  return parentUid === null ? `create root ${what}` : `create ${what} under ${parentUid}`;
}

/**
 * `totalCount` as the spec writes it (a decimal string; a number is taken too): a count, absent
 * (undefined), or not a count at all (null) — `"Infinity"`, `"1e9"`, `-1`, `"abc"`.
 */
export function parseTotalCount(raw: unknown): number | undefined | null {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = typeof raw === 'number' ? String(raw) : raw;
  if (typeof text !== 'string' || !/^\d{1,15}$/.test(text)) return null;
  return Number(text);
}

export function describeList(kind: ApiKind, query: ListQuery): string {
  const scope = [
    query.descendantsOf !== undefined ? `under ${query.descendantsOf}` : '',
    query.childrenOf !== undefined ? `children of ${query.childrenOf}` : '',
    query.name !== undefined ? `named "${query.name}"` : '',
  ].filter(Boolean);
  return `list ${KIND_INFO[kind].plural}${scope.length ? ` ${scope.join(' ')}` : ''}`;
}

/** One line per request for `--verbose`: method, redacted path, status, time, attempt. */
export function formatRequestEvent(e: RequestEvent): string {
  const status = e.status === 0 ? 'no response' : String(e.status);
  return `${e.method} ${e.path} → ${status} (${e.ms} ms${e.attempt > 1 ? `, attempt ${e.attempt}` : ''})`;
}
