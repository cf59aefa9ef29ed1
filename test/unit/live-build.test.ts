import { describe, expect, it } from 'vitest';
import { buildLiveResources, parentUidOf, type RawOrgListings } from '../../src/live/build-live-state.js';
import type { ApiObject } from '../../src/api/types.js';
import type { Kind } from '../../src/model/kinds.js';

const ORG = 'a'.repeat(40);
const ENG = `${ORG}/1000000000000001`;
const PLAT = `${ENG}/2000000000000001`;
const VIEWER = 'b'.repeat(40);
const OUTSIDE_ID = `${'c'.repeat(40)}/3000000000000001`;

function raw(items: Partial<Record<Kind, ApiObject[]>>): RawOrgListings {
  const all = {
    group: [],
    identity: [],
    role: [],
    roleBinding: [],
    repo: [],
    tag: [],
    subscription: [],
    ...items,
  } as Record<Kind, ApiObject[]>;
  return { org: { uid: ORG, name: 'acme', description: 'Acme' }, items: all, builtinRoles: { viewer: VIEWER } };
}

describe('buildLiveResources', () => {
  it('derives group paths from the uid tree and names, and keys bindings canonically', () => {
    const built = buildLiveResources(
      raw({
        group: [
          { uid: PLAT, name: 'platform' },
          { uid: ENG, name: 'engineering', description: 'Eng' },
        ],
        identity: [
          { uid: `${ENG}/4000000000000001`, name: 'ci-bot', claimMatch: { issuer: 'https://i', subject: 's' } },
        ],
        role: [{ uid: `${ORG}/5000000000000001`, name: 'deployer', capabilities: ['repo.list'] }],
        roleBinding: [
          {
            uid: `${PLAT}/6000000000000001`,
            identity: { uid: `${ENG}/4000000000000001` },
            role: { uid: `${ORG}/5000000000000001` },
          },
          { uid: `${PLAT}/6000000000000002`, identity: { uid: OUTSIDE_ID }, role: { uid: VIEWER } },
        ],
        repo: [{ uid: `${PLAT}/7000000000000001`, name: 'nginx' }],
        tag: [{ uid: `${PLAT}/7000000000000001/8000000000000001`, name: '1.0', digest: 'sha256:ab', deprecated: true }],
        subscription: [{ uid: `${ENG}/9000000000000001`, sink: 'https://hooks.example/x' }],
      }),
    );
    const byAddress = Object.fromEntries(built.resources.map((r) => [r.address, r]));
    expect(Object.keys(byAddress).sort()).toEqual(
      [
        'org',
        'group:engineering',
        'group:engineering/platform',
        'identity:engineering/ci-bot',
        'role:deployer',
        'roleBinding:engineering/platform//engineering/ci-bot=/deployer',
        `roleBinding:engineering/platform/uid:${OUTSIDE_ID}=viewer`,
        'repo:engineering/platform/nginx',
        'tag:engineering/platform/nginx:1.0',
        'subscription:engineering/https://hooks.example/x',
      ].sort(),
    );
    expect(byAddress['group:engineering/platform']).toMatchObject({
      groupPath: 'engineering/platform',
      parentAddress: 'group:engineering',
      parentUid: ENG,
    });
    expect(byAddress['tag:engineering/platform/nginx:1.0']).toMatchObject({
      groupPath: 'engineering/platform',
      parentAddress: 'repo:engineering/platform/nginx',
      fields: { name: '1.0', digest: 'sha256:ab', deprecated: true },
    });
    expect(byAddress[`roleBinding:engineering/platform/uid:${OUTSIDE_ID}=viewer`]!.fields).toEqual({
      identity: { uid: OUTSIDE_ID },
      role: { builtin: 'viewer' },
    });
    expect(byAddress.org).toMatchObject({
      parentAddress: null,
      parentUid: null,
      fields: { name: 'acme', description: 'Acme' },
    });
    expect(built.ambiguities).toEqual([]);
    expect(built.unplaced).toEqual([]);
  });

  it('reports siblings with one name as an ambiguity and keeps the first by uid', () => {
    const built = buildLiveResources(
      raw({
        identity: [
          { uid: `${ORG}/4000000000000002`, name: 'bot' },
          { uid: `${ORG}/4000000000000001`, name: 'bot' },
        ],
      }),
    );
    expect(built.ambiguities).toEqual([
      { address: 'identity:bot', uids: [`${ORG}/4000000000000001`, `${ORG}/4000000000000002`] },
    ]);
    expect(built.resources.filter((r) => r.address === 'identity:bot').map((r) => r.uid)).toEqual([
      `${ORG}/4000000000000001`,
    ]);
  });

  it('reports resources whose parent is missing instead of dropping them silently, and the parent kind as incomplete too', () => {
    // The group listing left ENG out, the repo listing holds a repo of it: the groups listing is
    // incomplete as well (found by the review: a plan created the group it missed).
    const built = buildLiveResources(
      raw({
        repo: [{ uid: `${ENG}/7000000000000001`, name: 'lost' }],
        tag: [{ uid: `${ENG}/7000000000000002/9000000000000001`, name: '1.0' }],
      }),
    );
    expect(built.unplaced).toEqual([
      { kind: 'repo', reason: `1 repos (e.g. ${ENG}/7000000000000001) belong to a parent missing from the listings` },
      {
        kind: 'tag',
        reason: `1 tags (e.g. ${ENG}/7000000000000002/9000000000000001) belong to a parent missing from the listings`,
      },
      {
        kind: 'group',
        reason: `1 listed resource names a parent missing from the groups listing (e.g. ${ENG}, parent of ${ENG}/7000000000000001)`,
      },
      {
        kind: 'repo',
        reason: `1 listed resource names a parent missing from the repos listing (e.g. ${ENG}/7000000000000002, parent of ${ENG}/7000000000000002/9000000000000001)`,
      },
    ]);
  });

  it('reports an identity or role inside the org that a binding names but the listing missed', () => {
    const built = buildLiveResources(
      raw({
        identity: [{ uid: `${ORG}/4000000000000001`, name: 'seen' }],
        roleBinding: [
          { uid: `${ORG}/6000000000000001`, identity: { uid: `${ORG}/4000000000000009` }, role: { uid: VIEWER } },
          {
            uid: `${ORG}/6000000000000002`,
            identity: { uid: `${ORG}/4000000000000001` },
            role: { uid: `${ORG}/5000000000000009` },
          },
          // Outside the org: kept as a uid reference, not a sign of a missed listing.
          { uid: `${ORG}/6000000000000003`, identity: { uid: OUTSIDE_ID }, role: { uid: VIEWER } },
        ],
      }),
    );
    expect(built.unplaced).toEqual([
      {
        kind: 'identity',
        reason: expect.stringContaining(`${ORG}/4000000000000009, bound by ${ORG}/6000000000000001`),
      },
      { kind: 'role', reason: expect.stringContaining(`${ORG}/5000000000000009, bound by ${ORG}/6000000000000002`) },
    ]);
  });

  it('finds the parent uid of a child uid', () => {
    expect(parentUidOf(PLAT)).toBe(ENG);
    expect(parentUidOf(ORG)).toBeNull();
  });
});
