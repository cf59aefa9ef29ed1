/**
 * Counterexamples the invariant suite found (shrunk by fast-check), each kept as a named case so
 * that it runs on every `npm test` whatever the seed: what it was is in its name. In the order
 * found: this file, regressions-2.test.ts, regressions-3.test.ts (the regression-base.ts start).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkCase, Harness, type Case } from './check-case.js';
import { base, emptyGroup } from './regression-base.js';

const REGRESSIONS: [string, Case][] = [
  [
    "a binding moved from an identity of repo:acme/(app|web):.* to one of repo:acme/.* (the first removed) is a gain: the owner's other repositories can act (the oracle probed none of them; seed 391376, A1)",
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        identities: [
          { name: 'signer', relationship: 8 },
          { name: 'builder', relationship: 12 },
        ],
        bindings: [{ identity: 3, role: 0 }],
        repos: [{ name: 'app' }, { name: 'docs' }],
        terms: [],
      },
      edits: [{ op: 'remove', at: 377482816 }],
    } as Case,
  ],
  [
    "two identities with staticKeys of one issuer and subject but other keys are two principals: a binding for one is a gain (the oracle told them apart by the keys' length; test:deep seed 46046 case 2632, A1)",
    {
      initial: {
        name: 'org',
        description: 'team',
        identities: [
          { name: 'ci', description: '', relationship: 6 },
          { name: 'signer', description: 'x', relationship: 4 },
        ],
        roles: [
          { name: 'reader', description: 'Team of builders', capabilities: ['repo.update', 'tag.create'] },
          { name: 'writer', description: 'x', capabilities: ['groups.list', 'identity.list'] },
        ],
        bindings: [{ identity: 3, role: 10 }],
        repos: [],
        subscriptions: ['https://hooks.acme.dev/b'],
        idps: [
          {
            name: 'okta',
            defaultRole: 1,
            clientId: 'c-2',
            mappings: [
              { externalGroup: 'devs', role: 6 },
              { externalGroup: 'admins', role: 8 },
            ],
          },
        ],
        association: { name: 'cloud', account: '123456789012' },
        groups: [
          {
            name: 'b',
            description: '',
            identities: [{ name: 'builder', description: '', relationship: 2 }],
            roles: [],
            bindings: [],
            repos: [
              { name: 'app', description: 'team', readme: '' },
              { name: 'web', description: 'team', readme: undefined },
              { name: 'api', description: 'x', readme: '# readme\n\ntext\n' },
            ],
            subscriptions: [],
            idps: [{ name: 'okta', defaultRole: 4, clientId: 'c-2', mappings: [] }],
            association: { name: 'code', account: '210987654321' },
            groups: [],
          },
          {
            name: 'c',
            description: undefined,
            identities: [],
            roles: [
              { name: 'reader', description: 'x', capabilities: ['groups.list', 'tag.create', 'repo.update'] },
              {
                name: 'auditor',
                description: 'Team of builders',
                capabilities: ['repo.list', 'repo.update', 'identity.list'],
              },
            ],
            bindings: [
              { identity: 2, role: 10 },
              { identity: 4, role: 5 },
            ],
            repos: [
              { name: 'app', description: 'Team of builders', readme: '# app\n' },
              { name: 'api', description: 'x', readme: '' },
            ],
            subscriptions: ['https://hooks.acme.dev/a'],
            idps: [],
            association: { name: 'code', account: '210987654321' },
            groups: [
              {
                name: 'b',
                description: undefined,
                identities: [{ name: 'builder', description: 'Team of builders', relationship: 6 }],
                roles: [
                  { name: 'reader', description: 'team', capabilities: ['tag.create', 'groups.list', 'identity.list'] },
                  { name: 'writer', description: 'Team of builders', capabilities: ['repo.list', 'repo.update'] },
                ],
                bindings: [
                  { identity: 4, role: 0 },
                  { identity: 1, role: 4 },
                ],
                repos: [{ name: 'legacy', description: 'Team of builders', readme: '# readme\n\ntext\n' }],
                subscriptions: ['https://hooks.acme.dev/b'],
                idps: [],
                association: { name: 'cloud', account: '210987654321' },
                groups: [
                  {
                    name: 'a',
                    description: 'team',
                    identities: [{ name: 'builder', description: '', relationship: 2 }],
                    roles: [
                      { name: 'writer', description: 'team', capabilities: ['repo.update'] },
                      { name: 'auditor', description: 'x', capabilities: ['tag.create', 'repo.list', 'identity.list'] },
                    ],
                    bindings: [{ identity: 4, role: 1 }],
                    repos: [
                      { name: 'web', description: 'team', readme: undefined },
                      { name: 'api', description: 'x', readme: '' },
                    ],
                    subscriptions: [],
                    idps: [],
                    association: { name: 'code', account: '210987654321' },
                    groups: [
                      {
                        name: 'b',
                        description: 'team',
                        identities: [
                          { name: 'ci', description: 'Team of builders', relationship: 2 },
                          { name: 'signer', description: 'Team of builders', relationship: 7 },
                          { name: 'builder', description: '', relationship: 7 },
                        ],
                        roles: [
                          { name: 'writer', description: '', capabilities: ['groups.list', 'tag.create'] },
                          { name: 'auditor', description: 'Team of builders', capabilities: ['groups.list'] },
                        ],
                        bindings: [
                          { identity: 4, role: 8 },
                          { identity: 4, role: 4 },
                        ],
                        repos: [],
                        subscriptions: ['https://hooks.acme.dev/b'],
                        idps: [],
                        association: { name: 'code', account: '123456789012' },
                        groups: [],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
        terms: ['tos-2026'],
      },
      edits: [
        { op: 'move', at: 1733498796, to: 253878389 },
        { op: 'byUid', at: 30 },
        { op: 'byUid', at: 1602434530 },
        { op: 'move', at: 1102389602, to: 1617811508 },
        { op: 'describe', at: 21175880, text: 'Team of builders' },
        { op: 'role', at: 2015370969, role: 5 },
      ],
      settings: {
        prune: { identities: true, repos: false, roleBindings: true, roles: false, subscriptions: false },
        ignore: ['identity:*human-*', 'repo:*hand*'],
        protect: ['repo:*legacy*', 'repo:a/*', 'repo:x1/*', 'identity:*bot', 'subscription:*', 'repo:*hand*'],
      },
      extras: { humans: [], tags: [], handRepo: 5 },
      hand: { op: 'delete', at: 2030029935 },
      fault: { kind: 'none' },
      target: undefined,
      allowMassDelete: false,
    } as unknown as Case,
  ],
  [
    "an identity provider's group whose group is renamed is the same people: no access gained (issue 46 oracle, test:deep seed 46046, A1)",
    {
      initial: {
        name: 'org',
        description: '',
        identities: [],
        roles: [{ name: 'reader', description: 'Team of builders', capabilities: ['identity.list'] }],
        bindings: [],
        repos: [],
        subscriptions: [],
        idps: [
          {
            name: 'okta',
            defaultRole: 7,
            clientId: 'c-1',
            mappings: [
              { externalGroup: 'admins', role: 3 },
              { externalGroup: 'devs', role: 6 },
            ],
          },
        ],
        association: { name: 'cloud', account: '210987654321' },
        groups: [
          {
            name: 'a',
            identities: [{ name: 'deploy', description: '', relationship: 4 }],
            roles: [{ name: 'writer', description: 'team', capabilities: ['tag.create', 'repo.update', 'repo.list'] }],
            bindings: [],
            repos: [
              { name: 'web', description: 'Team of builders' },
              { name: 'api', readme: '' },
              { name: 'docs', description: 'x', readme: '' },
            ],
            subscriptions: [],
            idps: [{ name: 'okta', defaultRole: 2, clientId: 'c-2', mappings: [{ externalGroup: 'admins', role: 2 }] }],
            groups: [],
          },
        ],
        terms: ['dpa-v2'],
      },
      edits: [
        { op: 'bindHuman', at: 586493540, role: 2 },
        { op: 'rename', at: 289053658, to: 'web', declare: true },
        { op: 'remove', at: 921903131 },
        { op: 'add', at: 1265463193, what: 'role' },
        { op: 'rename', at: 2092850850, to: 'x1', declare: true },
      ],
      settings: {
        prune: { identities: false, repos: true, roleBindings: false, roles: false, subscriptions: true },
        ignore: ['identity:a/b/*human*'],
        protect: ['group:a/b'],
      },
      extras: { humans: [], tags: [3, 8], handRepo: 1 },
      hand: { op: 'none' },
      fault: { kind: 'none' },
      target: undefined,
      allowMassDelete: true,
    } as unknown as Case,
  ],
  [
    'a chain of renames (web to another name, a repo to web) renames the one that frees the name first (test:deep seed 4242, I6)',
    {
      initial: {
        name: 'org',
        description: '',
        identities: [{ name: 'bot', description: '', relationship: 3 }],
        roles: [],
        bindings: [{ identity: 3, role: 4 }],
        repos: [
          { name: 'app', description: 'team' },
          { name: 'web', readme: '# readme\n\ntext\n' },
          { name: 'docs', description: 'team', readme: '' },
        ],
        subscriptions: ['https://hooks.acme.dev/b'],
        idps: [],
        association: { name: 'code', account: '123456789012' },
        groups: [],
        terms: ['tos-2026'],
      },
      edits: [
        { op: 'describe', at: 1942350124, text: 'changed' },
        { op: 'rename', at: 298066212, to: 'x2', declare: true },
        { op: 'rename', at: 1420758252, to: 'web', declare: true },
      ],
      settings: {
        prune: { identities: false, repos: true, roleBindings: true, groups: false, roles: false, subscriptions: true },
        ignore: [],
        protect: ['group:a/b', 'identity:*bot'],
      },
      extras: {
        humans: [
          { group: 0, name: 'human-bob', role: 'registry.pull' },
          { group: 8, name: 'human-ann', role: 'registry.pull' },
        ],
        tags: [1, 6],
        handRepo: 4,
      },
      hand: { op: 'create', at: 832200561 },
      fault: { kind: 'none' },
      target: 1217525029,
      allowMassDelete: false,
    } as unknown as Case,
  ],
  [
    'a targeted plan that creates under a group it leaves renamed, re-run after a clean apply, is "already applied" (test:deep seed 4242)',
    {
      initial: {
        name: 'org',
        description: 'team',
        identities: [
          { name: 'bot', description: 'x', relationship: 3 },
          { name: 'deploy', description: 'Team of builders', relationship: 3 },
        ],
        roles: [
          {
            name: 'writer',
            description: 'Team of builders',
            capabilities: ['groups.list', 'repo.list', 'repo.update'],
          },
        ],
        bindings: [],
        repos: [{ name: 'docs', description: 'Team of builders', readme: '# app\n' }],
        subscriptions: [],
        idps: [],
        association: { name: 'cloud', account: '123456789012' },
        groups: [
          {
            name: 'b',
            description: 'x',
            identities: [],
            roles: [],
            bindings: [
              { identity: 3, role: 4 },
              { identity: 2, role: 10 },
            ],
            repos: [
              { name: 'web', description: 'Team of builders', readme: '# app\n' },
              { name: 'docs', description: 'team', readme: '' },
            ],
            subscriptions: ['https://hooks.acme.dev/a'],
            idps: [
              {
                name: 'okta',
                defaultRole: 0,
                clientId: 'c-2',
                mappings: [
                  { externalGroup: 'devs', role: 9 },
                  { externalGroup: 'admins', role: 4 },
                ],
              },
            ],
            association: { name: 'code', account: '123456789012' },
            groups: [
              {
                name: 'b',
                identities: [],
                roles: [
                  { name: 'writer', description: 'team', capabilities: ['repo.list', 'repo.update'] },
                  { name: 'auditor', description: '', capabilities: ['repo.update', 'repo.list'] },
                ],
                bindings: [{ identity: 4, role: 1 }],
                repos: [{ name: 'docs', description: '', readme: '' }],
                subscriptions: [],
                idps: [],
                association: { name: 'code', account: '210987654321' },
                groups: [],
              },
            ],
          },
        ],
        terms: ['dpa-v2'],
      },
      edits: [
        { op: 'add', at: 406101125, what: 'subscription' },
        { op: 'role', at: 924796139, role: 6 },
        { op: 'bindHuman', at: 2121540958, role: 2 },
        { op: 'rename', at: 1234377892, to: 'x2', declare: true },
      ],
      settings: {
        prune: { identities: false, roleBindings: true, groups: false, roles: false, subscriptions: false },
        ignore: ['identity:*human-*', 'identity:human-*', 'identity:a/*human*', 'identity:a/b/*human*'],
        protect: ['repo:*legacy*', 'repo:a/*', 'repo:x1/*', 'group:a/b', 'repo:*hand*'],
      },
      extras: { humans: [{ group: 6, name: 'human-cid', role: 'owner' }], tags: [] },
      hand: { op: 'none' },
      fault: { kind: 'none' },
      target: 2147483636,
      allowMassDelete: true,
    } as unknown as Case,
  ],
];

describe('invariant counterexamples, kept', () => {
  const h = new Harness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());
  for (const [name, c] of REGRESSIONS) it(name, () => checkCase(h, c));
});
