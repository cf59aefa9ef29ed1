/**
 * Counterexamples the invariant suite found, kept (continued from regressions.test.ts): each runs
 * on every `npm test` whatever the seed; what it was is in its name.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkCase, Harness, type Case } from './check-case.js';
import { base, emptyGroup } from './regression-base.js';

const REGRESSIONS: [string, Case][] = [
  [
    'a saved plan re-run after a clean apply of two renames onto one name is "already applied", not stale (test:deep case 506, seed 4242)',
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        description: 'x',
        identities: [
          { name: 'bot', description: '', relationship: 1 },
          { name: 'ci', description: 'Team of builders', relationship: 2 },
        ],
        bindings: [{ identity: 4, role: 1 }],
        repos: [{ name: 'app', description: 'Team of builders', readme: '# readme\n\ntext\n' }],
        idps: [{ name: 'okta', defaultRole: 0, clientId: 'c-2', mappings: [] }],
        association: { name: 'cloud', account: '123456789012' },
        groups: [
          {
            name: 'a',
            ...emptyGroup,
            description: '',
            identities: [
              { name: 'bot', description: 'Team of builders', relationship: 3 },
              { name: 'ci', description: 'team', relationship: 0 },
            ],
            bindings: [{ identity: 1, role: 7 }],
            association: { name: 'code', account: '123456789012' },
          },
          {
            name: 'b',
            ...emptyGroup,
            description: 'x',
            roles: [
              {
                name: 'writer',
                description: 'Team of builders',
                capabilities: ['tag.create', 'repo.list', 'identity.list'],
              },
            ],
            bindings: [{ identity: 0, role: 6 }],
            repos: [{ name: 'web', description: 'Team of builders' }],
            subscriptions: ['https://hooks.acme.dev/a'],
            association: { name: 'cloud', account: '123456789012' },
          },
        ],
        terms: ['tos-2026'],
      },
      edits: [
        { op: 'remove', at: 411441473 },
        { op: 'bindHuman', at: 2005746060, role: 3 },
        { op: 'rename', at: 376539449, to: 'web', declare: true },
        { op: 'rename', at: 639583160, to: 'web', declare: true },
      ],
      settings: {
        prune: { identities: false, repos: false, roleBindings: true, roles: false, subscriptions: false },
        ignore: ['identity:*human-*', 'repo:*hand*'],
        protect: ['repo:a/*', 'repo:x1/*', 'repo:*hand*'],
      },
      extras: { humans: [{ group: 3, name: 'human-ann', role: 'editor' }], tags: [2], handRepo: 2 },
      hand: { op: 'none' },
      fault: { kind: 'none' },
      target: 21,
      allowMassDelete: true,
    } as Case,
  ],
  [
    'a repo renamed away and a new repo of its old name, applied under resets with a --target: the re-runs converge (test:deep case 1348, seed 20261126)',
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        description: 'x',
        identities: [{ name: 'ci', relationship: 1 }],
        bindings: [{ identity: 3, role: 9 }],
        repos: [{ name: 'legacy', description: '' }],
        idps: [{ name: 'okta', defaultRole: 0, clientId: 'c-2', mappings: [{ externalGroup: 'devs', role: 8 }] }],
        association: { name: 'cloud', account: '123456789012' },
        terms: [],
      },
      edits: [
        { op: 'role', at: 1097619989, role: 4 },
        { op: 'rename', at: 143157077, to: 'web', declare: true },
        { op: 'role', at: 735343042, role: 10 },
        { op: 'role', at: 1620913087, role: 0 },
        { op: 'role', at: 418712034, role: 9 },
        { op: 'add', at: 1551062611, what: 'repo' },
      ],
      settings: {
        prune: { identities: false, roleBindings: false, roles: false, subscriptions: false },
        ignore: ['repo:*hand*'],
        protect: ['repo:x1/*', 'group:a', 'identity:*bot', 'subscription:*', 'repo:*hand*'],
      },
      extras: { humans: [{ group: 2, name: 'human-bob', role: 'registry.pull' }], tags: [1, 6], handRepo: 1 },
      hand: { op: 'none' },
      fault: { kind: 'resets', seed: 7 },
      target: 1805426710,
      allowMassDelete: true,
    } as Case,
  ],
  [
    "a rename in an org with an account association does not take the association for the org (I8: 'org matches 2 live resources')",
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        repos: [{ name: 'app' }],
        association: { name: 'cloud', account: '123456789012' },
        terms: [],
      },
      edits: [{ op: 'rename', at: 0, to: 'web', declare: true }],
    } as Case,
  ],
  [
    'a declared binding by uid to a person the manifests leave out: the person is not deleted under it (refused up front, --target or not)',
    {
      ...base,
      initial: { name: 'org', ...emptyGroup, association: { name: 'cloud', account: '123456789012' }, terms: [] },
      edits: [{ op: 'bindHuman', at: 0, role: 0 }],
      extras: { humans: [{ group: 0, name: 'human-ann', role: 'viewer' }], tags: [] },
      hand: { op: 'delete', at: 0 },
      fault: { kind: 'interrupt', after: 1 },
      target: 0,
    } as Case,
  ],
  [
    'a saved plan that renames a group and binds a person beneath it is vouched for by its own fingerprints',
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        roles: [{ name: 'reader', capabilities: ['repo.list'] }],
        subscriptions: ['https://hooks.acme.dev/a'],
        idps: [{ name: 'okta', defaultRole: 0, clientId: 'c-1', mappings: [] }],
        groups: [{ name: 'b', ...emptyGroup, bindings: [{ identity: 0, role: 0 }], repos: [{ name: 'legacy' }] }],
        terms: [],
      },
      edits: [
        { op: 'rename', at: 526656765, to: 'x1', declare: true },
        { op: 'bindHuman', at: 207785529, role: 0 },
      ],
      settings: { prune: false, ignore: [], protect: [] },
      extras: { humans: [{ group: 3, name: 'human-ann', role: 'viewer' }], tags: [] },
      hand: { op: 'create', at: 0 },
      fault: { kind: 'resets', seed: 0 },
      target: 0,
    } as Case,
  ],
  [
    "a role renamed in place is still the identity provider's default role: no PATCH of defaultRole, and a saved plan is not called applied while one remains",
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        description: 'team',
        identities: [{ name: 'ci', description: 'Team of builders', relationship: 1 }],
        roles: [{ name: 'reader', description: 'x', capabilities: ['repo.update', 'groups.list'] }],
        bindings: [{ identity: 0, role: 7 }],
        subscriptions: ['https://hooks.acme.dev/a'],
        idps: [{ name: 'okta', defaultRole: 5, clientId: 'c-1', mappings: [] }],
        association: { name: 'cloud', account: '210987654321' },
        terms: ['tos-2026', 'dpa-v2'],
      },
      edits: [
        { op: 'rename', at: 1904450755, to: 'web', declare: true },
        { op: 'move', at: 1676740538, to: 278277581 },
        { op: 'byUid', at: 1986716245 },
        { op: 'add', at: 790319528, what: 'role' },
      ],
      settings: {
        prune: { repos: false, roleBindings: true, groups: true, roles: false, subscriptions: true },
        ignore: [],
        protect: ['repo:a/*', 'identity:*bot', 'subscription:*'],
      },
      extras: { humans: [{ group: 3, name: 'human-bob', role: 'registry.push' }], tags: [7], handRepo: 0 },
      hand: { op: 'describe', at: 1137538185 },
      target: 969604806,
    } as Case,
  ],
  [
    'a binding whose identity a targeted plan renames is not a change outside --target (under resets)',
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        description: '',
        identities: [{ name: 'ci', description: 'Team of builders', relationship: 0 }],
        bindings: [
          { identity: 0, role: 9 },
          { identity: 5, role: 7 },
        ],
        repos: [{ name: 'legacy', description: 'team' }],
        idps: [
          {
            name: 'okta',
            defaultRole: 9,
            clientId: 'c-2',
            mappings: [
              { externalGroup: 'admins', role: 0 },
              { externalGroup: 'devs', role: 4 },
            ],
          },
        ],
        terms: ['dpa-v2'],
      },
      edits: [
        { op: 'rename', at: 1040373065, to: 'b', declare: true },
        { op: 'bindHuman', at: 2086848486, role: 1 },
        { op: 'remove', at: 802274906 },
        { op: 'describe', at: 1159348258, text: 'changed' },
        { op: 'bindHuman', at: 347235396, role: 1 },
        { op: 'remove', at: 1945089746 },
      ],
      settings: {
        prune: { identities: false, repos: true, groups: true, roles: true, subscriptions: false },
        ignore: ['identity:*human-*', 'repo:*hand*'],
        protect: [],
      },
      extras: { humans: [{ group: 1, name: 'human-ann', role: 'registry.push' }], tags: [], handRepo: 4 },
      hand: { op: 'create', at: 998330651 },
      fault: { kind: 'resets', seed: 282444 },
      target: 890062917,
    } as Case,
  ],
  [
    'a group renamed onto a free name (c to web) while a hand-bound identity below it is pruned: the access change names the identity under the new name, as the plan does (bounded deep run, seed 52580, A1)',
    {
      initial: {
        name: 'org',
        description: '',
        identities: [
          { name: 'deploy', description: '', relationship: 2 },
          { __proto__: null, name: 'builder', description: 'x', relationship: 4 },
        ],
        roles: [
          { __proto__: null, name: 'reader', description: '', capabilities: ['identity.list', 'groups.list'] },
          { name: 'writer', description: 'x', capabilities: ['tag.create'] },
        ],
        bindings: [{ identity: 2, role: 10 }],
        repos: [{ name: 'web', description: 'Team of builders', readme: '# app\n' }],
        subscriptions: [],
        idps: [
          {
            __proto__: null,
            name: 'okta',
            defaultRole: 10,
            clientId: 'c-2',
            mappings: [{ __proto__: null, externalGroup: 'admins', role: 5 }],
          },
        ],
        association: undefined,
        groups: [
          {
            name: 'a',
            description: 'team',
            identities: [
              { __proto__: null, name: 'bot', description: 'Team of builders', relationship: 1 },
              { name: 'signer', description: 'team', relationship: 3 },
            ],
            roles: [
              { name: 'writer', description: 'x', capabilities: ['identity.list', 'repo.update'] },
              { __proto__: null, name: 'auditor', description: '', capabilities: ['repo.list'] },
            ],
            bindings: [{ __proto__: null, identity: 1, role: 6 }],
            repos: [
              { name: 'app', description: '', readme: '# readme\n\ntext\n' },
              { __proto__: null, name: 'web', description: undefined, readme: '' },
              { name: 'legacy', description: '', readme: '# app\n' },
            ],
            subscriptions: ['https://hooks.acme.dev/b'],
            idps: [
              {
                __proto__: null,
                name: 'okta',
                defaultRole: 8,
                clientId: 'c-2',
                mappings: [{ __proto__: null, externalGroup: 'devs', role: 3 }],
              },
            ],
            association: { __proto__: null, name: 'cloud', account: '123456789012' },
            groups: [],
          },
          {
            name: 'c',
            description: 'x',
            identities: [
              { __proto__: null, name: 'bot', description: 'x', relationship: 3 },
              { __proto__: null, name: 'signer', description: 'team', relationship: 2 },
              { name: 'builder', description: 'team', relationship: 1 },
            ],
            roles: [
              { name: 'writer', description: '', capabilities: ['repo.list'] },
              { __proto__: null, name: 'auditor', description: 'x', capabilities: ['repo.update'] },
            ],
            bindings: [],
            repos: [
              { __proto__: null, name: 'web', description: '', readme: undefined },
              { name: 'legacy', description: 'x', readme: '# readme\n\ntext\n' },
              { name: 'api', description: 'x', readme: '# app\n' },
            ],
            subscriptions: ['https://hooks.acme.dev/a'],
            idps: [],
            association: undefined,
            groups: [
              {
                __proto__: null,
                name: 'b',
                description: 'team',
                identities: [],
                roles: [
                  { name: 'reader', description: 'Team of builders', capabilities: ['groups.list'] },
                  {
                    __proto__: null,
                    name: 'auditor',
                    description: 'x',
                    capabilities: ['repo.update', 'identity.list'],
                  },
                ],
                bindings: [
                  { identity: 1, role: 0 },
                  { identity: 1, role: 7 },
                ],
                repos: [{ __proto__: null, name: 'docs', description: 'team', readme: '# readme\n\ntext\n' }],
                subscriptions: ['https://hooks.acme.dev/b'],
                idps: [],
                association: { name: 'cloud', account: '210987654321' },
                groups: [
                  {
                    name: 'a',
                    description: '',
                    identities: [],
                    roles: [
                      {
                        __proto__: null,
                        name: 'writer',
                        description: '',
                        capabilities: ['identity.list', 'repo.list'],
                      },
                      {
                        name: 'auditor',
                        description: 'team',
                        capabilities: ['repo.update', 'repo.list', 'tag.create'],
                      },
                    ],
                    bindings: [],
                    repos: [
                      { name: 'web', description: 'Team of builders', readme: '# app\n' },
                      { __proto__: null, name: 'api', description: 'team', readme: '' },
                      { __proto__: null, name: 'docs', description: 'Team of builders', readme: '# app\n' },
                    ],
                    subscriptions: [],
                    idps: [],
                    association: { name: 'cloud', account: '210987654321' },
                    groups: [],
                  },
                ],
              },
            ],
          },
        ],
        terms: ['dpa-v2'],
      },
      edits: [{ __proto__: null, op: 'rename', at: 1684500056, to: 'web', declare: true }],
      settings: { prune: true, ignore: [], protect: ['repo:a/*'] },
      extras: {
        __proto__: null,
        humans: [{ group: 7, name: 'human-bob', role: 'registry.push' }],
        tags: [0],
        handRepo: 3,
      },
      hand: { __proto__: null, op: 'delete', at: 118674056 },
      fault: { kind: 'none' },
      target: undefined,
      allowMassDelete: false,
    } as unknown as Case,
  ],
];

describe('invariant counterexamples, kept (2)', () => {
  const h = new Harness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());
  for (const [name, c] of REGRESSIONS) it(name, () => checkCase(h, c));
});
