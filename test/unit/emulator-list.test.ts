/** List request parsing and keyset page slicing (pure). */
import { describe, expect, it } from 'vitest';
import { ApiFailure } from '../../src/emulator/failures.js';
import { parseListRequest, slicePage, type ListRequest } from '../../src/emulator/list.js';
import type { StoredResource } from '../../src/emulator/store.js';

const items: StoredResource[] = Array.from({ length: 10 }, (_, i) => ({
  kind: 'repo',
  uid: `${'a'.repeat(40)}/${String(i).padStart(16, '0')}`,
  parent: 'a'.repeat(40),
  seq: i + 1,
  createMs: 1000 + Math.floor(i / 3), // ties on createTime, broken by uid
  updateMs: 1000,
  data: { name: `r${i}` },
}));

function pages(req: ListRequest, sorted: StoredResource[]): string[][] {
  const out: string[][] = [];
  let token: string | undefined;
  do {
    const page = slicePage('repo', { ...req, ...(token ? { pageToken: token } : {}) }, sorted, 5000, 60_000);
    out.push(page.items.map((r) => r.data.name!));
    token = page.nextPageToken;
  } while (token);
  return out;
}

describe('parseListRequest', () => {
  it('applies defaults, clamps page_size and parses order_by', () => {
    const r = parseListRequest('repo', new URLSearchParams('page_size=900&order_by=created_at%20desc&name=x&skip=3'));
    expect(r).toEqual({ filter: { name: 'x' }, order: { field: 'createTime', desc: true }, pageSize: 200, skip: 3 });
    expect(parseListRequest('repo', new URLSearchParams('')).pageSize).toBe(50);
  });

  it('names every bad parameter', () => {
    try {
      parseListRequest('tag', new URLSearchParams('page_size=-2&skip=x&order_by=size&name=v1'));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ApiFailure);
      const fields = (err as ApiFailure)
        .toBody()
        .details.flatMap((d: any) => d.fieldViolations ?? [])
        .map((v: any) => v.field);
      expect(fields.sort()).toEqual(['name', 'order_by', 'page_size', 'skip']);
    }
  });
});

describe('slicePage', () => {
  it('pages ascending and descending with ties broken by uid', () => {
    const byCreate = [...items];
    const asc = pages({ filter: {}, order: { field: 'createTime', desc: false }, pageSize: 4, skip: 0 }, byCreate);
    expect(asc).toEqual([
      ['r0', 'r1', 'r2', 'r3'],
      ['r4', 'r5', 'r6', 'r7'],
      ['r8', 'r9'],
    ]);
    const desc = pages({ filter: {}, order: { field: 'createTime', desc: true }, pageSize: 4, skip: 0 }, byCreate);
    expect(desc.flat()).toEqual(['r9', 'r8', 'r7', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
    expect(desc).toHaveLength(3);
  });

  it('applies skip after the cursor and reports the total', () => {
    const first = slicePage(
      'repo',
      { filter: {}, order: { field: 'name', desc: false }, pageSize: 2, skip: 1 },
      items,
      0,
      1000,
    );
    expect(first.items.map((r) => r.data.name)).toEqual(['r1', 'r2']);
    expect(first.totalCount).toBe(10);
    const next = slicePage(
      'repo',
      { filter: {}, order: { field: 'name', desc: false }, pageSize: 2, skip: 1, pageToken: first.nextPageToken! },
      items,
      0,
      1000,
    );
    expect(next.items.map((r) => r.data.name)).toEqual(['r4', 'r5']);
  });

  it('cuts a short page to between 1 and full − 1 items and continues after it, never on the last page', () => {
    const req: ListRequest = { filter: {}, order: { field: 'name', desc: true }, pageSize: 4, skip: 0 };
    const served: string[] = [];
    let token: string | undefined;
    const sizes: number[] = [];
    for (const share of [0, 0.99, 0.5, 0.5]) {
      const page = slicePage('repo', { ...req, ...(token ? { pageToken: token } : {}) }, items, 0, 1000, share);
      sizes.push(page.items.length);
      served.push(...page.items.map((r) => r.data.name!));
      expect(page.shortened ?? false).toBe(page.nextPageToken !== undefined);
      token = page.nextPageToken;
    }
    // share 0 → 1 item, 0.99 → 3 (full − 1), 0.5 → 2; then 4 items remain, a full last page.
    expect(sizes).toEqual([1, 3, 2, 4]);
    expect(token).toBeUndefined();
    expect(served).toEqual(['r9', 'r8', 'r7', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1', 'r0']);
    // A page of one item cannot be shorter; the last page is never cut.
    expect(slicePage('repo', { ...req, pageSize: 1 }, items, 0, 1000, 0.5).items).toHaveLength(1);
    expect(slicePage('repo', { ...req, pageSize: 10 }, items, 0, 1000, 0.5).items).toHaveLength(10);
  });
});
