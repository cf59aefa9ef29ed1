/** The emulator's indexed store: cached sorted lists stay equal to a fresh query through every change. */
import { describe, expect, it } from 'vitest';
import { createSeededRandom, generateHex } from '../../src/emulator/prng.js';
import type { ListFilter, OrderField } from '../../src/emulator/list-order.js';
import { Store, type StoredResource } from '../../src/emulator/store.js';

const ROOT = 'a'.repeat(40);

function makeStore(): {
  store: Store;
  add: (kind: StoredResource['kind'], parent: string | null, name: string, ms: number) => StoredResource;
} {
  const store = new Store();
  const random = createSeededRandom(1);
  const add = (kind: StoredResource['kind'], parent: string | null, name: string, ms: number): StoredResource => {
    const r: StoredResource = {
      kind,
      uid: parent ? `${parent}/${generateHex(16, random)}` : ROOT,
      parent,
      seq: store.allocateSeq(),
      createMs: ms,
      updateMs: ms,
      data: { name },
    };
    store.insert(r);
    return r;
  };
  return { store, add };
}

/** The same query on a store whose caches were just dropped. */
function fresh(store: Store, kind: StoredResource['kind'], filter: ListFilter, field: OrderField): string[] {
  store.invalidateSortedViews();
  return store.query(kind, filter, field).map((r) => r.uid);
}

describe('Store', () => {
  it('keeps cached lists equal to fresh queries through inserts, renames and removals', () => {
    const { store, add } = makeStore();
    const root = add('group', null, 'root', 0);
    const groups = [add('group', root.uid, 'g1', 1), add('group', root.uid, 'g2', 2)];
    const random = createSeededRandom(99);
    const repos: StoredResource[] = [];
    const queries: [ListFilter, OrderField][] = [
      [{}, 'name'],
      [{}, 'uid'],
      [{ descendantsOf: root.uid }, 'createTime'],
      [{ childrenOf: groups[0]!.uid }, 'updateTime'],
      [{ scope: groups[1]!.uid }, 'name'],
      [{ name: 'n3' }, 'uid'],
    ];
    for (let step = 0; step < 400; step++) {
      // Read every query (filling the caches), then change something.
      for (const [f, field] of queries) store.query('repo', f, field);
      const u = random();
      if (u < 0.5 || repos.length === 0)
        repos.push(add('repo', groups[Math.floor(random() * 2)]!.uid, `n${Math.floor(random() * 10)}`, 10 + step));
      else if (u < 0.8)
        store.update(
          repos[Math.floor(random() * repos.length)]!,
          { name: `n${Math.floor(random() * 10)}` },
          1000 + step,
        );
      else store.remove(repos.splice(Math.floor(random() * repos.length), 1)[0]!);
    }
    const cached = queries.map(([f, field]) => store.query('repo', f, field).map((r) => r.uid));
    const expected = queries.map(([f, field]) => fresh(store, 'repo', f, field));
    expect(cached).toEqual(expected);
    expect(expected[0]!.length).toBe(repos.length);
  });

  it('finds descendants by uid range and children by index', () => {
    const { store, add } = makeStore();
    const root = add('group', null, 'root', 0);
    const a = add('group', root.uid, 'a', 1);
    const b = add('group', a.uid, 'b', 2);
    add('group', b.uid, 'c', 3);
    expect(store.query('group', { descendantsOf: root.uid }, 'name').map((r) => r.data.name)).toEqual(['a', 'b', 'c']);
    expect(store.query('group', { descendantsOf: a.uid }, 'name').map((r) => r.data.name)).toEqual(['b', 'c']);
    expect(store.query('group', { childrenOf: root.uid }, 'name').map((r) => r.data.name)).toEqual(['a']);
    expect(store.query('group', { scope: a.uid }, 'name').map((r) => r.data.name)).toEqual(['a', 'b', 'c']);
    expect(store.childCount(root.uid)).toBe(1);
    expect(store.findSibling('group', a.uid, { name: 'b' })).toBe(b.uid);
    expect(store.findSibling('group', root.uid, { name: 'b' })).toBeUndefined();
  });
});
