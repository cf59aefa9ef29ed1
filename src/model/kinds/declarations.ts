/**
 * The one declaration of every managed field (issue "one declaration per field"): each kind's
 * fields as TypeBox schemas — JSON Schema with static TypeScript types. From it come
 *
 * - the kinds' TypeScript field types (`Static<…>`, imported as types only, so run time never
 *   loads TypeBox);
 * - `schemas/manifest.schema.json`, whose item definitions are these fields plus the manifest's
 *   own structure (manifest-declaration.ts);
 * - `declared-fields.ts`, the field lists the descriptors are built from at run time.
 *
 * Both generated files are written by `src/manifest/generate-schemas.ts` and checked by
 * test/unit/declaration.test.ts, which fails when either, or a descriptor, disagrees with this.
 * Adding a field is one line here — a principal's in principal-declarations.ts, which this takes in
 * — (and the emulator's contract, schemas/platform-api-v2.openapi.json).
 */
import Type from 'typebox';
import {
  CAPABILITIES,
  CAPABILITY_NAME_PATTERN_SOURCE,
  CATALOG_TIERS,
  describeName,
  IMAGE_ALIAS_PATTERN_SOURCE,
  MIRROR_PATTERN_SOURCE,
  NAME_PATTERN_SOURCE,
} from '../vocabulary.js';
import { PRINCIPAL_DECLARATIONS } from './principal-declarations.js';

/** An e-mail address as members and invites carry it: ASCII, one @, a dotted domain (compared case-insensitively). */
export const EMAIL_PATTERN_SOURCE = "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$";
const EMAIL = Type.String({
  title: 'E-mail',
  description: 'The e-mail address the person signs in with (compared case-insensitively).',
  pattern: EMAIL_PATTERN_SOURCE,
  maxLength: 254,
  examples: ['alice@acme.dev'],
});
const ROLE_NAME_REF = (who: string) =>
  Type.String({
    title: 'Role',
    description: `Role ${who} get: the nearest custom role of this group or its ancestors, else a built-in (viewer, editor, owner, registry.pull, registry.push); a path with "/" names a custom role from the org root.`,
    minLength: 1,
    examples: ['viewer', 'registry.push'],
  });

/**
 * A member (DESIGN.md §3, §4 "Members and invites"): who should hold a role on a group, by the
 * e-mail they sign in with. Not a kind of the API: a member is brought about by an invite, and
 * once accepted is the binding of that role to the identity with that e-mail.
 */
export const MEMBER_DECLARATION = Type.Object({
  email: EMAIL,
  role: ROLE_NAME_REF('the person will'),
});

export const FIELD_DECLARATIONS = {
  group: Type.Object({
    name: Type.String({
      title: 'Name',
      description: describeName('group'),
      pattern: NAME_PATTERN_SOURCE,
      examples: ['engineering', 'platform'],
    }),
    description: Type.Optional(
      Type.String({
        title: 'Description',
        description: 'Description of the group. Left out = not managed (the live value is kept); "" clears it.',
      }),
    ),
  }),
  identity: PRINCIPAL_DECLARATIONS.identity,
  role: Type.Object({
    name: Type.String({
      title: 'Name',
      description: describeName('role'),
      pattern: NAME_PATTERN_SOURCE,
      examples: ['release-manager', 'deployer'],
    }),
    description: Type.Optional(
      Type.String({
        title: 'Description',
        description: 'Description of the role. Left out = not managed (the live value is kept); "" clears it.',
      }),
    ),
    capabilities: Type.Array(
      Type.String({
        pattern: CAPABILITY_NAME_PATTERN_SOURCE,
        title: 'Capability',
        description:
          "A capability of the service's catalog (its 153 names are the examples, offered by editors); a name outside it is an error naming the nearest.",
        examples: [...CAPABILITIES],
      }),
      {
        title: 'Capabilities',
        description: 'Capabilities the role grants; at least one.',
        minItems: 1,
        uniqueItems: true,
        examples: [['repo.list', 'tag.create']],
      },
    ),
  }),
  repo: Type.Object({
    name: Type.String({
      title: 'Name',
      description: describeName('repo'),
      pattern: NAME_PATTERN_SOURCE,
      examples: ['nginx'],
    }),
    description: Type.Optional(
      Type.String({
        title: 'Description',
        description: 'Description of the repo. Left out = not managed (the live value is kept); "" clears it.',
      }),
    ),
    readme: Type.Optional(
      Type.String({
        title: 'Readme',
        description: 'Markdown readme of the repo. Left out = not managed.',
        examples: ['# nginx\n\nHardened nginx image.\n'],
      }),
    ),
    bundles: Type.Optional(
      Type.Array(
        Type.String({
          pattern: '^[a-z0-9-]{1,63}$',
          title: 'Bundle',
          description: 'A bundle keyword: 1 to 63 lowercase letters, digits or -.',
        }),
        {
          title: 'Bundles',
          description:
            'Bundle keywords of the repo, a set (order does not matter; no duplicates), at most 16. Left out = not managed; [] clears them.',
          maxItems: 16,
          uniqueItems: true,
          examples: [['featured', 'fips']],
        },
      ),
    ),
    tier: Type.Optional(
      Type.Enum([...CATALOG_TIERS, ...CATALOG_TIERS.map((t) => `CATALOG_TIER_${t}`)], {
        type: 'string',
        title: 'Catalog tier',
        description:
          "The repo's catalog tier (the API's catalogTier enum): APPLICATION, BASE, FIPS, AI, DEVTOOLS or COMMERCIAL (the full name, CATALOG_TIER_FIPS, is read too). Left out = not managed.",
      }),
    ),
    aliases: Type.Optional(
      Type.Array(
        Type.String({
          pattern: IMAGE_ALIAS_PATTERN_SOURCE,
          maxLength: 255,
          title: 'Alias',
          description:
            'Another name of the image: an image reference with a tag, e.g. nginx:latest or docker.io/library/nginx:1.27 (^[a-zA-Z0-9_.\\-/]*[a-zA-Z0-9_.\\-]:[a-zA-Z0-9_.\\-]+$).',
        }),
        {
          title: 'Aliases',
          description:
            'Other names of the image, a set (order does not matter; no duplicates), at most 32. Left out = not managed; [] clears them.',
          maxItems: 32,
          uniqueItems: true,
          examples: [['nginx:latest', 'docker.io/library/nginx:1.27']],
        },
      ),
    ),
    activeTags: Type.Optional(
      Type.Array(
        Type.String({
          pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$',
          title: 'Tag',
          description: 'A tag name, Docker style (^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$).',
        }),
        {
          title: 'Active tags',
          description:
            'The tags the catalog keeps current in this repo, a set (order does not matter; no duplicates), at most 256. Left out = not managed; [] clears them.',
          maxItems: 256,
          uniqueItems: true,
          examples: [['latest', '1.27']],
        },
      ),
    ),
    syncConfig: Type.Optional(
      Type.Object(
        {
          source: Type.String({
            title: 'Source',
            description: 'Uid of the catalog repo whose images are synced into this one.',
            pattern: '^[0-9a-f]{40}(/[0-9a-f]{16})+$',
            examples: ['0123456789abcdef0123456789abcdef01234567/89abcdef01234567'],
          }),
          expiration: Type.String({
            title: 'Expiration',
            description: "When the sync entitlement ends (RFC 3339); audit's sync-expiring rule warns before it.",
            pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$',
            examples: ['2027-06-30T00:00:00Z'],
          }),
          syncApks: Type.Optional(
            Type.Boolean({
              title: 'Sync APKs',
              description: 'Sync the APK packages of the images too (default false).',
            }),
          ),
          uniqueTags: Type.Optional(
            Type.Boolean({
              title: 'Unique tags',
              description: 'Sync only tags whose digest is unique (default false).',
            }),
          ),
          gracePeriod: Type.Optional(
            Type.Boolean({
              title: 'Grace period',
              description: "Keep syncing for the service's grace period after the expiration (default false).",
            }),
          ),
          amazon: Type.Optional(
            Type.String({
              maxLength: 1024,
              pattern: MIRROR_PATTERN_SOURCE,
              title: 'Amazon ECR mirror',
              description: 'The repository in Amazon ECR to which the synced images are also copied; "" = none.',
              examples: ['123456789012.dkr.ecr.us-east-1.amazonaws.com/acme-mirror'],
            }),
          ),
          google: Type.Optional(
            Type.String({
              maxLength: 1024,
              pattern: MIRROR_PATTERN_SOURCE,
              title: 'Google Artifact Registry mirror',
              description:
                'The repository in Google Artifact Registry to which the synced images are also copied; "" = none.',
              examples: ['us-docker.pkg.dev/acme-prod/mirror'],
            }),
          ),
          azure: Type.Optional(
            Type.String({
              maxLength: 1024,
              pattern: MIRROR_PATTERN_SOURCE,
              title: 'Azure Container Registry mirror',
              description:
                'The repository in Azure Container Registry to which the synced images are also copied; "" = none.',
              examples: ['acmeprod.azurecr.io/mirror'],
            }),
          ),
          apkoOverlay: Type.Optional(
            Type.String({
              title: 'apko overlay',
              description: 'An apko configuration laid over the catalog image\'s, as JSON text (an object); "" = none.',
              maxLength: 65536,
              examples: ['{"contents":{"packages":["curl"]}}'],
            }),
          ),
        },
        {
          title: 'Sync config',
          description:
            'A catalog entitlement: images synced from a catalog repo until the expiration. Left out = not managed; a change is a PATCH naming the leaves that changed (syncConfig.expiration).',
          additionalProperties: false,
          examples: [
            {
              source: '0123456789abcdef0123456789abcdef01234567/89abcdef01234567',
              expiration: '2027-06-30T00:00:00Z',
              syncApks: true,
              uniqueTags: false,
            },
          ],
        },
      ),
    ),
  }),
  subscription: Type.Object({
    sink: Type.String({
      title: 'Sink',
      description: 'https URL that receives the events.',
      pattern: '^https://',
      examples: ['https://hooks.acme.dev/platform'],
    }),
  }),
  identityProvider: PRINCIPAL_DECLARATIONS.identityProvider,
  groupMapping: PRINCIPAL_DECLARATIONS.groupMapping,
  accountAssociation: PRINCIPAL_DECLARATIONS.accountAssociation,
  tag: Type.Object({
    name: Type.String({
      title: 'Name',
      description: 'Tag name, Docker style.',
      pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$',
    }),
    digest: Type.String({
      title: 'Digest',
      description: 'Digest of the image the tag names.',
      pattern: '^sha256:[0-9a-f]{64}$',
    }),
    deprecated: Type.Optional(Type.Boolean({ title: 'Deprecated', description: 'Set by the service, shown only.' })),
  }),
  terms: Type.Object({
    docId: Type.String({
      title: 'Document id',
      description:
        'A terms document id: a letter or digit, then letters, digits, ".", "_" or "-", at most 128 characters (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$).',
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
    }),
  }),
  roleBinding: Type.Object({}),
  groupInvite: Type.Object({
    email: Type.Optional(EMAIL),
    role: ROLE_NAME_REF('whoever accepts the invite will'),
    expirationTime: Type.String({
      title: 'Expiration time',
      description: 'When the invite stops being accepted (RFC 3339): set by the plan from settings.inviteTtl.',
      minLength: 1,
    }),
    singleUse: Type.Optional(
      Type.Boolean({ title: 'Single use', description: 'The invite is consumed when accepted (default true).' }),
    ),
  }),
};

export type FieldDeclarations = typeof FIELD_DECLARATIONS;
