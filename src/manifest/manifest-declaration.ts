/**
 * The manifest schema as a value: its own structure (documents, org, groups, settings, role
 * bindings' references, renames) around the kinds' fields, which come from the one declaration
 * (src/model/kinds/declarations.ts); what the structure says to people is in
 * manifest-documentation.ts, laid on it by pointer. src/manifest/generate-schemas.ts writes it
 * to schemas/manifest.schema.json; only that generator and tests load this module (and TypeBox).
 */
import { FIELD_DECLARATIONS, MEMBER_DECLARATION } from '../model/kinds/declarations.js';
import { CAPABILITY_NAME_PATTERN_SOURCE, describeName, NAME_PATTERN_SOURCE } from '../model/vocabulary.js';
import { descriptorOf, DESCRIPTORS, PRUNE_KEYS } from '../model/kinds.js';
import { MANIFEST_DOCUMENTATION, type Documentation } from './manifest-documentation.js';
import { referenceUidField, type KindDescriptor } from '../model/kind-descriptor.js';

/** What a role binding references (its descriptor): each named by name or by uid. */
const REFERENCES = (descriptorOf('roleBinding') as KindDescriptor).references ?? [];

type Json = Record<string, unknown>;
type DeclaredKind = keyof typeof FIELD_DECLARATIONS;

/** Plain JSON of a TypeBox schema (TypeBox may mark its objects with members JSON leaves out). */
function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

const GROUP = plain(FIELD_DECLARATIONS.group.properties) as Record<string, Json>;

/**
 * The keys of a per-kind `prune` map, from the kinds themselves (PRUNE_KEYS: each manifest list
 * of a kind that can be deleted), in the order of their descriptors.
 */
function pruneProperties(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [key, kind] of Object.entries(PRUNE_KEYS)) {
    // A kind with built-in members (roles) prunes only the custom ones.
    const descriptor = descriptorOf(kind);
    const many = descriptor.builtinNames ? `custom ${descriptor.label.many}` : descriptor.label.many;
    out[key] = {
      title: `Prune ${many}`,
      description: `Delete live ${many} the manifests do not declare (default true).`,
      type: 'boolean',
    };
  }
  return out;
}

/**
 * What an org and a group hold, in the schema's order: one list for both. Each entry is read
 * from the descriptor of the kind whose manifest list it is — an item list, one object (an
 * account association), a list of plain keys (the org's accepted terms: a kind whose
 * definition is the org's is the org's alone); `members` is no kind (its lines become bindings
 * and invites).
 */
const HELD_LISTS = [
  'identities',
  'roles',
  'roleBindings',
  'repos',
  'members',
  'subscriptions',
  'identityProviders',
  'accountAssociation',
  'acceptedTerms',
  'groups',
] as const;

function heldLists(noun: 'org' | 'group'): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const key of HELD_LISTS) {
    if (key === 'members') {
      out.members = { type: 'array', items: { $ref: '#/$defs/member' } };
      continue;
    }
    const descriptor = DESCRIPTORS.find((d) => d.manifest?.listKey === key);
    if (!descriptor?.manifest) throw new Error(`no kind is held in the manifest list ${key}`);
    const { form, definition } = descriptor.manifest;
    if (definition === 'org' && noun !== 'org') continue;
    if (form === 'single') out[key] = { $ref: `#/$defs/${definition}` };
    else if (form === 'values')
      out[key] = {
        type: 'array',
        items: plain(
          (FIELD_DECLARATIONS[descriptor.kind as DeclaredKind].properties as Json)[String(descriptor.keyField)],
        ),
      };
    else out[key] = { type: 'array', items: { $ref: `#/$defs/${definition}` } };
  }
  // Every kind a group holds in a list of its own is in the one list above.
  const missing = DESCRIPTORS.filter(
    (d) =>
      d.manifest && d.manifest.form !== 'nested' && !(HELD_LISTS as readonly string[]).includes(d.manifest.listKey),
  );
  if (missing.length > 0)
    throw new Error(`the manifest lists of ${missing.map((d) => d.kind).join(', ')} are not in HELD_LISTS`);
  return out;
}

/**
 * The declared fields of a group, as the org or a child group holds them (issue 41: every field
 * from the one declaration, none copied by hand): each as declared, the name and description
 * described for `noun`; a group's `renamedFrom` right after its name.
 */
function groupFields(
  noun: 'org' | 'group',
  examples: { name: string[]; description?: string[] },
  renamedFrom?: Json,
): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const [field, schema] of Object.entries(GROUP)) {
    if (field === 'name') {
      out.name = { ...schema, title: 'Name', description: describeName(noun), examples: examples.name };
      if (renamedFrom) out.renamedFrom = renamedFrom;
    } else if (field === 'description') {
      out.description = {
        ...schema,
        title: 'Description',
        description: `Description of the ${noun}. Left out = not managed (the live value is kept); "" clears it.`,
        ...(examples.description ? { examples: examples.description } : {}),
      };
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

/**
 * Lays each node's documentation on the structure: its title and description first, its
 * examples last. A pointer that names no node is an error (documentation of a node that moved).
 */
function documented(schema: Json, documentation: Readonly<Record<string, Documentation>>): Json {
  for (const [pointer, doc] of Object.entries(documentation)) {
    const path =
      pointer === '/'
        ? []
        : pointer
            .slice(1)
            .split('/')
            .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    let parent: Json | undefined;
    let key = '';
    let node: unknown = schema;
    for (const part of path) {
      if (typeof node !== 'object' || node === null || !Object.hasOwn(node, part))
        throw new Error(`manifest-documentation.ts documents ${pointer}, which the manifest schema does not have`);
      parent = node as Json;
      key = part;
      node = (node as Json)[part];
    }
    const { title, description, examples } = doc;
    const written: Json = {
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(node as Json),
      ...(examples !== undefined ? { examples } : {}),
    };
    if (parent !== undefined) parent[key] = written;
    else {
      // The document itself: the same object, its members in the documented order.
      for (const k of Object.keys(schema)) delete schema[k];
      Object.assign(schema, written);
    }
  }
  return schema;
}

/**
 * An access rule (DESIGN.md §3 `org.accessRules`): its shape here; that it selects capabilities one
 * way and holds one test, and every name it uses, are checked by resolve-access-rules.ts with
 * the rule's location and a did-you-mean.
 */
const ACCESS_RULE: Json = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: { type: 'string', pattern: NAME_PATTERN_SOURCE },
    capabilities: {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', pattern: CAPABILITY_NAME_PATTERN_SOURCE },
    },
    role: { type: 'string', minLength: 1 },
    scope: { type: 'string', minLength: 1 },
    onlyPrincipals: { type: 'array', uniqueItems: true, items: { type: 'string', minLength: 1 } },
    count: {
      type: 'object',
      additionalProperties: false,
      properties: { min: { type: 'integer', minimum: 0 }, max: { type: 'integer', minimum: 0 } },
    },
    token: { type: 'object', additionalProperties: { type: ['string', 'array'], items: { type: 'string' } } },
    never: { type: 'boolean' },
  },
};

export function manifestSchema(): Json {
  return documented(manifestStructure(), MANIFEST_DOCUMENTATION);
}

/** The schema's structure, its documentation aside. */
function manifestStructure(): Json {
  return plain({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://platform-sync.dev/schemas/manifest.schema.json',
    type: 'object',
    additionalProperties: false,
    required: ['apiVersion', 'org'],
    properties: {
      apiVersion: {
        const: 'platform-sync/v1',
      },
      org: {
        $ref: '#/$defs/org',
      },
      settings: {
        $ref: '#/$defs/settings',
      },
    },
    $defs: {
      org: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          ...groupFields('org', { name: ['acme'], description: ['Acme Corp'] }),
          ...heldLists('org'),
          accessRules: { type: 'array', items: { $ref: '#/$defs/accessRule' } },
          renamedFrom: {
            type: 'string',
            pattern: NAME_PATTERN_SOURCE,
          },
          uid: {
            type: 'string',
            pattern: '^[0-9a-f]{40}$',
          },
        },
      },
      group: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          ...groupFields(
            'group',
            { name: ['engineering', 'platform'] },
            {
              type: 'string',
              pattern: NAME_PATTERN_SOURCE,
            },
          ),
          ...heldLists('group'),
        },
      },
      identity: item(
        'identity',
        {},
        {
          renamedFrom: {
            type: 'string',
            pattern: NAME_PATTERN_SOURCE,
          },
        },
      ),
      role: item(
        'role',
        {},
        {
          renamedFrom: {
            type: 'string',
            pattern: NAME_PATTERN_SOURCE,
          },
        },
      ),
      roleBinding: {
        type: 'object',
        additionalProperties: false,
        properties: {
          identity: {
            type: 'string',
            minLength: 1,
          },
          [referenceUidField('identity')]: {
            type: 'string',
            pattern: '^[0-9a-f]{40}(/[0-9a-f]{16})+$',
          },
          role: {
            type: 'string',
            minLength: 1,
          },
          [referenceUidField('role')]: {
            type: 'string',
            pattern: '^[0-9a-f]{40}(/[0-9a-f]{16})*$',
          },
        },
        // Exactly one way to name each reference, by name or by uid (the kind's references).
        allOf: REFERENCES.flatMap((r) => [
          { anyOf: [{ required: [r] }, { required: [referenceUidField(r)] }] },
          { not: { required: [r, referenceUidField(r)] } },
        ]),
      },
      repo: item(
        'repo',
        {},
        {
          renamedFrom: {
            type: 'string',
            pattern: NAME_PATTERN_SOURCE,
          },
        },
      ),
      subscription: item('subscription', {}, {}),
      member: {
        ...plain(MEMBER_DECLARATION),
        additionalProperties: false,
      },
      settings: {
        type: 'object',
        additionalProperties: false,
        properties: {
          prune: {
            type: ['boolean', 'object'],
            additionalProperties: false,
            properties: pruneProperties(),
            default: true,
          },
          inviteTtl: {
            type: 'string',
            pattern: '^[1-9][0-9]{0,3}(d|h)$',
            default: '7d',
          },
          ignore: {
            type: 'array',
            items: {
              type: 'string',
              minLength: 1,
            },
          },
          protect: {
            type: 'array',
            items: {
              type: 'string',
              minLength: 1,
            },
          },
        },
      },
      identityProvider: item(
        'identityProvider',
        {},
        {
          renamedFrom: {
            type: 'string',
            pattern: NAME_PATTERN_SOURCE,
          },
          groupMappings: {
            type: 'array',
            items: {
              $ref: '#/$defs/groupMapping',
            },
          },
        },
      ),
      groupMapping: item('groupMapping', {}, {}),
      accountAssociation: item('accountAssociation', {}, {}),
      accessRule: ACCESS_RULE,
    },
  });
}
