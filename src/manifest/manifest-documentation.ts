/**
 * What the manifest schema says to people (issue 36: the declaration's structure and its
 * documentation apart): the title, description and examples of each node that
 * manifest-declaration.ts builds, keyed by its JSON pointer there. The fields' own words come
 * with their one declaration (src/model/kinds/declarations.ts); these are the manifest's own
 * lists, settings and items. A pointer that no longer names a node fails the build of the schema
 * (manifest-declaration.ts `documented`), so the two cannot drift apart.
 */
import { RELATIONSHIP_FIELDS } from '../model/identity-relationships.js';
import { KINDS } from '../model/kinds.js';

export interface Documentation {
  readonly title?: string;
  readonly description?: string;
  readonly examples?: readonly unknown[];
}

/** "claimMatch, awsIdentity, staticKeys or servicePrincipal". */
const RELATIONSHIPS = `${RELATIONSHIP_FIELDS.slice(0, -1).join(', ')} or ${RELATIONSHIP_FIELDS.at(-1)}`;

/** The lists an org and a group both hold, described for either (the org's own words aside). */
function groupLists(noun: 'org' | 'group'): Record<string, Documentation> {
  const lists: Record<string, Documentation> = {
    identities: {
      title: 'Identities',
      description: `Workload identities owned by this ${noun} (matched to callers by one relationship: ${RELATIONSHIPS}).`,
    },
    roles: {
      title: 'Custom roles',
      description: `Custom roles owned by this ${noun}; usable by role bindings in it and in its descendants.`,
    },
    roleBindings: { title: 'Role bindings', description: `Grants of a role to an identity on this ${noun}.` },
    repos: {
      title: 'Repositories',
      description: `Registry repositories owned by this ${noun}. Tags are published by CI and never declared here.`,
    },
    members: {
      title: 'Members',
      description: `People who should hold a role on this ${noun}, by the e-mail they sign in with: invited until they accept, then kept as the binding of that role to their identity. One (email, role) pair once per group.`,
    },
    subscriptions: {
      title: 'Event subscriptions',
      description: `Event subscriptions of this ${noun}, delivered to an https sink.`,
    },
    identityProviders: { title: 'Identity providers', description: `SSO (OIDC) identity providers of this ${noun}.` },
    groups: {
      title: 'Child groups',
      description: `Child groups of this ${noun}, each with the same lists, recursively.`,
    },
  };
  return Object.fromEntries(Object.entries(lists).map(([list, doc]) => [`/$defs/${noun}/properties/${list}`, doc]));
}

export const MANIFEST_DOCUMENTATION: Readonly<Record<string, Documentation>> = {
  ...groupLists('org'),
  ...groupLists('group'),
  '/': {
    title: 'platform-sync manifest (platform-sync/v1)',
    description:
      'One document of a platform-sync manifest set: an org on the Platform API v2 as it should be. All documents for one org are merged.',
  },
  '/properties/apiVersion': {
    title: 'API version',
    description: 'Manifest format version; must be platform-sync/v1.',
    examples: ['platform-sync/v1'],
  },
  '/$defs/org': {
    title: 'Org',
    description: 'The org root group, found by name among the root groups the token sees (or by uid when pinned).',
  },
  '/$defs/org/properties/acceptedTerms': {
    title: 'Accepted terms',
    description:
      'Ids of the terms documents the org accepts. Accepting is permanent: a document removed from this list stays accepted (the plan notes it).',
    examples: [['platform-tos-2026']],
  },
  '/$defs/org/properties/renamedFrom': {
    title: 'Renamed from',
    description:
      "The org's previous name, to rename a pinned org (org.uid) in place; without it, a pinned org whose live name differs from org.name is refused.",
    examples: ['old-name'],
  },
  '/$defs/org/properties/uid': {
    title: 'Pinned uid',
    description:
      'Uid of the root group (40 lowercase hex). Pins the org when names are ambiguous; wins over name matching.',
    examples: ['0123456789abcdef0123456789abcdef01234567'],
  },
  '/$defs/group': {
    title: 'Group',
    description:
      'A child group, with its own identities, roles, role bindings, repos, subscriptions and child groups. Several documents may describe one group; their lists are merged.',
  },
  '/$defs/group/properties/renamedFrom': {
    title: 'Renamed from',
    description:
      "The group's previous name: when a live sibling group has this name and none has `name`, the plan renames it in place (one PATCH of `name`: same uid, everything beneath it and every binding kept). Once renamed it is a no-op, so it may stay; when both names exist live the plan is refused.",
    examples: ['old-name'],
  },
  '/$defs/identity': {
    title: 'Identity',
    description:
      'A workload identity: who may log in, matched by exactly one relationship — claimMatch (OIDC token claims), awsIdentity (an AWS role or user), staticKeys (tokens signed by keys given here) or servicePrincipal (a platform service).',
  },
  '/$defs/identity/properties/renamedFrom': {
    title: 'Renamed from',
    description:
      "The identity's previous name: when a live sibling identity has this name and none has `name`, the plan renames it in place (one PATCH of `name`: same uid, everything beneath it and every binding kept). Once renamed it is a no-op, so it may stay; when both names exist live the plan is refused.",
    examples: ['old-name'],
  },
  '/$defs/role': {
    title: 'Custom role',
    description:
      'A custom role: a named set of capabilities. Its name must not be a built-in role name (viewer, editor, owner, registry.pull, registry.push).',
  },
  '/$defs/role/properties/renamedFrom': {
    title: 'Renamed from',
    description:
      "The role's previous name: when a live sibling role has this name and none has `name`, the plan renames it in place (one PATCH of `name`: same uid, everything beneath it and every binding kept). Once renamed it is a no-op, so it may stay; when both names exist live the plan is refused.",
    examples: ['old-name'],
  },
  '/$defs/roleBinding': {
    title: 'Role binding',
    description:
      'Grants a role to an identity on the group that holds this list. Give exactly one of identity/identityUid and exactly one of role/roleUid.',
  },
  '/$defs/roleBinding/properties/identity': {
    title: 'Identity',
    description:
      'Identity by name: a bare name is a sibling identity in this group; a path with "/" (engineering/ci-bot, /release-bot) is from the org root.',
    examples: ['release-bot', 'engineering/ci-bot', '/release-bot'],
  },
  '/$defs/roleBinding/properties/identityUid': {
    title: 'Identity uid',
    description: 'Uid of an identity the manifests do not manage (e.g. a person).',
    examples: ['0123456789abcdef0123456789abcdef01234567/00000000000000aa'],
  },
  '/$defs/roleBinding/properties/role': {
    title: 'Role',
    description:
      'Role by name: the nearest custom role of this group or its ancestors, else a built-in (viewer, editor, owner, registry.pull, registry.push); a path with "/" names a custom role from the org root.',
    examples: ['viewer', 'registry.push', 'release-manager'],
  },
  '/$defs/roleBinding/properties/roleUid': {
    title: 'Role uid',
    description: 'Uid of a role the manifests do not manage.',
    examples: ['0123456789abcdef0123456789abcdef01234567'],
  },
  '/$defs/repo': {
    title: 'Repository',
    description: 'A registry repository. Its tags are published by CI and are not declared in manifests.',
  },
  '/$defs/repo/properties/renamedFrom': {
    title: 'Renamed from',
    description:
      "The repo's previous name: when a live sibling repo has this name and none has `name`, the plan renames it in place (one PATCH of `name`: same uid, everything beneath it and every binding kept). Once renamed it is a no-op, so it may stay; when both names exist live the plan is refused.",
    examples: ['old-name'],
  },
  '/$defs/subscription': { title: 'Event subscription', description: 'Delivers the group events to an https sink.' },
  '/$defs/member': {
    title: 'Member',
    description:
      'A person who should hold a role here, by e-mail: present once a binding of that role to an identity with that e-mail exists, pending while an unexpired invite for them is open, else invited by the plan.',
    examples: [{ email: 'alice@acme.dev', role: 'viewer' }],
  },
  '/$defs/settings': {
    title: 'Settings',
    description:
      'How plans treat live resources the manifests do not mention. May be given in several documents: prune must then agree, ignore and protect lists are joined.',
  },
  '/$defs/settings/properties/prune': {
    title: 'Prune',
    description:
      'Delete live resources the manifests do not declare: true/false for every kind, or per kind (kinds left out default to true).',
    examples: [true, { roleBindings: false }],
  },
  '/$defs/settings/properties/inviteTtl': {
    title: 'Invite lifetime',
    description:
      'How long an invite the plan creates for a member stays open: days or hours (7d, 36h), at most 30d (default 7d).',
    examples: ['7d', '14d'],
  },
  '/$defs/settings/properties/ignore': {
    title: 'Ignore',
    description: `Address globs ("identity:engineering/human-*") left alone entirely: never created, updated or deleted. Each starts with a kind prefix (${KINDS.map((k) => `${k}:`).join(', ')}) or is org. * matches any run of characters, ? one.`,
    examples: [['identity:engineering/human-*']],
  },
  '/$defs/settings/properties/ignore/items': {
    title: 'Address glob',
    description: 'An address glob such as identity:engineering/human-*.',
  },
  '/$defs/settings/properties/protect': {
    title: 'Protect',
    description: 'Address globs ("identity:release-bot") that may never be deleted. Same syntax as ignore.',
    examples: [['repo:*', 'identity:release-bot']],
  },
  '/$defs/settings/properties/protect/items': { title: 'Address glob', description: 'An address glob such as repo:*.' },
  '/$defs/identityProvider': {
    title: 'Identity provider',
    description:
      'SSO for people through an OIDC identity provider. Its client secret is never written here: only {fromEnv: VAR} or {fromFile: path}.',
  },
  '/$defs/identityProvider/properties/renamedFrom': {
    title: 'Renamed from',
    description:
      "The identity provider's previous name: when a live sibling has this name and none has `name`, the plan renames it in place (one PATCH of `name`).",
  },
  '/$defs/identityProvider/properties/groupMappings': {
    title: 'Group mappings',
    description:
      'Groups of the identity provider (from the groups claim) mapped to a role on the org. A changed mapping is deleted and created again.',
  },
  '/$defs/groupMapping': {
    title: 'Group mapping',
    description: 'People in an external group of the identity provider get a role on the org.',
  },
  '/$defs/org/properties/accessRules': {
    title: 'Access rules',
    description:
      "What must never be true of who can act where (org only), judged on every plan, apply, drift and audit: each rule selects capabilities (or a role's) in a scope and holds one test. See docs/access-rules.md.",
  },
  '/$defs/accessRule': {
    title: 'Access rule',
    description:
      'A named rule: capabilities or role, an optional scope, and exactly one test — onlyPrincipals, count, or token with never: true.',
    examples: [
      {
        name: 'only-platform-grants-roles',
        capabilities: ['role_bindings.create'],
        onlyPrincipals: ['identity:release-bot'],
      },
    ],
  },
  '/$defs/accessRule/properties/name': {
    title: 'Name',
    description: "The rule's name, unique in the org: refusals and findings name it.",
    examples: ['two-to-four-owners'],
  },
  '/$defs/accessRule/properties/capabilities': {
    title: 'Capabilities',
    description: "Capabilities of the service's catalog the rule is about (give this or role).",
    examples: [['role_bindings.create', 'roles.update']],
  },
  '/$defs/accessRule/properties/role': {
    title: 'Role',
    description:
      'A role whose every capability the rule is about: a built-in (owner) or a custom role by name or path (give this or capabilities).',
    examples: ['owner'],
  },
  '/$defs/accessRule/properties/scope': {
    title: 'Scope',
    description: 'A group path (engineering/platform): the rule covers it and every group below. Default: the org.',
    examples: ['engineering'],
  },
  '/$defs/accessRule/properties/onlyPrincipals': {
    title: 'Only principals',
    description:
      'Test: no principal outside this list can obtain (hold, or get through an escalating capability) a selected capability in scope. Principals as access changes spell them: identity:<path>, email:<address>, idp:<provider>/group:<name>, idp:<provider>/*.',
    examples: [['identity:release-bot', 'idp:okta/group:platform-admins']],
  },
  '/$defs/accessRule/properties/count': {
    title: 'Count',
    description:
      'Test: how many principals hold every selected capability at the scope — at least min, at most max (one or both).',
    examples: [{ min: 2, max: 4 }],
  },
  '/$defs/accessRule/properties/count/properties/min': {
    title: 'Minimum',
    description: 'At least this many principals hold every selected capability at the scope.',
    examples: [2],
  },
  '/$defs/accessRule/properties/count/properties/max': {
    title: 'Maximum',
    description: 'At most this many principals hold every selected capability at the scope.',
    examples: [4],
  },
  '/$defs/accessRule/properties/token': {
    title: 'Token',
    description:
      "Test (with never: true): a token's claims (iss, sub, aud… or awsAccount and arn, or servicePrincipal), evaluated as `access --as` does: it can obtain none of the selected capabilities in scope.",
    examples: [{ iss: 'https://token.actions.githubusercontent.com', sub: 'repo:acme/app:pull_request' }],
  },
  '/$defs/accessRule/properties/never': {
    title: 'Never',
    description: 'With token: must be true (the token can never obtain them).',
  },
  '/$defs/accountAssociation': {
    title: 'Account association',
    description:
      "The cloud and code accounts this group is tied to. At most one per group; it has the group's uid. A block left out is not managed.",
  },
};
