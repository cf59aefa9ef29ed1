/**
 * Counterexamples the invariant suite found (shrunk by fast-check), each kept as a named case so
 * that it runs on every `npm test` whatever the seed: what it was is in its name.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkCase, Harness, type Case } from './check-case.js';

const base: Omit<Case, "initial"> = { edits: [], settings: { prune: {}, ignore: [], protect: [] }, extras: { humans: [], tags: [] }, hand: { op: 'none' }, fault: { kind: 'none' }, target: undefined, allowMassDelete: false };
const emptyGroup = { identities: [], roles: [], bindings: [], repos: [], subscriptions: [], idps: [], groups: [] };

const REGRESSIONS: [string, Case][] = [
  [
    "a binding moved from an identity of repo:acme/(app|web):.* to one of repo:acme/.* (the first removed) is a gain: the owner's other repositories can act (the oracle probed none of them; seed 391376, A1)",
    { ...base, initial: { name: 'org', ...emptyGroup, identities: [{ name: 'signer', relationship: 8 }, { name: 'builder', relationship: 12 }], bindings: [{ identity: 3, role: 0 }], repos: [{ name: 'app' }, { name: 'docs' }], terms: [] }, edits: [{ op: 'remove', at: 377482816 }] } as Case,
  ],
  [
    "two identities with staticKeys of one issuer and subject but other keys are two principals: a binding for one is a gain (the oracle told them apart by the keys' length; test:deep seed 46046 case 2632, A1)",
    {"initial":{"name":"org","description":"team","identities":[{"name":"ci","description":"","relationship":6},{"name":"signer","description":"x","relationship":4}],"roles":[{"name":"reader","description":"Team of builders","capabilities":["repo.update","tag.create"]},{"name":"writer","description":"x","capabilities":["groups.list","identity.list"]}],"bindings":[{"identity":3,"role":10}],"repos":[],"subscriptions":["https://hooks.acme.dev/b"],"idps":[{"name":"okta","defaultRole":1,"clientId":"c-2","mappings":[{"externalGroup":"devs","role":6},{"externalGroup":"admins","role":8}]}],"association":{"name":"cloud","account":"123456789012"},"groups":[{"name":"b","description":"","identities":[{"name":"builder","description":"","relationship":2}],"roles":[],"bindings":[],"repos":[{"name":"app","description":"team","readme":""},{"name":"web","description":"team","readme":undefined},{"name":"api","description":"x","readme":"# readme\n\ntext\n"}],"subscriptions":[],"idps":[{"name":"okta","defaultRole":4,"clientId":"c-2","mappings":[]}],"association":{"name":"code","account":"210987654321"},"groups":[]},{"name":"c","description":undefined,"identities":[],"roles":[{"name":"reader","description":"x","capabilities":["groups.list","tag.create","repo.update"]},{"name":"auditor","description":"Team of builders","capabilities":["repo.list","repo.update","identity.list"]}],"bindings":[{"identity":2,"role":10},{"identity":4,"role":5}],"repos":[{"name":"app","description":"Team of builders","readme":"# app\n"},{"name":"api","description":"x","readme":""}],"subscriptions":["https://hooks.acme.dev/a"],"idps":[],"association":{"name":"code","account":"210987654321"},"groups":[{"name":"b","description":undefined,"identities":[{"name":"builder","description":"Team of builders","relationship":6}],"roles":[{"name":"reader","description":"team","capabilities":["tag.create","groups.list","identity.list"]},{"name":"writer","description":"Team of builders","capabilities":["repo.list","repo.update"]}],"bindings":[{"identity":4,"role":0},{"identity":1,"role":4}],"repos":[{"name":"legacy","description":"Team of builders","readme":"# readme\n\ntext\n"}],"subscriptions":["https://hooks.acme.dev/b"],"idps":[],"association":{"name":"cloud","account":"210987654321"},"groups":[{"name":"a","description":"team","identities":[{"name":"builder","description":"","relationship":2}],"roles":[{"name":"writer","description":"team","capabilities":["repo.update"]},{"name":"auditor","description":"x","capabilities":["tag.create","repo.list","identity.list"]}],"bindings":[{"identity":4,"role":1}],"repos":[{"name":"web","description":"team","readme":undefined},{"name":"api","description":"x","readme":""}],"subscriptions":[],"idps":[],"association":{"name":"code","account":"210987654321"},"groups":[{"name":"b","description":"team","identities":[{"name":"ci","description":"Team of builders","relationship":2},{"name":"signer","description":"Team of builders","relationship":7},{"name":"builder","description":"","relationship":7}],"roles":[{"name":"writer","description":"","capabilities":["groups.list","tag.create"]},{"name":"auditor","description":"Team of builders","capabilities":["groups.list"]}],"bindings":[{"identity":4,"role":8},{"identity":4,"role":4}],"repos":[],"subscriptions":["https://hooks.acme.dev/b"],"idps":[],"association":{"name":"code","account":"123456789012"},"groups":[]}]}]}]}],"terms":["tos-2026"]},"edits":[{"op":"move","at":1733498796,"to":253878389},{"op":"byUid","at":30},{"op":"byUid","at":1602434530},{"op":"move","at":1102389602,"to":1617811508},{"op":"describe","at":21175880,"text":"Team of builders"},{"op":"role","at":2015370969,"role":5}],"settings":{"prune":{"identities":true,"repos":false,"roleBindings":true,"roles":false,"subscriptions":false},"ignore":["identity:*human-*","repo:*hand*"],"protect":["repo:*legacy*","repo:a/*","repo:x1/*","identity:*bot","subscription:*","repo:*hand*"]},"extras":{"humans":[],"tags":[],"handRepo":5},"hand":{"op":"delete","at":2030029935},"fault":{"kind":"none"},"target":undefined,"allowMassDelete":false} as unknown as Case,
  ],
  [
    "an identity provider's group whose group is renamed is the same people: no access gained (issue 46 oracle, test:deep seed 46046, A1)",
    {"initial":{"name":"org","description":"","identities":[],"roles":[{"name":"reader","description":"Team of builders","capabilities":["identity.list"]}],"bindings":[],"repos":[],"subscriptions":[],"idps":[{"name":"okta","defaultRole":7,"clientId":"c-1","mappings":[{"externalGroup":"admins","role":3},{"externalGroup":"devs","role":6}]}],"association":{"name":"cloud","account":"210987654321"},"groups":[{"name":"a","identities":[{"name":"deploy","description":"","relationship":4}],"roles":[{"name":"writer","description":"team","capabilities":["tag.create","repo.update","repo.list"]}],"bindings":[],"repos":[{"name":"web","description":"Team of builders"},{"name":"api","readme":""},{"name":"docs","description":"x","readme":""}],"subscriptions":[],"idps":[{"name":"okta","defaultRole":2,"clientId":"c-2","mappings":[{"externalGroup":"admins","role":2}]}],"groups":[]}],"terms":["dpa-v2"]},"edits":[{"op":"bindHuman","at":586493540,"role":2},{"op":"rename","at":289053658,"to":"web","declare":true},{"op":"remove","at":921903131},{"op":"add","at":1265463193,"what":"role"},{"op":"rename","at":2092850850,"to":"x1","declare":true}],"settings":{"prune":{"identities":false,"repos":true,"roleBindings":false,"roles":false,"subscriptions":true},"ignore":["identity:a/b/*human*"],"protect":["group:a/b"]},"extras":{"humans":[],"tags":[3,8],"handRepo":1},"hand":{"op":"none"},"fault":{"kind":"none"},"target":undefined,"allowMassDelete":true} as unknown as Case,
  ],
  [
    'a chain of renames (web to another name, a repo to web) renames the one that frees the name first (test:deep seed 4242, I6)',
    {"initial": {"name": "org", "description": "", "identities": [{"name": "bot", "description": "", "relationship": 3}], "roles": [], "bindings": [{"identity": 3, "role": 4}], "repos": [{"name": "app", "description": "team"}, {"name": "web", "readme": "# readme\n\ntext\n"}, {"name": "docs", "description": "team", "readme": ""}], "subscriptions": ["https://hooks.acme.dev/b"], "idps": [], "association": {"name": "code", "account": "123456789012"}, "groups": [], "terms": ["tos-2026"]}, "edits": [{"op": "describe", "at": 1942350124, "text": "changed"}, {"op": "rename", "at": 298066212, "to": "x2", "declare": true}, {"op": "rename", "at": 1420758252, "to": "web", "declare": true}], "settings": {"prune": {"identities": false, "repos": true, "roleBindings": true, "groups": false, "roles": false, "subscriptions": true}, "ignore": [], "protect": ["group:a/b", "identity:*bot"]}, "extras": {"humans": [{"group": 0, "name": "human-bob", "role": "registry.pull"}, {"group": 8, "name": "human-ann", "role": "registry.pull"}], "tags": [1, 6], "handRepo": 4}, "hand": {"op": "create", "at": 832200561}, "fault": {"kind": "none"}, "target": 1217525029, "allowMassDelete": false} as unknown as Case,
  ],
  [
    'a targeted plan that creates under a group it leaves renamed, re-run after a clean apply, is "already applied" (test:deep seed 4242)',
    {"initial": {"name": "org", "description": "team", "identities": [{"name": "bot", "description": "x", "relationship": 3}, {"name": "deploy", "description": "Team of builders", "relationship": 3}], "roles": [{"name": "writer", "description": "Team of builders", "capabilities": ["groups.list", "repo.list", "repo.update"]}], "bindings": [], "repos": [{"name": "docs", "description": "Team of builders", "readme": "# app\n"}], "subscriptions": [], "idps": [], "association": {"name": "cloud", "account": "123456789012"}, "groups": [{"name": "b", "description": "x", "identities": [], "roles": [], "bindings": [{"identity": 3, "role": 4}, {"identity": 2, "role": 10}], "repos": [{"name": "web", "description": "Team of builders", "readme": "# app\n"}, {"name": "docs", "description": "team", "readme": ""}], "subscriptions": ["https://hooks.acme.dev/a"], "idps": [{"name": "okta", "defaultRole": 0, "clientId": "c-2", "mappings": [{"externalGroup": "devs", "role": 9}, {"externalGroup": "admins", "role": 4}]}], "association": {"name": "code", "account": "123456789012"}, "groups": [{"name": "b", "identities": [], "roles": [{"name": "writer", "description": "team", "capabilities": ["repo.list", "repo.update"]}, {"name": "auditor", "description": "", "capabilities": ["repo.update", "repo.list"]}], "bindings": [{"identity": 4, "role": 1}], "repos": [{"name": "docs", "description": "", "readme": ""}], "subscriptions": [], "idps": [], "association": {"name": "code", "account": "210987654321"}, "groups": []}]}], "terms": ["dpa-v2"]}, "edits": [{"op": "add", "at": 406101125, "what": "subscription"}, {"op": "role", "at": 924796139, "role": 6}, {"op": "bindHuman", "at": 2121540958, "role": 2}, {"op": "rename", "at": 1234377892, "to": "x2", "declare": true}], "settings": {"prune": {"identities": false, "roleBindings": true, "groups": false, "roles": false, "subscriptions": false}, "ignore": ["identity:*human-*", "identity:human-*", "identity:a/*human*", "identity:a/b/*human*"], "protect": ["repo:*legacy*", "repo:a/*", "repo:x1/*", "group:a/b", "repo:*hand*"]}, "extras": {"humans": [{"group": 6, "name": "human-cid", "role": "owner"}], "tags": []}, "hand": {"op": "none"}, "fault": {"kind": "none"}, "target": 2147483636, "allowMassDelete": true} as unknown as Case,
  ],
  [
    'a saved plan re-run after a clean apply of two renames onto one name is "already applied", not stale (test:deep case 506, seed 4242)',
    {
      ...base,
      initial: {
        name: 'org', ...emptyGroup, description: 'x',
        identities: [{ name: 'bot', description: '', relationship: 1 }, { name: 'ci', description: 'Team of builders', relationship: 2 }],
        bindings: [{ identity: 4, role: 1 }],
        repos: [{ name: 'app', description: 'Team of builders', readme: '# readme\n\ntext\n' }],
        idps: [{ name: 'okta', defaultRole: 0, clientId: 'c-2', mappings: [] }],
        association: { name: 'cloud', account: '123456789012' },
        groups: [
          { name: 'a', ...emptyGroup, description: '', identities: [{ name: 'bot', description: 'Team of builders', relationship: 3 }, { name: 'ci', description: 'team', relationship: 0 }], bindings: [{ identity: 1, role: 7 }], association: { name: 'code', account: '123456789012' } },
          { name: 'b', ...emptyGroup, description: 'x', roles: [{ name: 'writer', description: 'Team of builders', capabilities: ['tag.create', 'repo.list', 'identity.list'] }], bindings: [{ identity: 0, role: 6 }], repos: [{ name: 'web', description: 'Team of builders' }], subscriptions: ['https://hooks.acme.dev/a'], association: { name: 'cloud', account: '123456789012' } },
        ],
        terms: ['tos-2026'],
      },
      edits: [
        { op: 'remove', at: 411441473 },
        { op: 'bindHuman', at: 2005746060, role: 3 },
        { op: 'rename', at: 376539449, to: 'web', declare: true },
        { op: 'rename', at: 639583160, to: 'web', declare: true },
      ],
      settings: { prune: { identities: false, repos: false, roleBindings: true, roles: false, subscriptions: false }, ignore: ['identity:*human-*', 'repo:*hand*'], protect: ['repo:a/*', 'repo:x1/*', 'repo:*hand*'] },
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
        name: 'org', ...emptyGroup, description: 'x',
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
      settings: { prune: { identities: false, roleBindings: false, roles: false, subscriptions: false }, ignore: ['repo:*hand*'], protect: ['repo:x1/*', 'group:a', 'identity:*bot', 'subscription:*', 'repo:*hand*'] },
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
      initial: { name: 'org', ...emptyGroup, repos: [{ name: 'app' }], association: { name: 'cloud', account: '123456789012' }, terms: [] },
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
        name: 'org', ...emptyGroup,
        roles: [{ name: 'reader', capabilities: ['repo.list'] }],
        subscriptions: ['https://hooks.acme.dev/a'],
        idps: [{ name: 'okta', defaultRole: 0, clientId: 'c-1', mappings: [] }],
        groups: [{ name: 'b', ...emptyGroup, bindings: [{ identity: 0, role: 0 }], repos: [{ name: 'legacy' }] }],
        terms: [],
      },
      edits: [{ op: 'rename', at: 526656765, to: 'x1', declare: true }, { op: 'bindHuman', at: 207785529, role: 0 }],
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
        name: 'org', ...emptyGroup, description: 'team',
        identities: [{ name: 'ci', description: 'Team of builders', relationship: 1 }],
        roles: [{ name: 'reader', description: 'x', capabilities: ['repo.update', 'groups.list'] }],
        bindings: [{ identity: 0, role: 7 }],
        subscriptions: ['https://hooks.acme.dev/a'],
        idps: [{ name: 'okta', defaultRole: 5, clientId: 'c-1', mappings: [] }],
        association: { name: 'cloud', account: '210987654321' },
        terms: ['tos-2026', 'dpa-v2'],
      },
      edits: [{ op: 'rename', at: 1904450755, to: 'web', declare: true }, { op: 'move', at: 1676740538, to: 278277581 }, { op: 'byUid', at: 1986716245 }, { op: 'add', at: 790319528, what: 'role' }],
      settings: { prune: { repos: false, roleBindings: true, groups: true, roles: false, subscriptions: true }, ignore: [], protect: ['repo:a/*', 'identity:*bot', 'subscription:*'] },
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
        name: 'org', ...emptyGroup, description: '',
        identities: [{ name: 'ci', description: 'Team of builders', relationship: 0 }],
        bindings: [{ identity: 0, role: 9 }, { identity: 5, role: 7 }],
        repos: [{ name: 'legacy', description: 'team' }],
        idps: [{ name: 'okta', defaultRole: 9, clientId: 'c-2', mappings: [{ externalGroup: 'admins', role: 0 }, { externalGroup: 'devs', role: 4 }] }],
        terms: ['dpa-v2'],
      },
      edits: [
        { op: 'rename', at: 1040373065, to: 'b', declare: true }, { op: 'bindHuman', at: 2086848486, role: 1 }, { op: 'remove', at: 802274906 },
        { op: 'describe', at: 1159348258, text: 'changed' }, { op: 'bindHuman', at: 347235396, role: 1 }, { op: 'remove', at: 1945089746 },
      ],
      settings: { prune: { identities: false, repos: true, groups: true, roles: true, subscriptions: false }, ignore: ['identity:*human-*', 'repo:*hand*'], protect: [] },
      extras: { humans: [{ group: 1, name: 'human-ann', role: 'registry.push' }], tags: [], handRepo: 4 },
      hand: { op: 'create', at: 998330651 },
      fault: { kind: 'resets', seed: 282444 },
      target: 890062917,
    } as Case,
  ],
  [
    'a group renamed onto a free name (c to web) while a hand-bound identity below it is pruned: the access change names the identity under the new name, as the plan does (bounded deep run, seed 52580, A1)',
    {"initial":{"name":"org","description":"","identities":[{"name":"deploy","description":"","relationship":2},{__proto__:null,"name":"builder","description":"x","relationship":4}],"roles":[{__proto__:null,"name":"reader","description":"","capabilities":["identity.list","groups.list"]},{"name":"writer","description":"x","capabilities":["tag.create"]}],"bindings":[{"identity":2,"role":10}],"repos":[{"name":"web","description":"Team of builders","readme":"# app\n"}],"subscriptions":[],"idps":[{__proto__:null,"name":"okta","defaultRole":10,"clientId":"c-2","mappings":[{__proto__:null,"externalGroup":"admins","role":5}]}],"association":undefined,"groups":[{"name":"a","description":"team","identities":[{__proto__:null,"name":"bot","description":"Team of builders","relationship":1},{"name":"signer","description":"team","relationship":3}],"roles":[{"name":"writer","description":"x","capabilities":["identity.list","repo.update"]},{__proto__:null,"name":"auditor","description":"","capabilities":["repo.list"]}],"bindings":[{__proto__:null,"identity":1,"role":6}],"repos":[{"name":"app","description":"","readme":"# readme\n\ntext\n"},{__proto__:null,"name":"web","description":undefined,"readme":""},{"name":"legacy","description":"","readme":"# app\n"}],"subscriptions":["https://hooks.acme.dev/b"],"idps":[{__proto__:null,"name":"okta","defaultRole":8,"clientId":"c-2","mappings":[{__proto__:null,"externalGroup":"devs","role":3}]}],"association":{__proto__:null,"name":"cloud","account":"123456789012"},"groups":[]},{"name":"c","description":"x","identities":[{__proto__:null,"name":"bot","description":"x","relationship":3},{__proto__:null,"name":"signer","description":"team","relationship":2},{"name":"builder","description":"team","relationship":1}],"roles":[{"name":"writer","description":"","capabilities":["repo.list"]},{__proto__:null,"name":"auditor","description":"x","capabilities":["repo.update"]}],"bindings":[],"repos":[{__proto__:null,"name":"web","description":"","readme":undefined},{"name":"legacy","description":"x","readme":"# readme\n\ntext\n"},{"name":"api","description":"x","readme":"# app\n"}],"subscriptions":["https://hooks.acme.dev/a"],"idps":[],"association":undefined,"groups":[{__proto__:null,"name":"b","description":"team","identities":[],"roles":[{"name":"reader","description":"Team of builders","capabilities":["groups.list"]},{__proto__:null,"name":"auditor","description":"x","capabilities":["repo.update","identity.list"]}],"bindings":[{"identity":1,"role":0},{"identity":1,"role":7}],"repos":[{__proto__:null,"name":"docs","description":"team","readme":"# readme\n\ntext\n"}],"subscriptions":["https://hooks.acme.dev/b"],"idps":[],"association":{"name":"cloud","account":"210987654321"},"groups":[{"name":"a","description":"","identities":[],"roles":[{__proto__:null,"name":"writer","description":"","capabilities":["identity.list","repo.list"]},{"name":"auditor","description":"team","capabilities":["repo.update","repo.list","tag.create"]}],"bindings":[],"repos":[{"name":"web","description":"Team of builders","readme":"# app\n"},{__proto__:null,"name":"api","description":"team","readme":""},{__proto__:null,"name":"docs","description":"Team of builders","readme":"# app\n"}],"subscriptions":[],"idps":[],"association":{"name":"cloud","account":"210987654321"},"groups":[]}]}]}],"terms":["dpa-v2"]},"edits":[{__proto__:null,"op":"rename","at":1684500056,"to":"web","declare":true}],"settings":{"prune":true,"ignore":[],"protect":["repo:a/*"]},"extras":{__proto__:null,"humans":[{"group":7,"name":"human-bob","role":"registry.push"}],"tags":[0],"handRepo":3},"hand":{__proto__:null,"op":"delete","at":118674056},"fault":{"kind":"none"},"target":undefined,"allowMassDelete":false} as unknown as Case,
  ],
  [
    'an identity renamed in place (ci to x1) while the plan deletes its last binding: the live read after names it x1, as the plan does, though no binding names it any more (invariants seed 34, A1)',
    {"initial":{"name":"org","description":"Team of builders","identities":[{__proto__:null,"name":"bot","description":"x","relationship":1},{__proto__:null,"name":"ci","description":"","relationship":4},{__proto__:null,"name":"builder","description":"x","relationship":2}],"roles":[{__proto__:null,"name":"writer","description":"","capabilities":["tag.create"]},{"name":"auditor","description":"x","capabilities":["identity.list"]}],"bindings":[{__proto__:null,"identity":1,"role":1}],"repos":[{"name":"app","description":"","readme":"# readme\n\ntext\n"},{__proto__:null,"name":"web","description":"Team of builders","readme":""},{"name":"api","description":"x","readme":""}],"subscriptions":["https://hooks.acme.dev/a"],"idps":[],"association":{"name":"code","account":"210987654321"},"groups":[{__proto__:null,"name":"c","description":"team","identities":[{__proto__:null,"name":"signer","description":undefined,"relationship":4},{"name":"builder","description":undefined,"relationship":1}],"roles":[{"name":"reader","description":"","capabilities":["repo.update"]},{__proto__:null,"name":"auditor","description":undefined,"capabilities":["repo.update"]}],"bindings":[{"identity":3,"role":9},{"identity":5,"role":2}],"repos":[{__proto__:null,"name":"web","description":"","readme":undefined}],"subscriptions":["https://hooks.acme.dev/b"],"idps":[{__proto__:null,"name":"okta","defaultRole":1,"clientId":"c-1","mappings":[{"externalGroup":"admins","role":4},{"externalGroup":"devs","role":3}]}],"association":{"name":"code","account":"123456789012"},"groups":[]}],"terms":[]},"edits":[{__proto__:null,"op":"move","at":1112081740,"to":1899010061},{__proto__:null,"op":"rename","at":510881162,"to":"x1","declare":true},{__proto__:null,"op":"remove","at":1955484671},{__proto__:null,"op":"move","at":1717877077,"to":695227164}],"settings":{"prune":{__proto__:null,"identities":false,"roleBindings":true,"groups":false,"roles":false},"ignore":["identity:human-*","identity:a/b/*human*"],"protect":["repo:x1/*","group:a/b"]},"extras":{__proto__:null,"humans":[{"group":10,"name":"human-cid","role":"registry.push"}],"tags":[8,3],"handRepo":1},"hand":{"op":"none"},"fault":{"kind":"none"},"target":undefined,"allowMassDelete":true} as unknown as Case,
  ],
  ...[1, 2, 3].map((to): [string, Case] => [
    `an owner identity's subjectPattern repo:acme/.* widened keeping its literal prefix (pattern family edit ${to}: a quantifier on the prefix's last character, a top-level alternation, (?i)) is a new principal (issue 58, A1; the prefix check passed it)`,
    {
      ...base,
      initial: { name: 'org', ...emptyGroup, description: '', identities: [{ name: 'bot', description: '', relationship: 8 }], bindings: [{ identity: 0, role: 2 }], terms: [] },
      edits: [{ op: 'pattern', at: 0, to }],
    } as Case,
  ]),
  [
    "an owner identity's subjectPattern repo:acme/.* changed to repo:acme/[^:]*:ref:refs/heads/.* is a widening, not a narrowing: a negated class admits a newline, which . does not (seed 13; the product was right, the oracle's probes lacked a newline; A1)",
    {
      ...base,
      initial: { name: 'org', ...emptyGroup, identities: [{ name: 'bot', relationship: 8 }], bindings: [{ identity: 0, role: 2 }], terms: [] },
      edits: [{ op: 'pattern', at: 0, to: 13 }],
    } as Case,
  ],
  [
    'a binding repeated three levels below its own (an org identity bound editor on the org, and on a/b/c) gains nothing: a/b/c inherits it (issue 58; fails when inheritance stops below the second level, A1)',
    {
      ...base,
      initial: {
        name: 'org', ...emptyGroup, identities: [{ name: 'bot', relationship: 0 }], bindings: [{ identity: 0, role: 1 }], terms: [],
        groups: [{ name: 'a', ...emptyGroup, groups: [{ name: 'b', ...emptyGroup, groups: [{ name: 'c', ...emptyGroup }] }] }],
      },
      edits: [{ op: 'rebind', at: 0 }],
    } as Case,
  ],
  [
    'an access rule whose scope is a group declared as web (renamedFrom b) that a targeted plan leaves named b is judged on that group, as are the identities it lists: the product was right, the oracle looked for web by name (R1; 200-case run on the rules branch, seed 777)',
    {__proto__:null,"initial":{"name":"org","description":undefined,"identities":[],"roles":[{__proto__:null,"name":"reader","description":"team","capabilities":["role_bindings.create"]},{"name":"auditor","description":"Team of builders","capabilities":["identity.list","group_invites.create"]}],"bindings":[{__proto__:null,"identity":3,"role":5,"up":undefined}],"repos":[],"subscriptions":["https://hooks.acme.dev/b"],"idps":[],"association":{"name":"code","account":"210987654321"},"groups":[{__proto__:null,"name":"a","description":"team","identities":[],"roles":[],"bindings":[{__proto__:null,"identity":4,"role":7,"up":1},{__proto__:null,"identity":3,"role":3,"up":1}],"repos":[{__proto__:null,"name":"api","description":"x","readme":"# app\n","tier":"BASE","aliases":["api:a","docker.io/acme/api:1.0"]}],"subscriptions":[],"idps":[],"association":{"name":"cloud","account":"123456789012"},"groups":[{"name":"a","description":"team","identities":[],"roles":[],"bindings":[{"identity":3,"role":9,"up":1},{__proto__:null,"identity":3,"role":4,"up":2},{__proto__:null,"identity":4,"role":2,"up":undefined}],"repos":[{"name":"web","description":undefined,"readme":"","tier":"FIPS","aliases":["web:a"]}],"subscriptions":["https://hooks.acme.dev/a"],"idps":[],"association":{__proto__:null,"name":"code","account":"123456789012"},"groups":[{__proto__:null,"name":"b","description":"","identities":[],"roles":[{"name":"writer","description":"team","capabilities":["group_invites.create","identity.update"]}],"bindings":[],"repos":[],"subscriptions":[],"idps":[],"association":{"name":"cloud","account":"210987654321"},"groups":[{__proto__:null,"name":"b","description":undefined,"identities":[{__proto__:null,"name":"builder","description":"team","relationship":8}],"roles":[{__proto__:null,"name":"writer","description":"","capabilities":["identity.list"]}],"bindings":[],"repos":[{"name":"api","description":"","readme":"# readme\n\ntext\n","tier":"FIPS","aliases":[]}],"subscriptions":[],"idps":[],"association":{__proto__:null,"name":"code","account":"123456789012"},"groups":[]}]}]}]}],"terms":[]},"edits":[{"op":"pattern","at":1010218499,"to":16},{"op":"bindHuman","at":556883787,"role":3},{__proto__:null,"op":"rename","at":115855006,"to":"web","declare":true},{__proto__:null,"op":"remove","at":486711460},{"op":"byUid","at":1530062845},{"op":"describe","at":1388162951,"text":"changed"}],"settings":{"prune":false,"ignore":[],"protect":["repo:a/*","group:a/b","subscription:*"]},"extras":{__proto__:null,"humans":[{"group":9,"name":"human-cid","role":"registry.pull_token_creator"},{__proto__:null,"group":3,"name":"human-bob","role":"viewer"}],"tags":[0],"handRepo":6},"hand":{__proto__:null,"op":"describe","at":2147483641},"fault":{__proto__:null,"kind":"resets","seed":999989},"target":1815180275,"allowMassDelete":false,"rules":[{"test":"only","capabilities":["roles.update","role_bindings.create","group_invites.create"],"role":"owner","scope":19,"only":[20],"count":{__proto__:null,"min":0,"max":2},"token":0}]} as unknown as Case,
  ],
  [
    'an identity whose issuerPattern is the exact issuer escaped, bound where another identity of that issuer accepting every subject holds viewer, gains only beyond viewer: its tokens held viewer there already (test:deep seed 20261204 case 53, A1: every capability was said gained)',
    {
      ...base,
      initial: {
        name: 'org', ...emptyGroup, identities: [{ name: 'bot', relationship: 26 }], terms: [],
        groups: [{ name: 'b', ...emptyGroup, identities: [{ name: 'bot', relationship: 17 }], bindings: [{ identity: 0, role: 0 }] }],
      },
      edits: [{ op: 'add', at: 17, what: 'binding' }],
    } as Case,
  ],
];

describe('invariant counterexamples, kept', () => {
  const h = new Harness();
  beforeAll(() => h.start());
  afterAll(() => h.stop());
  for (const [name, c] of REGRESSIONS) it(name, () => checkCase(h, c));
});
