/**
 * The manifest schema as a value: its own structure (documents, org, groups, settings, role
 * bindings' references, renames) around the kinds' fields, which come from the one declaration
 * (src/model/kinds/declarations.ts). src/manifest/generate-schemas.ts writes it to
 * schemas/manifest.schema.json; only that generator and tests load this module (and TypeBox).
 */
import { FIELD_DECLARATIONS, MEMBER_DECLARATION } from '../model/kinds/declarations.js';
import { describeName, NAME_PATTERN_SOURCE } from '../model/vocabulary.js';
import { descriptorOf, KINDS, PRUNE_KEYS } from '../model/kinds.js';
import { RELATIONSHIP_FIELDS } from '../model/identity-relationships.js';
import { referenceUidField, type KindDescriptor } from '../model/kind-descriptor.js';

/** What a role binding references (its descriptor): each named by name or by uid. */
const REFERENCES = (descriptorOf('roleBinding') as KindDescriptor).references ?? [];

/** "claimMatch, awsIdentity, staticKeys or servicePrincipal", from the declaration. */
const RELATIONSHIPS = `${RELATIONSHIP_FIELDS.slice(0, -1).join(', ')} or ${RELATIONSHIP_FIELDS.at(-1)}`;

type Json = Record<string, unknown>;
type DeclaredKind = keyof typeof FIELD_DECLARATIONS;

/** Plain JSON of a TypeBox schema (TypeBox may mark its objects with members JSON leaves out). */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

const GROUP = plain(FIELD_DECLARATIONS.group.properties) as Record<string, Json>;
const TERMS_DOC_ID = plain(FIELD_DECLARATIONS.terms.properties.docId);

/**
 * The keys of a per-kind `prune` map, from the kinds themselves (PRUNE_KEYS: each manifest list
 * of a kind that can be deleted), in the order of their descriptors.
 */
function pruneProperties(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, kind] of Object.entries(PRUNE_KEYS)) {
    const { many } = descriptorOf(kind).label;
    out[key] = { title: `Prune ${kind === 'role' ? 'custom roles' : many}`, description: `Delete live ${kind === 'role' ? 'custom roles' : many} the manifests do not declare (default true).`, type: 'boolean' };
  }
  return out;
}

/**
 * The declared fields of a group, as the org or a child group holds them (issue 41: every field
 * from the one declaration, none copied by hand): each as declared, the name and description
 * described for `noun`; a group's `renamedFrom` right after its name.
 */
function groupFields(noun: 'org' | 'group', examples: { name: string[]; description?: string[] }, renamedFrom?: Json): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [field, schema] of Object.entries(GROUP)) {
    if (field === 'name') {
      out.name = { ...schema, title: 'Name', description: describeName(noun), examples: examples.name };
      if (renamedFrom) out.renamedFrom = renamedFrom;
    } else if (field === 'description') {
      out.description = { ...schema, title: 'Description', description: `Description of the ${noun}. Left out = not managed (the live value is kept); "" clears it.`, ...(examples.description ? { examples: examples.description } : {}) };
    } else out[field] = schema;
  }
  return out;
}

/**
 * A list item of a kind: its declared fields (required as declared), with the manifest-only
 * members (`renamedFrom`, nested lists) beside them; `renamedFrom` right after `name`.
 */
function item(kind: DeclaredKind, meta: Json, extras: Record<string, Json>): Json {
  const declared = plain(FIELD_DECLARATIONS[kind]);
  const properties: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(declared.properties as Record<string, Json>)) {
    properties[name] = schema;
    if (name === 'name' && extras.renamedFrom) properties.renamedFrom = extras.renamedFrom;
  }
  for (const [name, schema] of Object.entries(extras)) if (!(name in properties)) properties[name] = schema;
  return {
    ...meta,
    type: 'object',
    additionalProperties: false,
    ...(Array.isArray(declared.required) && declared.required.length > 0 ? { required: declared.required } : {}),
    properties,
  };
}

export function manifestSchema(): Json {
  return plain({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
      "$id": "https://platform-sync.dev/schemas/manifest.schema.json",
      "title": "platform-sync manifest (platform-sync/v1)",
      "description": "One document of a platform-sync manifest set: an org on the Platform API v2 as it should be. All documents for one org are merged.",
      "type": "object",
      "additionalProperties": false,
      "required": [
        "apiVersion",
        "org"
      ],
      "properties": {
        "apiVersion": {
          "title": "API version",
          "description": "Manifest format version; must be platform-sync/v1.",
          "const": "platform-sync/v1",
          "examples": [
            "platform-sync/v1"
          ]
        },
        "org": {
          "$ref": "#/$defs/org"
        },
        "settings": {
          "$ref": "#/$defs/settings"
        }
      },
    $defs: {
    org: {
  "title": "Org",
  "description": "The org root group, found by name among the root groups the token sees (or by uid when pinned).",
  "type": "object",
  "additionalProperties": false,
  "required": [
    "name"
  ],
  "properties": {
    ...groupFields('org', { name: ['acme'], description: ['Acme Corp'] }),
    "identities": {
      "title": "Identities",
      "description": `Workload identities owned by this org (matched to callers by one relationship: ${RELATIONSHIPS}).`,
      "type": "array",
      "items": {
        "$ref": "#/$defs/identity"
      }
    },
    "roles": {
      "title": "Custom roles",
      "description": "Custom roles owned by this org; usable by role bindings in it and in its descendants.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/role"
      }
    },
    "roleBindings": {
      "title": "Role bindings",
      "description": "Grants of a role to an identity on this org.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/roleBinding"
      }
    },
    "repos": {
      "title": "Repositories",
      "description": "Registry repositories owned by this org. Tags are published by CI and never declared here.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/repo"
      }
    },
    "members": {
      "title": "Members",
      "description": "People who should hold a role on this org, by the e-mail they sign in with: invited until they accept, then kept as the binding of that role to their identity. One (email, role) pair once per group.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/member"
      }
    },
    "subscriptions": {
      "title": "Event subscriptions",
      "description": "Event subscriptions of this org, delivered to an https sink.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/subscription"
      }
    },
    "identityProviders": {
      "title": "Identity providers",
      "description": "SSO (OIDC) identity providers of this org.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/identityProvider"
      }
    },
    "accountAssociation": {
      "$ref": "#/$defs/accountAssociation"
    },
    "acceptedTerms": {
      "title": "Accepted terms",
      "description": "Ids of the terms documents the org accepts. Accepting is permanent: a document removed from this list stays accepted (the plan notes it).",
      "type": "array",
      "items": TERMS_DOC_ID,
      "examples": [
        [
          "platform-tos-2026"
        ]
      ]
    },
    "groups": {
      "title": "Child groups",
      "description": "Child groups of this org, each with the same lists, recursively.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/group"
      }
    },
    "renamedFrom": {
      "title": "Renamed from",
      "description": "The org's previous name, to rename a pinned org (org.uid) in place; without it, a pinned org whose live name differs from org.name is refused.",
      "type": "string",
      "pattern": NAME_PATTERN_SOURCE,
      "examples": [
        "old-name"
      ]
    },
    "uid": {
      "title": "Pinned uid",
      "description": "Uid of the root group (40 lowercase hex). Pins the org when names are ambiguous; wins over name matching.",
      "type": "string",
      "pattern": "^[0-9a-f]{40}$",
      "examples": [
        "0123456789abcdef0123456789abcdef01234567"
      ]
    }
  }
},
    group: {
  "title": "Group",
  "description": "A child group, with its own identities, roles, role bindings, repos, subscriptions and child groups. Several documents may describe one group; their lists are merged.",
  "type": "object",
  "additionalProperties": false,
  "required": [
    "name"
  ],
  "properties": {
    ...groupFields('group', { name: ['engineering', 'platform'] }, {
      "title": "Renamed from",
      "description": "The group's previous name: when a live sibling group has this name and none has `name`, the plan renames it in place (one PATCH of `name`: same uid, everything beneath it and every binding kept). Once renamed it is a no-op, so it may stay; when both names exist live the plan is refused.",
      "type": "string",
      "pattern": NAME_PATTERN_SOURCE,
      "examples": [
        "old-name"
      ]
    }),
    "identities": {
      "title": "Identities",
      "description": `Workload identities owned by this group (matched to callers by one relationship: ${RELATIONSHIPS}).`,
      "type": "array",
      "items": {
        "$ref": "#/$defs/identity"
      }
    },
    "roles": {
      "title": "Custom roles",
      "description": "Custom roles owned by this group; usable by role bindings in it and in its descendants.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/role"
      }
    },
    "roleBindings": {
      "title": "Role bindings",
      "description": "Grants of a role to an identity on this group.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/roleBinding"
      }
    },
    "repos": {
      "title": "Repositories",
      "description": "Registry repositories owned by this group. Tags are published by CI and never declared here.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/repo"
      }
    },
    "members": {
      "title": "Members",
      "description": "People who should hold a role on this group, by the e-mail they sign in with: invited until they accept, then kept as the binding of that role to their identity. One (email, role) pair once per group.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/member"
      }
    },
    "subscriptions": {
      "title": "Event subscriptions",
      "description": "Event subscriptions of this group, delivered to an https sink.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/subscription"
      }
    },
    "identityProviders": {
      "title": "Identity providers",
      "description": "SSO (OIDC) identity providers of this group.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/identityProvider"
      }
    },
    "accountAssociation": {
      "$ref": "#/$defs/accountAssociation"
    },
    "groups": {
      "title": "Child groups",
      "description": "Child groups of this group, each with the same lists, recursively.",
      "type": "array",
      "items": {
        "$ref": "#/$defs/group"
      }
    }
  }
},
    identity: item('identity', {
  "title": "Identity",
  "description": "A workload identity: who may log in, matched by exactly one relationship — claimMatch (OIDC token claims), awsIdentity (an AWS role or user), staticKeys (tokens signed by keys given here) or servicePrincipal (a platform service)."
}, {
  "renamedFrom": {
    "title": "Renamed from",
    "description": "The identity's previous name: when a live sibling identity has this name and none has `name`, the plan renames it in place (one PATCH of `name`: same uid, everything beneath it and every binding kept). Once renamed it is a no-op, so it may stay; when both names exist live the plan is refused.",
    "type": "string",
    "pattern": NAME_PATTERN_SOURCE,
    "examples": [
      "old-name"
    ]
  }
}),
    role: item('role', {
  "title": "Custom role",
  "description": "A custom role: a named set of capabilities. Its name must not be a built-in role name (viewer, editor, owner, registry.pull, registry.push)."
}, {
  "renamedFrom": {
    "title": "Renamed from",
    "description": "The role's previous name: when a live sibling role has this name and none has `name`, the plan renames it in place (one PATCH of `name`: same uid, everything beneath it and every binding kept). Once renamed it is a no-op, so it may stay; when both names exist live the plan is refused.",
    "type": "string",
    "pattern": NAME_PATTERN_SOURCE,
    "examples": [
      "old-name"
    ]
  }
}),
    roleBinding: {
  "title": "Role binding",
  "description": "Grants a role to an identity on the group that holds this list. Give exactly one of identity/identityUid and exactly one of role/roleUid.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "identity": {
      "title": "Identity",
      "description": "Identity by name: a bare name is a sibling identity in this group; a path with \"/\" (engineering/ci-bot, /release-bot) is from the org root.",
      "type": "string",
      "minLength": 1,
      "examples": [
        "release-bot",
        "engineering/ci-bot",
        "/release-bot"
      ]
    },
    [referenceUidField("identity")]: {
      "title": "Identity uid",
      "description": "Uid of an identity the manifests do not manage (e.g. a person).",
      "type": "string",
      "pattern": "^[0-9a-f]{40}(/[0-9a-f]{16})+$",
      "examples": [
        "0123456789abcdef0123456789abcdef01234567/00000000000000aa"
      ]
    },
    "role": {
      "title": "Role",
      "description": "Role by name: the nearest custom role of this group or its ancestors, else a built-in (viewer, editor, owner, registry.pull, registry.push); a path with \"/\" names a custom role from the org root.",
      "type": "string",
      "minLength": 1,
      "examples": [
        "viewer",
        "registry.push",
        "release-manager"
      ]
    },
    [referenceUidField("role")]: {
      "title": "Role uid",
      "description": "Uid of a role the manifests do not manage.",
      "type": "string",
      "pattern": "^[0-9a-f]{40}(/[0-9a-f]{16})*$",
      "examples": [
        "0123456789abcdef0123456789abcdef01234567"
      ]
    }
  },
  // Exactly one way to name each reference, by name or by uid (the kind's references).
  "allOf": REFERENCES.flatMap((r) => [{ anyOf: [{ required: [r] }, { required: [referenceUidField(r)] }] }, { not: { required: [r, referenceUidField(r)] } }])
},
    repo: item('repo', {
  "title": "Repository",
  "description": "A registry repository. Its tags are published by CI and are not declared in manifests."
}, {
  "renamedFrom": {
    "title": "Renamed from",
    "description": "The repo's previous name: when a live sibling repo has this name and none has `name`, the plan renames it in place (one PATCH of `name`: same uid, everything beneath it and every binding kept). Once renamed it is a no-op, so it may stay; when both names exist live the plan is refused.",
    "type": "string",
    "pattern": NAME_PATTERN_SOURCE,
    "examples": [
      "old-name"
    ]
  }
}),
    subscription: item('subscription', {
  "title": "Event subscription",
  "description": "Delivers the group events to an https sink."
}, {}),
    member: {
      ...plain(MEMBER_DECLARATION),
      title: "Member",
      description: "A person who should hold a role here, by e-mail: present once a binding of that role to an identity with that e-mail exists, pending while an unexpired invite for them is open, else invited by the plan.",
      additionalProperties: false,
      examples: [{ email: "alice@acme.dev", role: "viewer" }],
    },
    settings: {
  "title": "Settings",
  "description": "How plans treat live resources the manifests do not mention. May be given in several documents: prune must then agree, ignore and protect lists are joined.",
  "type": "object",
  "additionalProperties": false,
  "properties": {
    "prune": {
      "title": "Prune",
      "description": "Delete live resources the manifests do not declare: true/false for every kind, or per kind (kinds left out default to true).",
      "type": [
        "boolean",
        "object"
      ],
      "additionalProperties": false,
      "properties": pruneProperties(),
      "default": true,
      "examples": [
        true,
        {
          "roleBindings": false
        }
      ]
    },
    "inviteTtl": {
      "title": "Invite lifetime",
      "description": "How long an invite the plan creates for a member stays open: days or hours (7d, 36h), at most 30d (default 7d).",
      "type": "string",
      "pattern": "^[1-9][0-9]{0,3}(d|h)$",
      "default": "7d",
      "examples": ["7d", "14d"]
    },
    "ignore": {
      "title": "Ignore",
      "description": `Address globs ("identity:engineering/human-*") left alone entirely: never created, updated or deleted. Each starts with a kind prefix (${KINDS.map((k) => `${k}:`).join(', ')}) or is org. * matches any run of characters, ? one.`,
      "type": "array",
      "items": {
        "title": "Address glob",
        "description": "An address glob such as identity:engineering/human-*.",
        "type": "string",
        "minLength": 1
      },
      "examples": [
        [
          "identity:engineering/human-*"
        ]
      ]
    },
    "protect": {
      "title": "Protect",
      "description": "Address globs (\"identity:release-bot\") that may never be deleted. Same syntax as ignore.",
      "type": "array",
      "items": {
        "title": "Address glob",
        "description": "An address glob such as repo:*.",
        "type": "string",
        "minLength": 1
      },
      "examples": [
        [
          "repo:*",
          "identity:release-bot"
        ]
      ]
    }
  }
},
    identityProvider: item('identityProvider', {
  "title": "Identity provider",
  "description": "SSO for people through an OIDC identity provider. Its client secret is never written here: only {fromEnv: VAR} or {fromFile: path}."
}, {
  "renamedFrom": {
    "title": "Renamed from",
    "description": "The identity provider's previous name: when a live sibling has this name and none has `name`, the plan renames it in place (one PATCH of `name`).",
    "type": "string",
    "pattern": NAME_PATTERN_SOURCE
  },
  "groupMappings": {
    "title": "Group mappings",
    "description": "Groups of the identity provider (from the groups claim) mapped to a role on the org. A changed mapping is deleted and created again.",
    "type": "array",
    "items": {
      "$ref": "#/$defs/groupMapping"
    }
  }
}),
    groupMapping: item('groupMapping', {
  "title": "Group mapping",
  "description": "People in an external group of the identity provider get a role on the org."
}, {}),
    accountAssociation: item('accountAssociation', {
  "title": "Account association",
  "description": "The cloud and code accounts this group is tied to. At most one per group; it has the group's uid. A block left out is not managed."
}, {}),
    },
  });
}
