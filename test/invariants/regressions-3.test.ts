/**
 * Counterexamples the invariant suite found, kept (continued from regressions-2.test.ts): each
 * runs on every `npm test` whatever the seed; what it was is in its name.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkCase, Harness, type Case } from './check-case.js';
import { base, emptyGroup } from './regression-base.js';

const REGRESSIONS: [string, Case][] = [
  [
    'an identity renamed in place (ci to x1) while the plan deletes its last binding: the live read after names it x1, as the plan does, though no binding names it any more (invariants seed 34, A1)',
    {
      initial: {
        name: 'org',
        description: 'Team of builders',
        identities: [
          { __proto__: null, name: 'bot', description: 'x', relationship: 1 },
          { __proto__: null, name: 'ci', description: '', relationship: 4 },
          { __proto__: null, name: 'builder', description: 'x', relationship: 2 },
        ],
        roles: [
          { __proto__: null, name: 'writer', description: '', capabilities: ['tag.create'] },
          { name: 'auditor', description: 'x', capabilities: ['identity.list'] },
        ],
        bindings: [{ __proto__: null, identity: 1, role: 1 }],
        repos: [
          { name: 'app', description: '', readme: '# readme\n\ntext\n' },
          { __proto__: null, name: 'web', description: 'Team of builders', readme: '' },
          { name: 'api', description: 'x', readme: '' },
        ],
        subscriptions: ['https://hooks.acme.dev/a'],
        idps: [],
        association: { name: 'code', account: '210987654321' },
        groups: [
          {
            __proto__: null,
            name: 'c',
            description: 'team',
            identities: [
              { __proto__: null, name: 'signer', description: undefined, relationship: 4 },
              { name: 'builder', description: undefined, relationship: 1 },
            ],
            roles: [
              { name: 'reader', description: '', capabilities: ['repo.update'] },
              { __proto__: null, name: 'auditor', description: undefined, capabilities: ['repo.update'] },
            ],
            bindings: [
              { identity: 3, role: 9 },
              { identity: 5, role: 2 },
            ],
            repos: [{ __proto__: null, name: 'web', description: '', readme: undefined }],
            subscriptions: ['https://hooks.acme.dev/b'],
            idps: [
              {
                __proto__: null,
                name: 'okta',
                defaultRole: 1,
                clientId: 'c-1',
                mappings: [
                  { externalGroup: 'admins', role: 4 },
                  { externalGroup: 'devs', role: 3 },
                ],
              },
            ],
            association: { name: 'code', account: '123456789012' },
            groups: [],
          },
        ],
        terms: [],
      },
      edits: [
        { __proto__: null, op: 'move', at: 1112081740, to: 1899010061 },
        { __proto__: null, op: 'rename', at: 510881162, to: 'x1', declare: true },
        { __proto__: null, op: 'remove', at: 1955484671 },
        { __proto__: null, op: 'move', at: 1717877077, to: 695227164 },
      ],
      settings: {
        prune: { __proto__: null, identities: false, roleBindings: true, groups: false, roles: false },
        ignore: ['identity:human-*', 'identity:a/b/*human*'],
        protect: ['repo:x1/*', 'group:a/b'],
      },
      extras: {
        __proto__: null,
        humans: [{ group: 10, name: 'human-cid', role: 'registry.push' }],
        tags: [8, 3],
        handRepo: 1,
      },
      hand: { op: 'none' },
      fault: { kind: 'none' },
      target: undefined,
      allowMassDelete: true,
    } as unknown as Case,
  ],
  ...[1, 2, 3].map((to): [string, Case] => [
    `an owner identity's subjectPattern repo:acme/.* widened keeping its literal prefix (pattern family edit ${to}: a quantifier on the prefix's last character, a top-level alternation, (?i)) is a new principal (issue 58, A1; the prefix check passed it)`,
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        description: '',
        identities: [{ name: 'bot', description: '', relationship: 8 }],
        bindings: [{ identity: 0, role: 2 }],
        terms: [],
      },
      edits: [{ op: 'pattern', at: 0, to }],
    } as Case,
  ]),
  [
    "an owner identity's subjectPattern repo:acme/.* changed to repo:acme/[^:]*:ref:refs/heads/.* is a widening, not a narrowing: a negated class admits a newline, which . does not (seed 13; the product was right, the oracle's probes lacked a newline; A1)",
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        identities: [{ name: 'bot', relationship: 8 }],
        bindings: [{ identity: 0, role: 2 }],
        terms: [],
      },
      edits: [{ op: 'pattern', at: 0, to: 13 }],
    } as Case,
  ],
  [
    'a binding repeated three levels below its own (an org identity bound editor on the org, and on a/b/c) gains nothing: a/b/c inherits it (issue 58; fails when inheritance stops below the second level, A1)',
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        identities: [{ name: 'bot', relationship: 0 }],
        bindings: [{ identity: 0, role: 1 }],
        terms: [],
        groups: [
          { name: 'a', ...emptyGroup, groups: [{ name: 'b', ...emptyGroup, groups: [{ name: 'c', ...emptyGroup }] }] },
        ],
      },
      edits: [{ op: 'rebind', at: 0 }],
    } as Case,
  ],
  [
    'an access rule whose scope is a group declared as web (renamedFrom b) that a targeted plan leaves named b is judged on that group, as are the identities it lists: the product was right, the oracle looked for web by name (R1; 200-case run on the rules branch, seed 777)',
    {
      __proto__: null,
      initial: {
        name: 'org',
        description: undefined,
        identities: [],
        roles: [
          { __proto__: null, name: 'reader', description: 'team', capabilities: ['role_bindings.create'] },
          { name: 'auditor', description: 'Team of builders', capabilities: ['identity.list', 'group_invites.create'] },
        ],
        bindings: [{ __proto__: null, identity: 3, role: 5, up: undefined }],
        repos: [],
        subscriptions: ['https://hooks.acme.dev/b'],
        idps: [],
        association: { name: 'code', account: '210987654321' },
        groups: [
          {
            __proto__: null,
            name: 'a',
            description: 'team',
            identities: [],
            roles: [],
            bindings: [
              { __proto__: null, identity: 4, role: 7, up: 1 },
              { __proto__: null, identity: 3, role: 3, up: 1 },
            ],
            repos: [
              {
                __proto__: null,
                name: 'api',
                description: 'x',
                readme: '# app\n',
                tier: 'BASE',
                aliases: ['api:a', 'docker.io/acme/api:1.0'],
              },
            ],
            subscriptions: [],
            idps: [],
            association: { name: 'cloud', account: '123456789012' },
            groups: [
              {
                name: 'a',
                description: 'team',
                identities: [],
                roles: [],
                bindings: [
                  { identity: 3, role: 9, up: 1 },
                  { __proto__: null, identity: 3, role: 4, up: 2 },
                  { __proto__: null, identity: 4, role: 2, up: undefined },
                ],
                repos: [{ name: 'web', description: undefined, readme: '', tier: 'FIPS', aliases: ['web:a'] }],
                subscriptions: ['https://hooks.acme.dev/a'],
                idps: [],
                association: { __proto__: null, name: 'code', account: '123456789012' },
                groups: [
                  {
                    __proto__: null,
                    name: 'b',
                    description: '',
                    identities: [],
                    roles: [
                      {
                        name: 'writer',
                        description: 'team',
                        capabilities: ['group_invites.create', 'identity.update'],
                      },
                    ],
                    bindings: [],
                    repos: [],
                    subscriptions: [],
                    idps: [],
                    association: { name: 'cloud', account: '210987654321' },
                    groups: [
                      {
                        __proto__: null,
                        name: 'b',
                        description: undefined,
                        identities: [{ __proto__: null, name: 'builder', description: 'team', relationship: 8 }],
                        roles: [{ __proto__: null, name: 'writer', description: '', capabilities: ['identity.list'] }],
                        bindings: [],
                        repos: [
                          { name: 'api', description: '', readme: '# readme\n\ntext\n', tier: 'FIPS', aliases: [] },
                        ],
                        subscriptions: [],
                        idps: [],
                        association: { __proto__: null, name: 'code', account: '123456789012' },
                        groups: [],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
        terms: [],
      },
      edits: [
        { op: 'pattern', at: 1010218499, to: 16 },
        { op: 'bindHuman', at: 556883787, role: 3 },
        { __proto__: null, op: 'rename', at: 115855006, to: 'web', declare: true },
        { __proto__: null, op: 'remove', at: 486711460 },
        { op: 'byUid', at: 1530062845 },
        { op: 'describe', at: 1388162951, text: 'changed' },
      ],
      settings: { prune: false, ignore: [], protect: ['repo:a/*', 'group:a/b', 'subscription:*'] },
      extras: {
        __proto__: null,
        humans: [
          { group: 9, name: 'human-cid', role: 'registry.pull_token_creator' },
          { __proto__: null, group: 3, name: 'human-bob', role: 'viewer' },
        ],
        tags: [0],
        handRepo: 6,
      },
      hand: { __proto__: null, op: 'describe', at: 2147483641 },
      fault: { __proto__: null, kind: 'resets', seed: 999989 },
      target: 1815180275,
      allowMassDelete: false,
      rules: [
        {
          test: 'only',
          capabilities: ['roles.update', 'role_bindings.create', 'group_invites.create'],
          role: 'owner',
          scope: 19,
          only: [20],
          count: { __proto__: null, min: 0, max: 2 },
          token: 0,
        },
      ],
    } as unknown as Case,
  ],
  [
    'an identity whose issuerPattern is the exact issuer escaped, bound where another identity of that issuer accepting every subject holds viewer, gains only beyond viewer: its tokens held viewer there already (test:deep seed 20261204 case 53, A1: every capability was said gained)',
    {
      ...base,
      initial: {
        name: 'org',
        ...emptyGroup,
        identities: [{ name: 'bot', relationship: 26 }],
        terms: [],
        groups: [
          {
            name: 'b',
            ...emptyGroup,
            identities: [{ name: 'bot', relationship: 17 }],
            bindings: [{ identity: 0, role: 0 }],
          },
        ],
      },
      edits: [{ op: 'add', at: 17, what: 'binding' }],
    } as Case,
  ],
  [
    'a group renamed by the manifests but not yet by a targeted, cut-short apply: the access change names it as the plan does (group:a/x1), the gain is read on its live name (group:a/b) — one group (test:deep seed 20261204, case 305, A1)',
    {
      initial: {
        name: 'org',
        description: undefined,
        identities: [],
        roles: [{ name: 'auditor', description: undefined, capabilities: ['repo.list'] }],
        bindings: [{ identity: 0, role: 0 }],
        repos: [{ name: 'legacy', description: undefined, readme: undefined }],
        subscriptions: [],
        idps: [{ name: 'okta', defaultRole: 0, clientId: 'c-1', mappings: [] }],
        association: { name: 'cloud', account: '123456789012' },
        groups: [
          {
            name: 'a',
            description: undefined,
            identities: [
              { name: 'deploy', description: undefined, relationship: 0 },
              { name: 'signer', description: undefined, relationship: 8 },
              { name: 'builder', description: undefined, relationship: 8 },
            ],
            roles: [],
            bindings: [],
            repos: [
              { name: 'web', description: undefined, readme: undefined },
              { name: 'legacy', description: undefined, readme: undefined },
              { name: 'docs', description: undefined, readme: undefined },
            ],
            subscriptions: [],
            idps: [{ name: 'okta', defaultRole: 0, clientId: 'c-1', mappings: [] }],
            association: { name: 'cloud', account: '123456789012' },
            groups: [
              {
                name: 'b',
                description: undefined,
                identities: [],
                roles: [],
                bindings: [
                  { identity: 0, role: 0 },
                  { identity: 0, role: 0 },
                  { identity: 4, role: 0, up: 1 },
                ],
                repos: [],
                subscriptions: [],
                idps: [],
                association: { name: 'cloud', account: '123456789012' },
                groups: [
                  {
                    name: 'b',
                    description: undefined,
                    identities: [
                      { name: 'bot', description: undefined, relationship: 8 },
                      { name: 'builder', description: undefined, relationship: 0 },
                    ],
                    roles: [
                      { name: 'reader', description: undefined, capabilities: ['repo.list'] },
                      { name: 'auditor', description: undefined, capabilities: ['repo.list'] },
                    ],
                    bindings: [],
                    repos: [],
                    subscriptions: ['https://hooks.acme.dev/a'],
                    idps: [],
                    association: { name: 'cloud', account: '123456789012' },
                    groups: [
                      {
                        name: 'a',
                        description: undefined,
                        identities: [{ name: 'deploy', description: undefined, relationship: 0 }],
                        roles: [],
                        bindings: [],
                        repos: [],
                        subscriptions: [],
                        idps: [],
                        association: { name: 'cloud', account: '123456789012' },
                        groups: [],
                      },
                    ],
                  },
                ],
              },
            ],
          },
          {
            name: 'b',
            description: undefined,
            identities: [],
            roles: [],
            bindings: [],
            repos: [
              { name: 'app', description: undefined, readme: undefined },
              { name: 'legacy', description: undefined, readme: undefined },
            ],
            subscriptions: [],
            idps: [],
            association: { name: 'cloud', account: '123456789012' },
            groups: [],
          },
        ],
        terms: [],
      },
      edits: [
        { op: 'rename', at: 781041473, to: 'x1', declare: true },
        { op: 'pattern', at: 11931595, to: 6 },
      ],
      settings: { prune: false, ignore: [], protect: [] },
      extras: { humans: [], tags: [], handRepo: undefined },
      hand: { op: 'describe', at: 0 },
      fault: { kind: 'interrupt', after: 1 },
      target: 1,
      allowMassDelete: false,
      rules: [],
    } as Case,
  ],
  [
    'an added identity whose subject pattern admits a colon inside the repository (repo:acme/.*:ref:refs/heads/main) bound below one that does not (repo:acme/[^:]*:ref:refs/heads/.*) gains: a token of repo:acme/x:y is new (invariants seed 20261204, case 2,837, A1: the oracle lacked that probe)',
    {
      ...base,
      initial: {
        ...emptyGroup,
        name: 'org',
        groups: [
          {
            ...emptyGroup,
            name: 'b',
            groups: [
              {
                ...emptyGroup,
                name: 'b',
                identities: [{ name: 'ci', relationship: 22 }],
                bindings: [{ identity: 0, role: 0 }],
                groups: [
                  {
                    ...emptyGroup,
                    name: 'a',
                    groups: [
                      {
                        ...emptyGroup,
                        name: 'a',
                        groups: [{ ...emptyGroup, name: 'a', bindings: [{ identity: 0, role: 0 }] }],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
        terms: [],
      },
      // Adds `deploy` (relationship 1) to b/b/a/a/a, whose binding then names it.
      edits: [{ op: 'add', at: 590083517, what: 'identity' }],
      extras: { humans: [{ group: 2, name: 'human-ann', role: 'viewer' }], tags: [] },
      hand: { op: 'delete', at: 0 },
      rules: [],
    } as Case,
  ],
  [
    'an added identity (repo:acme/.*:ref:refs/heads/main) bound below two that together admit all but some of its tokens (owner to [[:alpha:]]+:.*, editor to [^:]*:ref:refs/heads/.*) gains all it holds there: repo:acme/app2:x is neither (test:deep seed 20261204, case 2,837 unshrunk, A1: the oracle lacked that probe)',
    {
      ...base,
      initial: {
        ...emptyGroup,
        name: 'org',
        groups: [
          {
            ...emptyGroup,
            name: 'b',
            identities: [
              { name: 'builder', relationship: 21 },
              { name: 'ci', relationship: 22 },
            ],
            bindings: [
              { identity: 0, role: 2 },
              { identity: 1, role: 1 },
            ],
            groups: [{ ...emptyGroup, name: 'a', bindings: [{ identity: 0, role: 4 }] }],
          },
        ],
        terms: [],
      },
      // Adds `deploy` (relationship 1) to b/a, whose binding then gives it registry.push.
      edits: [{ op: 'add', at: 5, what: 'identity' }],
      rules: [],
    } as Case,
  ],
];

describe('invariant counterexamples, kept (3)', () => {
  const h = new Harness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());
  for (const [name, c] of REGRESSIONS) it(name, () => checkCase(h, c));
});
