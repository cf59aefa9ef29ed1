/**
 * The live build keeps one resource per address and reports the others (DESIGN.md §4): over
 * generated listings, the resources come in address order (UTF-16 code units, as a plain sort
 * orders strings), one per address, the kept one the first in placement order (shorter uid, then
 * lower uid), and every address held more than once is reported with all its uids in that order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildLiveResources } from '../../src/live/build-live-state.js';
import type { ApiObject } from '../../src/api/types.js';
import type { Kind } from '../../src/model/kinds.js';

const ORG = 'a'.repeat(40);
/** Names whose order by code unit differs from the order by code point, and case differs. */
const NAMES = ['bot', 'Bot', 'bot2', 'b', '\u{1F600}', '\uFF5A', 'é', 'e\u0301'];

const placementOrder = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

describe('buildLiveResources: ambiguous addresses', () => {
  it('keeps the first of each address in address order and reports the rest (property)', () => {
    const listing = fc.uniqueArray(
      fc.record({
        uid: fc.oneof(fc.stringMatching(/^[0-9a-f]{16}$/), fc.stringMatching(/^[0-9a-f]{16}\/[0-9a-f]{16}$/)),
        name: fc.constantFrom(...NAMES),
      }),
      { selector: (i) => i.uid, maxLength: 30 },
    );
    fc.assert(
      fc.property(listing, listing, (identities, repos) => {
        // Repos listed under the org (their uid's parent is the org), identities too.
        const items = (list: typeof identities): ApiObject[] =>
          list.map((i) => ({ uid: `${ORG}/${i.uid.slice(0, 16)}`, name: i.name }));
        const built = buildLiveResources({
          org: { uid: ORG, name: 'acme' },
          items: { identity: items(identities), repo: items(repos) } as Record<Kind, ApiObject[]>,
          builtinRoles: {},
        });
        const addresses = built.resources.map((r) => r.address);
        expect(addresses).toEqual([...new Set(addresses)].sort());
        for (const kind of ['identity', 'repo'] as const) {
          const byAddress = new Map<string, string[]>();
          const uids = [...new Set(items(kind === 'identity' ? identities : repos).map((i) => i.uid))];
          for (const uid of uids.sort(placementOrder)) {
            const name = items(kind === 'identity' ? identities : repos).find((i) => i.uid === uid)!.name;
            const address = `${kind}:${name}`;
            byAddress.set(address, [...(byAddress.get(address) ?? []), uid]);
          }
          for (const [address, held] of byAddress) {
            expect(built.resources.find((r) => r.address === address)?.uid).toBe(held[0]);
            const reported = built.ambiguities.find((a) => a.address === address);
            expect(reported).toEqual(held.length > 1 ? { address, uids: held } : undefined);
          }
        }
        const reported = built.ambiguities.map((a) => a.address);
        expect(reported).toEqual([...reported].sort());
      }),
      { numRuns: 60 },
    );
  });
});
