/**
 * The declaration of the principals' fields (part of the one declaration, declarations.ts): who
 * signs in and how they are recognized — identities with their relationships (claim match, AWS,
 * static keys), identity providers and their group mappings, and account associations.
 */
import Type from 'typebox';
import { NAME_PATTERN_SOURCE, describeName } from '../vocabulary.js';

export const PRINCIPAL_DECLARATIONS = {
  identity: Type.Object({
    name: Type.String({
      title: 'Name',
      description: describeName('identity'),
      pattern: NAME_PATTERN_SOURCE,
      examples: ['release-bot', 'ci-bot'],
    }),
    description: Type.Optional(
      Type.String({
        title: 'Description',
        description: 'Description of the identity. Left out = not managed (the live value is kept); "" clears it.',
      }),
    ),
    claimMatch: Type.Optional(
      Type.Object(
        {
          issuer: Type.Optional(
            Type.String({
              title: 'Issuer',
              description: 'URL of the token issuer, e.g. https://token.actions.githubusercontent.com.',
              minLength: 1,
              examples: ['https://token.actions.githubusercontent.com'],
            }),
          ),
          issuerPattern: Type.Optional(
            Type.String({
              title: 'Issuer pattern',
              description: 'Regular expression the token issuer must match (instead of issuer).',
              minLength: 1,
              examples: ['https://token\\.actions\\.githubusercontent\\.com'],
            }),
          ),
          subject: Type.Optional(
            Type.String({
              title: 'Subject',
              description: 'Token subject to match exactly, e.g. repo:acme/app:ref:refs/heads/main.',
              minLength: 1,
              examples: ['repo:acme/app:ref:refs/heads/main'],
            }),
          ),
          subjectPattern: Type.Optional(
            Type.String({
              title: 'Subject pattern',
              description:
                'Regular expression the token subject must match (instead of subject), e.g. every branch of a repo.',
              minLength: 1,
              examples: ['repo:acme/app:ref:refs/heads/.*'],
            }),
          ),
          audience: Type.Optional(
            Type.String({
              title: 'Audience',
              description: 'Token audience to match exactly.',
              minLength: 1,
              examples: ['https://github.com/acme'],
            }),
          ),
          audiencePattern: Type.Optional(
            Type.String({
              title: 'Audience pattern',
              description: 'Regular expression the token audience must match (instead of audience).',
              minLength: 1,
              examples: ['https://github\\.com/acme.*'],
            }),
          ),
          claims: Type.Optional(
            Type.Unsafe<Record<string, string>>({
              title: 'Claims',
              description: 'More claims the token must carry, each with exactly this value.',
              type: 'object',
              additionalProperties: { type: 'string' },
              examples: [{ repository_owner: 'acme' }],
            }),
          ),
          claimPatterns: Type.Optional(
            Type.Unsafe<Record<string, string>>({
              title: 'Claim patterns',
              description: 'More claims the token must carry, each matching a regular expression.',
              type: 'object',
              additionalProperties: { type: 'string' },
              examples: [{ job_workflow_ref: 'acme/.github/.*' }],
            }),
          ),
        },
        {
          title: 'Claim match',
          description:
            'OIDC tokens this identity stands for: exactly one of issuer/issuerPattern, exactly one of subject/subjectPattern, at most one of audience/audiencePattern, and claims that must match (exactly or by pattern). Patterns are regular expressions (RE2 syntax).',
          additionalProperties: false,
          examples: [
            { issuer: 'https://token.actions.githubusercontent.com', subject: 'repo:acme/app:ref:refs/heads/main' },
            {
              issuer: 'https://token.actions.githubusercontent.com',
              subjectPattern: 'repo:acme/.*:ref:refs/heads/main',
              claims: { repository_owner: 'acme' },
            },
          ],
        },
      ),
    ),
    awsIdentity: Type.Optional(
      Type.Object(
        {
          awsAccount: Type.String({
            title: 'AWS account',
            description: 'AWS account id: 12 digits, quoted.',
            examples: ['123456789012'],
          }),
          arn: Type.Optional(
            Type.String({
              title: 'ARN',
              description: 'ARN of the role or user, exactly.',
              minLength: 1,
              examples: ['arn:aws:iam::123456789012:role/deploy'],
            }),
          ),
          arnPattern: Type.Optional(
            Type.String({
              title: 'ARN pattern',
              description: 'Regular expression the ARN must match (instead of arn).',
              minLength: 1,
              examples: ['arn:aws:sts::123456789012:assumed-role/deploy/.*'],
            }),
          ),
          userId: Type.Optional(
            Type.String({
              title: 'User id',
              description: 'AWS user id, exactly.',
              minLength: 1,
              examples: ['AIDAEXAMPLE'],
            }),
          ),
          userIdPattern: Type.Optional(
            Type.String({
              title: 'User id pattern',
              description: 'Regular expression the AWS user id must match (instead of userId).',
              minLength: 1,
              examples: ['AROA.*'],
            }),
          ),
        },
        {
          title: 'AWS identity',
          description:
            'An AWS role or user this identity stands for: the account, and the role/user ARN or user id (exactly or by pattern).',
          additionalProperties: false,
          examples: [{ awsAccount: '123456789012', arnPattern: 'arn:aws:sts::123456789012:assumed-role/deploy/.*' }],
        },
      ),
    ),
    staticKeys: Type.Optional(
      Type.Object(
        {
          issuer: Type.String({
            title: 'Issuer',
            description: 'Issuer the tokens name (an https URL).',
            minLength: 1,
            examples: ['https://issuer.acme.dev'],
          }),
          subject: Type.String({
            title: 'Subject',
            description: 'Subject the tokens name.',
            minLength: 1,
            examples: ['deployer'],
          }),
          issuerKeys: Type.String({
            title: 'Issuer keys',
            description: 'The JWKS document of the signing keys, as JSON text.',
            minLength: 1,
            examples: ['{"keys":[{"kty":"EC","crv":"P-256","x":"…","y":"…"}]}'],
          }),
          expirationTime: Type.Optional(
            Type.String({
              title: 'Expiration time',
              description: 'When the keys stop being accepted (RFC 3339).',
              minLength: 1,
              examples: ['2027-01-01T00:00:00Z'],
            }),
          ),
          audiences: Type.Optional(
            Type.Array(Type.String({ minLength: 1 }), {
              title: 'Audiences',
              description: 'Audiences the tokens may name.',
            }),
          ),
        },
        {
          title: 'Static keys',
          description: 'Tokens signed by the keys given here (a JWKS), with this issuer and subject.',
          additionalProperties: false,
        },
      ),
    ),
    servicePrincipal: Type.Optional(
      Type.Enum(
        [
          'COSIGNED',
          'INGESTER',
          'CATALOG_SYNCER',
          'APKO_BUILDER',
          'SERVICE_PRINCIPAL_COSIGNED',
          'SERVICE_PRINCIPAL_INGESTER',
          'SERVICE_PRINCIPAL_CATALOG_SYNCER',
          'SERVICE_PRINCIPAL_APKO_BUILDER',
        ],
        {
          type: 'string',
          title: 'Service principal',
          description:
            'A platform service this identity stands for: COSIGNED, INGESTER, CATALOG_SYNCER or APKO_BUILDER (SERVICE_PRINCIPAL_<name> is accepted too).',
        },
      ),
    ),
  }),
  identityProvider: Type.Object({
    name: Type.String({
      title: 'Name',
      description: describeName('identity provider'),
      pattern: NAME_PATTERN_SOURCE,
      examples: ['okta'],
    }),
    description: Type.Optional(
      Type.String({
        title: 'Description',
        description: 'Description of the identity provider. Left out = not managed; "" clears it.',
      }),
    ),
    defaultRole: Type.String({
      title: 'Default role',
      description:
        'Role people who log in through this provider get by default: the nearest custom role of this group or its ancestors, else a built-in; a path with "/" names a custom role from the org root.',
      minLength: 1,
      examples: ['viewer'],
    }),
    oidc: Type.Object(
      {
        issuer: Type.String({
          title: 'Issuer',
          description: 'URL of the OIDC issuer (https).',
          examples: ['https://acme.okta.com'],
        }),
        clientId: Type.String({
          title: 'Client id',
          description: 'OIDC client id.',
          minLength: 1,
          examples: ['0oa1b2c3d4'],
        }),
        clientSecret: Type.Optional(
          Type.Unsafe<unknown>({
            title: 'Client secret',
            description:
              "Where the client secret is read at apply time: {fromEnv: PLATFORM_SYNC_SECRET_<NAME>} or {fromFile: path inside the operator's secrets directory (--secrets-dir)}. Never the secret itself.",
            examples: [{ fromEnv: 'PLATFORM_SYNC_SECRET_OKTA' }, { fromFile: 'okta.txt' }],
            anyOf: [
              {
                title: 'Secret reference',
                type: 'object',
                additionalProperties: false,
                minProperties: 1,
                maxProperties: 1,
                properties: {
                  fromEnv: {
                    title: 'From environment',
                    description:
                      'Name of the environment variable that holds the secret at apply time: PLATFORM_SYNC_SECRET_ and capitals, digits or _, so that a manifest never names the token or another credential of the runner.',
                    type: 'string',
                    pattern: '^PLATFORM_SYNC_SECRET_[A-Z0-9_]+$',
                  },
                  fromFile: {
                    title: 'From file',
                    description:
                      'Path of a file that holds the secret, relative to the secrets directory the operator names with --secrets-dir or PLATFORM_SYNC_SECRETS_DIR (never the manifests); it must stay inside it.',
                    type: 'string',
                    minLength: 1,
                  },
                },
              },
              { type: 'string' },
            ],
          }),
        ),
        additionalScopes: Type.Optional(
          Type.Array(Type.String({ minLength: 1 }), {
            title: 'Additional scopes',
            description: 'Scopes asked for besides openid.',
            examples: [['email', 'groups']],
          }),
        ),
        groupsClaim: Type.Optional(
          Type.String({
            title: 'Groups claim',
            description: "Claim of the ID token that lists the person's groups (for group mappings).",
            examples: ['groups'],
          }),
        ),
        pkceEnabled: Type.Optional(Type.Boolean({ title: 'PKCE', description: 'Use PKCE in the login flow.' })),
      },
      {
        title: 'OIDC',
        description:
          "The OIDC client: issuer, client id, client secret (a reference), scopes and the claim that lists a person's groups.",
        additionalProperties: false,
      },
    ),
  }),
  groupMapping: Type.Object({
    externalGroup: Type.String({
      title: 'External group',
      description: 'The group as the identity provider names it (in its groups claim).',
      minLength: 1,
      examples: ['platform-admins'],
    }),
    role: Type.String({
      title: 'Role',
      description:
        'Role the group\'s people get: the nearest custom role of the provider\'s group or its ancestors, else a built-in; a path with "/" names a custom role from the org root.',
      minLength: 1,
      examples: ['owner', 'viewer'],
    }),
  }),
  accountAssociation: Type.Object({
    name: Type.String({
      title: 'Name',
      description: 'Name of the association.',
      minLength: 1,
      examples: ['acme-cloud'],
    }),
    description: Type.Optional(
      Type.String({
        title: 'Description',
        description: 'Description of the association. Left out = not managed; "" clears it.',
      }),
    ),
    amazon: Type.Optional(
      Type.Object(
        {
          account: Type.String({
            title: 'Account',
            description: 'AWS account id: 12 digits, quoted.',
            pattern: '^[0-9]{12}$',
            examples: ['123456789012'],
          }),
        },
        { title: 'Amazon', description: 'The AWS account.', additionalProperties: false },
      ),
    ),
    google: Type.Optional(
      Type.Object(
        {
          projectId: Type.Optional(
            Type.String({
              minLength: 1,
              examples: ['acme-prod'],
              title: 'Project id',
              description: 'Google Cloud project id.',
            }),
          ),
          projectNumber: Type.Optional(
            Type.String({
              pattern: '^[0-9]+$',
              examples: ['123456789'],
              title: 'Project number',
              description: 'Google Cloud project number, quoted.',
            }),
          ),
        },
        { title: 'Google', description: 'The Google Cloud project.', additionalProperties: false, minProperties: 1 },
      ),
    ),
    azure: Type.Optional(
      Type.Object(
        {
          tenantId: Type.String({ minLength: 1, title: 'Tenant id', description: 'Azure tenant id.' }),
          clientIds: Type.Optional(
            Type.Unsafe<Record<string, string>>({
              type: 'object',
              additionalProperties: { type: 'string' },
              title: 'Client ids',
              description: 'Azure application client ids by name.',
            }),
          ),
        },
        { title: 'Azure', description: 'The Azure tenant and client ids by name.', additionalProperties: false },
      ),
    ),
    github: Type.Optional(
      Type.Object(
        {
          installations: Type.Array(
            Type.Object(
              {
                installationId: Type.String({
                  minLength: 1,
                  title: 'Installation id',
                  description: 'GitHub App installation id, quoted.',
                }),
                name: Type.Optional(Type.String({ title: 'Name', description: 'Name of the installation.' })),
              },
              { additionalProperties: false },
            ),
            { title: 'Installations', description: 'GitHub App installations of the org.' },
          ),
        },
        { title: 'GitHub', description: 'The GitHub App installations.', additionalProperties: false },
      ),
    ),
    chainguard: Type.Optional(
      Type.Object(
        {
          serviceBindings: Type.Optional(
            Type.Unsafe<Record<string, string>>({
              type: 'object',
              additionalProperties: { type: 'string' },
              title: 'Service bindings',
              description: 'Chainguard service bindings by name.',
            }),
          ),
        },
        { title: 'Chainguard', description: 'Chainguard service bindings by name.', additionalProperties: false },
      ),
    ),
  }),
};
