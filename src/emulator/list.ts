/**
 * List requests (DESIGN.md §6): query parsing, ordering, opaque page tokens bound to their
 * query, and page slicing over a sorted result set. Pure: the clock comes in as a number.
 *
 * A page token is a keyset cursor: it names the last item served (its sort key and uid), so a
 * listing stays correct when resources are added or removed between pages. It also carries a
 * hash of the query (kind, filters, order) and the time it was issued; a token from another
 * query is code 3, an expired one silently restarts the listing from the first page (spec: Limits).
 */
import { createHash } from 'node:crypto';
import type { ApiKind } from '../model/kinds.js';
import { kindContract } from './contract.js';
import { invalidArgument, type FieldViolation } from './failures.js';
import { boundOf, sortKey, type ListFilter, type OrderField } from './list-order.js';
import type { StoredResource } from './store.js';

export const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;

export interface ListRequest {
  filter: ListFilter;
  order: { field: OrderField; desc: boolean };
  pageSize: number;
  skip: number;
  pageToken?: string;
}

const ORDER_FIELDS: Readonly<Record<string, OrderField>> = {
  uid: 'uid',
  name: 'name',
  createTime: 'createTime',
  created_at: 'createTime',
  create_time: 'createTime',
  updateTime: 'updateTime',
  updated_at: 'updateTime',
  update_time: 'updateTime',
};

const MAX_INT32 = 2_147_483_647;

function parseNonNegativeInt(field: string, raw: string, violations: FieldViolation[]): number | undefined {
  if (!/^-?\d+$/.test(raw.trim())) {
    violations.push({ field, description: `must be an integer, got ${JSON.stringify(raw)}` });
    return undefined;
  }
  const n = Number(raw);
  if (n < 0) {
    violations.push({ field, description: `must not be negative, got ${n}` });
    return undefined;
  }
  // An int32, as the service's fields are: a larger number is refused, never rounded.
  if (n > MAX_INT32) {
    violations.push({ field, description: `must be at most ${MAX_INT32}, got ${raw.trim()}` });
    return undefined;
  }
  return n;
}

/** Parses and checks a List's query string; unknown parameters and bad values are code 3. */
export function parseListRequest(kind: ApiKind, params: URLSearchParams): ListRequest {
  const allowed = new Set(kindContract(kind).listParams);
  const violations: FieldViolation[] = [];
  const single = new Map<string, string>();
  const multi = new Map<string, string[]>();
  for (const [key, value] of params) {
    if (!allowed.has(key)) {
      violations.push({
        field: key,
        description: `is not a query parameter of this List (allowed: ${[...allowed].join(', ')})`,
      });
      continue;
    }
    if (key === 'artifactNames' || key === 'advisoryIds') {
      // Accepted both repeated and comma-separated.
      const list = multi.get(key) ?? [];
      list.push(
        ...value
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      );
      multi.set(key, list);
    } else if (single.has(key)) {
      violations.push({ field: key, description: 'is given more than once' });
    } else single.set(key, value);
  }
  let pageSize = DEFAULT_PAGE_SIZE;
  const ps = single.get('page_size');
  if (ps !== undefined) {
    const n = parseNonNegativeInt('page_size', ps, violations);
    if (n !== undefined && n > 0) pageSize = Math.min(n, MAX_PAGE_SIZE);
  }
  let skip = 0;
  const sk = single.get('skip');
  if (sk !== undefined) skip = parseNonNegativeInt('skip', sk, violations) ?? 0;

  let order: ListRequest['order'] = { field: 'uid', desc: false };
  const ob = single.get('order_by');
  if (ob !== undefined) {
    const parts = ob.trim().split(/\s+/);
    // Own fields only: `constructor`, `__proto__` or `toString` are no fields to order by.
    const name = parts[0] ?? '';
    const field = Object.hasOwn(ORDER_FIELDS, name) ? ORDER_FIELDS[name] : undefined;
    const direction = parts[1]?.toLowerCase();
    if (!field || parts.length > 2 || (direction !== undefined && direction !== 'desc' && direction !== 'asc')) {
      violations.push({
        field: 'order_by',
        description: `must be one of ${Object.keys(ORDER_FIELDS).join(', ')}, optionally followed by " desc"; got ${JSON.stringify(ob)}`,
      });
    } else if (field === 'name' && kindContract(kind).uniqueKey[0] !== 'name') {
      violations.push({ field: 'order_by', description: `${kindContract(kind).plural} have no name to order by` });
    } else order = { field, desc: direction === 'desc' };
  }
  const filter: ListFilter = {};
  const uidFilter = (param: string): string | undefined => {
    const v = single.get(param);
    if (v === undefined) return undefined;
    if (v === '') violations.push({ field: param, description: 'must be a uid' });
    return v;
  };
  const childrenOf = uidFilter('uidp.children_of');
  if (childrenOf) filter.childrenOf = childrenOf;
  const descendantsOf = uidFilter('uidp.descendants_of');
  if (descendantsOf) filter.descendantsOf = descendantsOf;
  const name = single.get('name');
  if (name !== undefined) filter.name = name;
  // A group mapping's provider: the same as its children.
  const provider = single.get('identityProviderUid');
  if (provider !== undefined) filter.childrenOf = provider;
  const artifactNames = multi.get('artifactNames');
  if (artifactNames) filter.artifactNames = artifactNames;
  const advisoryIds = multi.get('advisoryIds');
  if (advisoryIds) filter.advisoryIds = advisoryIds;
  if (violations.length > 0) throw invalidArgument(violations);
  const pageToken = single.get('page_token');
  return { filter, order, pageSize, skip, ...(pageToken ? { pageToken } : {}) };
}

interface Cursor {
  /** Query hash. */
  q: string;
  /** Sort key and uid of the last item served. */
  k: string | number;
  u: string;
  /** Issue time, ms since epoch. */
  t: number;
}

/** The query a token belongs to: kind, filters (token scope included) and order. */
function hashQuery(kind: ApiKind, req: ListRequest): string {
  const f = req.filter;
  const canonical = JSON.stringify([
    kind,
    f.childrenOf,
    f.descendantsOf,
    f.name,
    f.scope,
    f.artifactNames,
    f.advisoryIds,
    req.order.field,
    req.order.desc,
  ]);
  return createHash('sha1').update(canonical).digest('base64url').slice(0, 16);
}

function checksum(payload: string): string {
  return createHash('sha1').update(`platform-emulator-page-token:${payload}`).digest('base64url').slice(0, 8);
}

function encodeCursor(c: Cursor): string {
  const payload = Buffer.from(JSON.stringify(c)).toString('base64url');
  return `${payload}.${checksum(payload)}`;
}

function decodeCursor(token: string): Cursor | null {
  const dot = token.lastIndexOf('.');
  if (dot < 0) return null;
  const payload = token.slice(0, dot);
  if (checksum(payload) !== token.slice(dot + 1)) return null;
  try {
    const c = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Cursor;
    if (typeof c.q !== 'string' || typeof c.u !== 'string' || typeof c.t !== 'number') return null;
    if (typeof c.k !== 'string' && typeof c.k !== 'number') return null;
    return c;
  } catch {
    return null;
  }
}

export interface Page {
  items: StoredResource[];
  totalCount: number;
  nextPageToken?: string;
  /** True when an injected short-page fault served fewer items than a full page. */
  shortened?: boolean;
}

/**
 * Cuts one page out of `sorted` (ascending by the request's order field, then uid) for `req`.
 * `now` and `ttlMs` decide whether the page token has expired. `shortPage` (a share in [0, 1),
 * from the fault injector) cuts a page that is full and not the last one down to between 1 and
 * (full − 1) items; the next token then continues right after the last item served.
 */
export function slicePage(
  kind: ApiKind,
  req: ListRequest,
  sorted: readonly StoredResource[],
  now: number,
  ttlMs: number,
  shortPage?: number,
): Page {
  const n = sorted.length;
  const hash = hashQuery(kind, req);
  const { field, desc } = req.order;
  let start = 0;
  if (req.pageToken !== undefined) {
    const c = decodeCursor(req.pageToken);
    if (!c) throw invalidArgument([{ field: 'page_token', description: 'is not a page token this service issued' }]);
    if (c.q !== hash)
      throw invalidArgument([
        {
          field: 'page_token',
          description: 'belongs to a different query (filters and order_by must match the request that returned it)',
        },
      ]);
    if (typeof c.k !== (field === 'uid' || field === 'name' ? 'string' : 'number'))
      throw invalidArgument([{ field: 'page_token', description: 'is not a page token this service issued' }]);
    // Expired: restart from the first page, no error (spec: Limits).
    if (now - c.t <= ttlMs) {
      // Ascending: first item after the cursor. Descending (reading the array backwards):
      // the items strictly below the cursor, which begin after the n - lowerBound larger ones.
      start = desc ? n - boundOf(sorted, c.k, c.u, field) : boundOf(sorted, c.k, c.u, field, true);
    }
  }
  start += req.skip;
  let end = Math.min(n, start + req.pageSize);
  const shortened = shortPage !== undefined && end < n && end - start >= 2;
  if (shortened) end = start + 1 + Math.floor(shortPage * (end - start - 1));
  const items: StoredResource[] = [];
  for (let i = start; i < end; i++) items.push(desc ? sorted[n - 1 - i]! : sorted[i]!);
  const page: Page = { items, totalCount: n, ...(shortened ? { shortened } : {}) };
  if (end < n && items.length > 0) {
    const last = items[items.length - 1]!;
    page.nextPageToken = encodeCursor({ q: hash, k: sortKey(last, field), u: last.uid, t: now });
  }
  return page;
}
