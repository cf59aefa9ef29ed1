/**
 * Every named bad fixture in test/fixtures/ yields exactly the diagnostics listed here: the
 * file:line:col, the message text and the JSON path, as `platform-sync validate` prints them.
 */
import { describe, expect, it } from 'vitest';
import { validateManifests } from '../../src/manifest/index.js';
import { formatDiagnostic } from '../../src/model/errors.js';

const F = 'test/fixtures';

/** Fixture file(s) → the exact lines validate prints for them. */
const BAD_FIXTURES: { name: string; files: string[]; expected: string[] }[] = [
  {
    name: 'syntax error',
    files: ['bad-syntax.yaml'],
    expected: [
      `${F}/bad-syntax.yaml:5:3: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    ],
  },
  {
    name: 'tab in indentation',
    files: ['bad-tab-indent.yaml'],
    expected: [`${F}/bad-tab-indent.yaml:5:1: tab character in indentation; YAML indentation must use spaces only`],
  },
  {
    name: 'unknown field, with a suggestion',
    files: ['bad-unknown-field.yaml'],
    expected: [
      `${F}/bad-unknown-field.yaml:6:7: unknown field "descripton" in repo "nginx"; expected one of name, renamedFrom, description, readme, bundles, tier, aliases, activeTags, syncConfig (did you mean "description"?) (at /org/repos/0/descripton)`,
    ],
  },
  {
    name: 'wrong types',
    files: ['bad-wrong-type.yaml'],
    expected: [
      `${F}/bad-wrong-type.yaml:4:16: description of org "acme" must be a string, got a number (42) (at /org/description)`,
      `${F}/bad-wrong-type.yaml:7:21: capabilities of role "deployer" must be a list, got a string ("repo.list"); write it as a list: ["repo.list"] (at /org/roles/0/capabilities)`,
    ],
  },
  {
    name: 'bad name',
    files: ['bad-name.yaml'],
    expected: [
      `${F}/bad-name.yaml:5:13: invalid identity name "Release Bot"; expected lowercase letters, digits, spaces, ".", "_" and "-" only (^[a-z0-9 ._-]{1,}$) (at /org/identities/0/name)`,
    ],
  },
  {
    name: 'dangling identity reference',
    files: ['bad-dangling-ref.yaml'],
    expected: [
      `${F}/bad-dangling-ref.yaml:7:17: unknown identity "relase-bot" in role binding of org "acme": a bare name is an identity of the same group; expected one of release-bot (did you mean "release-bot"?) (at /org/roleBindings/0/identity)`,
    ],
  },
  {
    name: 'bare name that exists in another group',
    files: ['bad-identity-elsewhere.yaml'],
    expected: [
      `${F}/bad-identity-elsewhere.yaml:10:21: unknown identity "ci-bot" in role binding of group "security": a bare name is an identity of the same group; group "security" declares no identities (did you mean "/engineering/ci-bot"? a name with "/" is a path from the org root) (at /org/groups/1/roleBindings/0/identity)`,
    ],
  },
  {
    name: 'ambiguous reference (identity and identityUid)',
    files: ['bad-ambiguous-ref.yaml'],
    expected: [
      `${F}/bad-ambiguous-ref.yaml:8:7: ambiguous identity in role binding of org "acme": both identity "release-bot" and identityUid "0123456789abcdef0123456789abcdef01234567/0123456789abcdef" are given; expected exactly one of identity, identityUid (at /org/roleBindings/0/identityUid)`,
    ],
  },
  {
    name: 'one resource declared in two files',
    files: ['bad-duplicate-a.yaml', 'bad-duplicate-b.yaml'],
    expected: [
      `${F}/bad-duplicate-b.yaml:6:7: repo "nginx" in org "acme" is declared twice (address repo:nginx); also declared at ${F}/bad-duplicate-a.yaml:5:7 (at /org/repos/1)`,
    ],
  },
  {
    name: 'one scalar set differently in two files',
    files: ['bad-conflict-a.yaml', 'bad-conflict-b.yaml'],
    expected: [
      `${F}/bad-conflict-b.yaml:6:20: conflicting description for group "engineering": "Engineering" here, but "Product engineering" at ${F}/bad-conflict-a.yaml:6:20; set it in one place only, or to the same value (at /org/groups/0/description)`,
    ],
  },
  {
    name: 'non-https sink',
    files: ['bad-http-sink.yaml'],
    expected: [
      `${F}/bad-http-sink.yaml:5:13: sink "http://hooks.acme.dev/platform" of subscription 1 of org "acme" is not an https URL; expected "https://…" (events are only delivered over TLS) (at /org/subscriptions/0/sink)`,
    ],
  },
  {
    name: '__proto__ key',
    files: ['bad-proto-key.yaml'],
    expected: [
      `${F}/bad-proto-key.yaml:6:7: key "__proto__" is not allowed (it could alter object prototypes in programs that read the manifest); remove it`,
    ],
  },
  {
    name: 'wrong apiVersion (nothing else is judged)',
    files: ['bad-api-version.yaml'],
    expected: [
      `${F}/bad-api-version.yaml:1:13: unsupported apiVersion "platform-sync/v2"; expected "platform-sync/v1" (at /apiVersion)`,
    ],
  },
  {
    name: 'missing apiVersion',
    files: ['bad-missing-api-version.yaml'],
    expected: [
      `${F}/bad-missing-api-version.yaml:1:1: missing apiVersion; expected "apiVersion: platform-sync/v1" at the top of the document`,
    ],
  },
  {
    name: 'empty file (comments only)',
    files: ['bad-empty.yaml'],
    expected: [
      `${F}/bad-empty.yaml: empty file (no YAML document); expected a manifest document with "apiVersion: platform-sync/v1" and "org"`,
    ],
  },
  {
    name: 'empty document among others',
    files: ['bad-empty-document.yaml'],
    expected: [
      `${F}/bad-empty-document.yaml:4:1: empty document (document 2 of 3); expected a manifest document with "apiVersion: platform-sync/v1" and "org"`,
    ],
  },
  {
    name: 'alias bomb',
    files: ['bad-alias-bomb.yaml'],
    expected: [
      `${F}/bad-alias-bomb.yaml:5:9: YAML aliases expand too much: the document's 36 aliases expand past the limit of 100 alias expansions (an "alias bomb"); write the values out instead of using aliases`,
    ],
  },
  {
    name: 'alias without anchor',
    files: ['bad-undefined-alias.yaml'],
    expected: [
      `${F}/bad-undefined-alias.yaml:4:16: alias *missing has no anchor &missing before it; define the anchor first or write the value out`,
    ],
  },
  {
    name: 'unknown capability',
    files: ['bad-unknown-capability.yaml'],
    expected: [
      `${F}/bad-unknown-capability.yaml:6:33: unknown capability "tag.creat" in role "publisher"; expected one of the service's 153 capabilities (did you mean "tag.create"?) — the nearest: tag.create, apk.create, tag.list (at /org/roles/0/capabilities/1)`,
    ],
  },
  {
    name: 'role without capabilities',
    files: ['bad-no-capabilities.yaml'],
    expected: [
      `${F}/bad-no-capabilities.yaml:6:21: role "empty" has no capabilities; expected at least one, e.g. [repo.list] (at /org/roles/0/capabilities)`,
    ],
  },
  {
    name: 'custom role shadowing a built-in',
    files: ['bad-builtin-shadow.yaml'],
    expected: [
      `${F}/bad-builtin-shadow.yaml:5:13: custom role "viewer" in org "acme" has the name of a built-in role and would shadow it; expected a name other than viewer, editor, owner, registry.pull, registry.push, registry.pull_token_creator (at /org/roles/0/name)`,
    ],
  },
  {
    name: 'bad glob in settings',
    files: ['bad-settings-glob.yaml'],
    expected: [
      `${F}/bad-settings-glob.yaml:6:13: invalid address glob "repos:*" in settings.protect; expected "org" or a glob that starts with a kind prefix (group:, identity:, role:, roleBinding:, repo:, tag:, subscription:, identityProvider:, groupMapping:, accountAssociation:, terms:, groupInvite:) (did you mean "repo:*"?) (at /settings/protect/0)`,
    ],
  },
  {
    name: 'unknown kind in settings.prune',
    files: ['bad-prune-kind.yaml'],
    expected: [
      `${F}/bad-prune-kind.yaml:6:5: unknown field "identity" in settings.prune; expected one of groups, identities, roles, roleBindings, repos, subscriptions, identityProviders, groupMappings, accountAssociation, groupInvites (at /settings/prune/identity)`,
    ],
  },
  {
    name: 'unknown role',
    files: ['bad-unknown-role.yaml'],
    expected: [
      `${F}/bad-unknown-role.yaml:15:17: unknown role "releese-manager" in role binding of group "engineering"; expected a custom role of this group or its ancestors (release-manager) or a built-in role (viewer, editor, owner, registry.pull, registry.push, registry.pull_token_creator) (did you mean "release-manager"?) (at /org/groups/0/roleBindings/1/role)`,
    ],
  },
  {
    name: 'unknown role path',
    files: ['bad-role-path.yaml'],
    expected: [
      `${F}/bad-role-path.yaml:8:13: unknown role "/engineering/deployer" in role binding of org "acme": a path is from the org root, and there is no group "engineering"; expected the path of a declared custom role of this group or its ancestors, or roleUid (at /org/roleBindings/0/role)`,
    ],
  },
  {
    name: 'role binding with neither identity nor identityUid',
    files: ['bad-binding-no-identity.yaml'],
    expected: [
      `${F}/bad-binding-no-identity.yaml:5:7: role binding in org "acme" has no identity; expected identity (a name, or a /path from the org root) or identityUid (at /org/roleBindings/0)`,
    ],
  },
  {
    name: 'duplicate key',
    files: ['bad-duplicate-key.yaml'],
    expected: [
      `${F}/bad-duplicate-key.yaml:5:3: duplicate key "description" in one mapping (first at line 4, column 3); each key may appear only once`,
    ],
  },
  {
    name: 'documents for two orgs',
    files: ['bad-two-orgs.yaml'],
    expected: [
      `${F}/bad-two-orgs.yaml:7:9: org "globex" differs from org "acme" declared at ${F}/bad-two-orgs.yaml:3:9; all manifests of one set must describe the same org (at /org/name)`,
    ],
  },
  {
    name: 'tags in a repo',
    files: ['bad-tags-in-repo.yaml'],
    expected: [
      `${F}/bad-tags-in-repo.yaml:6:7: unknown field "tags" in repo "app"; expected one of name, renamedFrom, description, readme, bundles, tier, aliases, activeTags, syncConfig; tags are published by CI and never declared in manifests (at /org/repos/0/tags)`,
    ],
  },
  {
    name: 'one group twice in one document',
    files: ['bad-group-twice.yaml'],
    expected: [
      `${F}/bad-group-twice.yaml:7:7: group "engineering" is described twice in one document (also at ${F}/bad-group-twice.yaml:5:7); describe a group once per document (several files may each describe it) (at /org/groups/2)`,
    ],
  },
  {
    name: 'missing required name',
    files: ['bad-missing-name.yaml'],
    expected: [
      `${F}/bad-missing-name.yaml:5:7: missing required field "name" in group 1 of org "acme"; expected name: name of the group, unique among its siblings: lowercase letters, digits, spaces, ".", "_" and "-" (^[a-z0-9 ._-]{1,}$) (at /org/groups/0)`,
    ],
  },
  {
    name: 'declared and ignored',
    files: ['bad-declared-and-ignored.yaml'],
    expected: [
      `${F}/bad-declared-and-ignored.yaml:5:7: identity:human-alice is declared here but matches ignore glob "identity:human-*" at ${F}/bad-declared-and-ignored.yaml:7:12, which leaves it alone entirely; remove the declaration or narrow the glob (at /org/identities/0)`,
    ],
  },
  {
    name: 'a list where a mapping belongs',
    files: ['bad-top-level-list.yaml'],
    expected: [`${F}/bad-top-level-list.yaml:1:1: the document must be a mapping with apiVersion and org, got a list`],
  },
  {
    name: 'malformed uids',
    files: ['bad-bad-uid.yaml'],
    expected: [
      `${F}/bad-bad-uid.yaml:4:8: invalid uid "ACME" for org "acme"; expected the root group's uid, 40 lowercase hex digits (at /org/uid)`,
      `${F}/bad-bad-uid.yaml:6:20: invalid identityUid "not-a-uid" in role binding 1 of org "acme"; expected an identity uid: 40 lowercase hex digits, then "/" and 16 hex digits per level (at /org/roleBindings/0/identityUid)`,
    ],
  },
  {
    name: 'misspelt keys: one message each, with a suggestion, and no echo as missing',
    files: ['bad-misspelt-keys.yaml'],
    expected: [
      `${F}/bad-misspelt-keys.yaml:1:1: unknown field "apiVersoin" in the document; expected one of apiVersion, org, settings (did you mean "apiVersion"?) (at /apiVersoin)`,
      `${F}/bad-misspelt-keys.yaml:4:3: unknown field "identites" in org "acme"; expected one of name, description, identities, roles, roleBindings, repos, members, subscriptions, identityProviders, accountAssociation, acceptedTerms, groups, accessRules, renamedFrom, uid (did you mean "identities"?) (at /org/identites)`,
      `${F}/bad-misspelt-keys.yaml:7:7: unknown field "nmae" in repo 1 of org "acme"; expected one of name, renamedFrom, description, readme, bundles, tier, aliases, activeTags, syncConfig (did you mean "name"?) (at /org/repos/0/nmae)`,
      `${F}/bad-misspelt-keys.yaml:10:7: unknown field "rol" in role binding 1 of org "acme"; expected one of identity, identityUid, role, roleUid (did you mean "role"?) (at /org/roleBindings/0/rol)`,
      `${F}/bad-misspelt-keys.yaml:12:3: unknown field "prnue" in settings; expected one of prune, inviteTtl, ignore, protect (did you mean "prune"?) (at /settings/prnue)`,
    ],
  },
  {
    name: 'custom role of another subtree, by name and by path',
    files: ['bad-role-other-subtree.yaml'],
    expected: [
      `${F}/bad-role-other-subtree.yaml:14:17: unknown role "deployer" in role binding of group "security"; expected a custom role of this group or its ancestors (none are declared) or a built-in role (viewer, editor, owner, registry.pull, registry.push, registry.pull_token_creator); a custom role "deployer" exists in group "engineering", but only custom roles of its own group and its ancestors may be used (at /org/groups/1/roleBindings/0/role)`,
      `${F}/bad-role-other-subtree.yaml:16:17: role "/engineering/deployer" in role binding of group "security" belongs to group "engineering", which is not this group or one of its ancestors; it may use the custom roles of its own group and its ancestors, or a built-in role (at /org/groups/1/roleBindings/1/role)`,
    ],
  },
  {
    name: 'identity path through a missing group, and a near miss',
    files: ['bad-missing-group-path.yaml'],
    expected: [
      `${F}/bad-missing-group-path.yaml:9:17: unknown identity "enginering/ci-bot" in role binding of org "acme": a path is from the org root, and there is no group "enginering" (did you mean "engineering"?); expected the path of a declared identity, or identityUid for one the manifests do not manage (at /org/roleBindings/0/identity)`,
      `${F}/bad-missing-group-path.yaml:11:17: unknown identity "engineering/ci-bots" in role binding of org "acme": a path is from the org root, and group "engineering" declares no identity "ci-bots" (did you mean "ci-bot"?); expected the path of a declared identity, or identityUid for one the manifests do not manage (at /org/roleBindings/1/identity)`,
    ],
  },
  {
    name: 'not UTF-8 (Latin-1)',
    files: ['bad-not-utf8.yaml'],
    expected: [
      `${F}/bad-not-utf8.yaml:4:19: file is not valid UTF-8 (byte 0xE9 here is not part of a UTF-8 character; is it Latin-1 or UTF-16?); save it as UTF-8`,
    ],
  },
  {
    name: 'a line indented deeper than the key above (one message, on that line)',
    files: ['bad-over-indent.yaml'],
    expected: [
      `${F}/bad-over-indent.yaml:6:9: bad indentation: this line starts at column 9, deeper than the key above it (column 7), so it cannot start a new key there; align it with the key above, or write the key above with nothing after its ":" to nest under it (YAML: Nested mappings are not allowed in compact mappings)`,
    ],
  },
  {
    name: 'a line indented one space short inside a list item',
    files: ['bad-under-indent.yaml'],
    expected: [
      `${F}/bad-under-indent.yaml:6:6: bad indentation: this line starts at column 6, but the key above it starts at column 7; keys of one mapping must start at the same column, and a new list item starts with "- " (YAML: Sequence item without - indicator)`,
    ],
  },
  {
    name: 'a list item out of line with the item above',
    files: ['bad-list-item-indent.yaml'],
    expected: [
      `${F}/bad-list-item-indent.yaml:6:3: bad indentation: this list item starts at column 3, but the item above it starts at column 5; items of one list must start at the same column (YAML: A block sequence may not be used as an implicit map key)`,
    ],
  },
  {
    name: 'a key without its colon',
    files: ['bad-missing-colon.yaml'],
    expected: [
      `${F}/bad-missing-colon.yaml:6:7: YAML syntax error: expected "key: value", but this line has no ":" (a key needs ": " before its value)`,
    ],
  },
  {
    name: 'an unclosed quote, pointed at where it opens',
    files: ['bad-unclosed-quote.yaml'],
    expected: [
      `${F}/bad-unclosed-quote.yaml:4:16: YAML syntax error: the quoted string that starts here has no closing "; close it on the line where it ends`,
    ],
  },
  {
    name: 'settings with a YAML 1.1 boolean and a string for a list',
    files: ['bad-settings-types.yaml'],
    expected: [
      `${F}/bad-settings-types.yaml:5:10: prune of settings must be true or false or a mapping, got a string ("yes"); write true, unquoted (in YAML 1.2, "yes" is a string, not a boolean) (at /settings/prune)`,
      `${F}/bad-settings-types.yaml:6:11: ignore of settings must be a list, got a string ("identity:human-*"); write it as a list: ["identity:human-*"] (at /settings/ignore)`,
    ],
  },
];

describe('bad manifest fixtures', () => {
  it.each(BAD_FIXTURES)('$name', async ({ files, expected }) => {
    const result = await validateManifests(files.map((f) => `${F}/${f}`));
    expect(result.state).toBeUndefined();
    expect(result.diagnostics.map(formatDiagnostic)).toEqual(expected);
  });

  it('covers every bad-*.yaml file in test/fixtures', async () => {
    const { readdir } = await import('node:fs/promises');
    const onDisk = (await readdir(F)).filter((f) => f.startsWith('bad-') && f.endsWith('.yaml')).sort();
    const covered = [...new Set(BAD_FIXTURES.flatMap((b) => b.files))].sort();
    expect(covered).toEqual(onDisk);
    expect(onDisk.length).toBeGreaterThanOrEqual(20);
  });
});
