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
 * Adding a field is one line here (and the emulator's contract, schemas/platform-api-v2.openapi.json).
 */
import Type from 'typebox';
import { CAPABILITIES, CAPABILITY_NAME_PATTERN_SOURCE, CATALOG_TIERS, describeName, IMAGE_ALIAS_PATTERN_SOURCE, MIRROR_PATTERN_SOURCE, NAME_PATTERN_SOURCE } from '../vocabulary.js';

/** An e-mail address as members and invites carry it: ASCII, one @, a dotted domain (compared case-insensitively). */
export const EMAIL_PATTERN_SOURCE = "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+$";
const EMAIL = Type.String({ title: "E-mail", description: "The e-mail address the person signs in with (compared case-insensitively).", pattern: EMAIL_PATTERN_SOURCE, maxLength: 254, examples: ["alice@acme.dev"] });
const ROLE_NAME_REF = (who: string) => Type.String({ title: "Role", description: `Role ${who} get: the nearest custom role of this group or its ancestors, else a built-in (viewer, editor, owner, registry.pull, registry.push); a path with "/" names a custom role from the org root.`, minLength: 1, examples: ["viewer", "registry.push"] });

/**
 * A member (DESIGN.md §3, §4 "Members and invites"): who should hold a role on a group, by the
 * e-mail they sign in with. Not a kind of the API: a member is brought about by an invite, and
 * once accepted is the binding of that role to the identity with that e-mail.
 */
export const MEMBER_DECLARATION = Type.Object({
  email: EMAIL,
  role: ROLE_NAME_REF("the person will"),
});

export const FIELD_DECLARATIONS = {
  group: Type.Object({
    name: Type.String({ title: "Name", description: describeName("group"), pattern: NAME_PATTERN_SOURCE, examples: ["engineering", "platform"] }),
    description: Type.Optional(Type.String({ title: "Description", description: "Description of the group. Left out = not managed (the live value is kept); \"\" clears it." })),
  }),
  identity: Type.Object({
    name: Type.String({ title: "Name", description: describeName("identity"), pattern: NAME_PATTERN_SOURCE, examples: ["release-bot", "ci-bot"] }),
    description: Type.Optional(Type.String({ title: "Description", description: "Description of the identity. Left out = not managed (the live value is kept); \"\" clears it." })),
    claimMatch: Type.Optional(Type.Object({
      issuer: Type.Optional(Type.String({ title: "Issuer", description: "URL of the token issuer, e.g. https://token.actions.githubusercontent.com.", minLength: 1, examples: ["https://token.actions.githubusercontent.com"] })),
      issuerPattern: Type.Optional(Type.String({ title: "Issuer pattern", description: "Regular expression the token issuer must match (instead of issuer).", minLength: 1, examples: ["https://token\\.actions\\.githubusercontent\\.com"] })),
      subject: Type.Optional(Type.String({ title: "Subject", description: "Token subject to match exactly, e.g. repo:acme/app:ref:refs/heads/main.", minLength: 1, examples: ["repo:acme/app:ref:refs/heads/main"] })),
      subjectPattern: Type.Optional(Type.String({ title: "Subject pattern", description: "Regular expression the token subject must match (instead of subject), e.g. every branch of a repo.", minLength: 1, examples: ["repo:acme/app:ref:refs/heads/.*"] })),
      audience: Type.Optional(Type.String({ title: "Audience", description: "Token audience to match exactly.", minLength: 1, examples: ["https://github.com/acme"] })),
      audiencePattern: Type.Optional(Type.String({ title: "Audience pattern", description: "Regular expression the token audience must match (instead of audience).", minLength: 1, examples: ["https://github\\.com/acme.*"] })),
      claims: Type.Optional(Type.Unsafe<Record<string, string>>({"title": "Claims", "description": "More claims the token must carry, each with exactly this value.", "type": "object", "additionalProperties": {"type": "string"}, "examples": [{"repository_owner": "acme"}]})),
      claimPatterns: Type.Optional(Type.Unsafe<Record<string, string>>({"title": "Claim patterns", "description": "More claims the token must carry, each matching a regular expression.", "type": "object", "additionalProperties": {"type": "string"}, "examples": [{"job_workflow_ref": "acme/.github/.*"}]})),
    }, { title: "Claim match", description: "OIDC tokens this identity stands for: exactly one of issuer/issuerPattern, exactly one of subject/subjectPattern, at most one of audience/audiencePattern, and claims that must match (exactly or by pattern). Patterns are regular expressions (RE2 syntax).", additionalProperties: false, examples: [{"issuer": "https://token.actions.githubusercontent.com", "subject": "repo:acme/app:ref:refs/heads/main"}, {"issuer": "https://token.actions.githubusercontent.com", "subjectPattern": "repo:acme/.*:ref:refs/heads/main", "claims": {"repository_owner": "acme"}}] })),
    awsIdentity: Type.Optional(Type.Object({
      awsAccount: Type.String({ title: "AWS account", description: "AWS account id: 12 digits, quoted.", examples: ["123456789012"] }),
      arn: Type.Optional(Type.String({ title: "ARN", description: "ARN of the role or user, exactly.", minLength: 1, examples: ["arn:aws:iam::123456789012:role/deploy"] })),
      arnPattern: Type.Optional(Type.String({ title: "ARN pattern", description: "Regular expression the ARN must match (instead of arn).", minLength: 1, examples: ["arn:aws:sts::123456789012:assumed-role/deploy/.*"] })),
      userId: Type.Optional(Type.String({ title: "User id", description: "AWS user id, exactly.", minLength: 1, examples: ["AIDAEXAMPLE"] })),
      userIdPattern: Type.Optional(Type.String({ title: "User id pattern", description: "Regular expression the AWS user id must match (instead of userId).", minLength: 1, examples: ["AROA.*"] })),
    }, { title: "AWS identity", description: "An AWS role or user this identity stands for: the account, and the role/user ARN or user id (exactly or by pattern).", additionalProperties: false, examples: [{"awsAccount": "123456789012", "arnPattern": "arn:aws:sts::123456789012:assumed-role/deploy/.*"}] })),
    staticKeys: Type.Optional(Type.Object({
      issuer: Type.String({ title: "Issuer", description: "Issuer the tokens name (an https URL).", minLength: 1, examples: ["https://issuer.acme.dev"] }),
      subject: Type.String({ title: "Subject", description: "Subject the tokens name.", minLength: 1, examples: ["deployer"] }),
      issuerKeys: Type.String({ title: "Issuer keys", description: "The JWKS document of the signing keys, as JSON text.", minLength: 1, examples: ["{\"keys\":[{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"…\",\"y\":\"…\"}]}"] }),
      expirationTime: Type.Optional(Type.String({ title: "Expiration time", description: "When the keys stop being accepted (RFC 3339).", minLength: 1, examples: ["2027-01-01T00:00:00Z"] })),
      audiences: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { title: "Audiences", description: "Audiences the tokens may name." })),
    }, { title: "Static keys", description: "Tokens signed by the keys given here (a JWKS), with this issuer and subject.", additionalProperties: false })),
    servicePrincipal: Type.Optional(Type.Enum(["COSIGNED", "INGESTER", "CATALOG_SYNCER", "APKO_BUILDER", "SERVICE_PRINCIPAL_COSIGNED", "SERVICE_PRINCIPAL_INGESTER", "SERVICE_PRINCIPAL_CATALOG_SYNCER", "SERVICE_PRINCIPAL_APKO_BUILDER"], { type: "string", title: "Service principal", description: "A platform service this identity stands for: COSIGNED, INGESTER, CATALOG_SYNCER or APKO_BUILDER (SERVICE_PRINCIPAL_<name> is accepted too)." })),
  }),
  role: Type.Object({
    name: Type.String({ title: "Name", description: describeName("role"), pattern: NAME_PATTERN_SOURCE, examples: ["release-manager", "deployer"] }),
    description: Type.Optional(Type.String({ title: "Description", description: "Description of the role. Left out = not managed (the live value is kept); \"\" clears it." })),
    capabilities: Type.Array(Type.String({ pattern: CAPABILITY_NAME_PATTERN_SOURCE, title: "Capability", description: "A capability of the service's catalog (its 153 names are the examples, offered by editors); a name outside it is an error naming the nearest.", examples: [...CAPABILITIES] }), { title: "Capabilities", description: "Capabilities the role grants; at least one.", minItems: 1, uniqueItems: true, examples: [["repo.list", "tag.create"]] }),
  }),
  repo: Type.Object({
    name: Type.String({ title: "Name", description: describeName("repo"), pattern: NAME_PATTERN_SOURCE, examples: ["nginx"] }),
    description: Type.Optional(Type.String({ title: "Description", description: "Description of the repo. Left out = not managed (the live value is kept); \"\" clears it." })),
    readme: Type.Optional(Type.String({ title: "Readme", description: "Markdown readme of the repo. Left out = not managed.", examples: ["# nginx\n\nHardened nginx image.\n"] })),
    bundles: Type.Optional(Type.Array(Type.String({ pattern: "^[a-z0-9-]{1,63}$", title: "Bundle", description: "A bundle keyword: 1 to 63 lowercase letters, digits or -." }), { title: "Bundles", description: "Bundle keywords of the repo, a set (order does not matter; no duplicates), at most 16. Left out = not managed; [] clears them.", maxItems: 16, uniqueItems: true, examples: [["featured", "fips"]] })),
    tier: Type.Optional(Type.Enum([...CATALOG_TIERS, ...CATALOG_TIERS.map((t) => `CATALOG_TIER_${t}`)], { type: "string", title: "Catalog tier", description: "The repo's catalog tier (the API's catalogTier enum): APPLICATION, BASE, FIPS, AI, DEVTOOLS or COMMERCIAL (the full name, CATALOG_TIER_FIPS, is read too). Left out = not managed." })),
    aliases: Type.Optional(Type.Array(Type.String({ pattern: IMAGE_ALIAS_PATTERN_SOURCE, maxLength: 255, title: "Alias", description: "Another name of the image: an image reference with a tag, e.g. nginx:latest or docker.io/library/nginx:1.27 (^[a-zA-Z0-9_.\\-/]*[a-zA-Z0-9_.\\-]:[a-zA-Z0-9_.\\-]+$)." }), { title: "Aliases", description: "Other names of the image, a set (order does not matter; no duplicates), at most 32. Left out = not managed; [] clears them.", maxItems: 32, uniqueItems: true, examples: [["nginx:latest", "docker.io/library/nginx:1.27"]] })),
    activeTags: Type.Optional(Type.Array(Type.String({ pattern: "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$", title: "Tag", description: "A tag name, Docker style (^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$)." }), { title: "Active tags", description: "The tags the catalog keeps current in this repo, a set (order does not matter; no duplicates), at most 256. Left out = not managed; [] clears them.", maxItems: 256, uniqueItems: true, examples: [["latest", "1.27"]] })),
    syncConfig: Type.Optional(Type.Object({
      source: Type.String({ title: "Source", description: "Uid of the catalog repo whose images are synced into this one.", pattern: "^[0-9a-f]{40}(/[0-9a-f]{16})+$", examples: ["0123456789abcdef0123456789abcdef01234567/89abcdef01234567"] }),
      expiration: Type.String({ title: "Expiration", description: "When the sync entitlement ends (RFC 3339); audit's sync-expiring rule warns before it.", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$", examples: ["2027-06-30T00:00:00Z"] }),
      syncApks: Type.Optional(Type.Boolean({ title: "Sync APKs", description: "Sync the APK packages of the images too (default false)." })),
      uniqueTags: Type.Optional(Type.Boolean({ title: "Unique tags", description: "Sync only tags whose digest is unique (default false)." })),
      gracePeriod: Type.Optional(Type.Boolean({ title: "Grace period", description: "Keep syncing for the service's grace period after the expiration (default false)." })),
      amazon: Type.Optional(Type.String({ maxLength: 1024, pattern: MIRROR_PATTERN_SOURCE, title: "Amazon ECR mirror", description: "The repository in Amazon ECR to which the synced images are also copied; \"\" = none.", examples: ["123456789012.dkr.ecr.us-east-1.amazonaws.com/acme-mirror"] })),
      google: Type.Optional(Type.String({ maxLength: 1024, pattern: MIRROR_PATTERN_SOURCE, title: "Google Artifact Registry mirror", description: "The repository in Google Artifact Registry to which the synced images are also copied; \"\" = none.", examples: ["us-docker.pkg.dev/acme-prod/mirror"] })),
      azure: Type.Optional(Type.String({ maxLength: 1024, pattern: MIRROR_PATTERN_SOURCE, title: "Azure Container Registry mirror", description: "The repository in Azure Container Registry to which the synced images are also copied; \"\" = none.", examples: ["acmeprod.azurecr.io/mirror"] })),
      apkoOverlay: Type.Optional(Type.String({ title: "apko overlay", description: "An apko configuration laid over the catalog image's, as JSON text (an object); \"\" = none.", maxLength: 65536, examples: ["{\"contents\":{\"packages\":[\"curl\"]}}"] })),
    }, { title: "Sync config", description: "A catalog entitlement: images synced from a catalog repo until the expiration. Left out = not managed; a change is a PATCH naming the leaves that changed (syncConfig.expiration).", additionalProperties: false, examples: [{ "source": "0123456789abcdef0123456789abcdef01234567/89abcdef01234567", "expiration": "2027-06-30T00:00:00Z", "syncApks": true, "uniqueTags": false }] })),
  }),
  subscription: Type.Object({
    sink: Type.String({ title: "Sink", description: "https URL that receives the events.", pattern: "^https://", examples: ["https://hooks.acme.dev/platform"] }),
  }),
  identityProvider: Type.Object({
    name: Type.String({ title: "Name", description: describeName("identity provider"), pattern: NAME_PATTERN_SOURCE, examples: ["okta"] }),
    description: Type.Optional(Type.String({ title: "Description", description: "Description of the identity provider. Left out = not managed; \"\" clears it." })),
    defaultRole: Type.String({ title: "Default role", description: "Role people who log in through this provider get by default: the nearest custom role of this group or its ancestors, else a built-in; a path with \"/\" names a custom role from the org root.", minLength: 1, examples: ["viewer"] }),
    oidc: Type.Object({
      issuer: Type.String({ title: "Issuer", description: "URL of the OIDC issuer (https).", examples: ["https://acme.okta.com"] }),
      clientId: Type.String({ title: "Client id", description: "OIDC client id.", minLength: 1, examples: ["0oa1b2c3d4"] }),
      clientSecret: Type.Optional(Type.Unsafe<unknown>({"title": "Client secret", "description": "Where the client secret is read at apply time: {fromEnv: PLATFORM_SYNC_SECRET_<NAME>} or {fromFile: path inside the operator's secrets directory (--secrets-dir)}. Never the secret itself.", "examples": [{"fromEnv": "PLATFORM_SYNC_SECRET_OKTA"}, {"fromFile": "okta.txt"}], "anyOf": [{"title": "Secret reference", "type": "object", "additionalProperties": false, "minProperties": 1, "maxProperties": 1, "properties": {"fromEnv": {"title": "From environment", "description": "Name of the environment variable that holds the secret at apply time: PLATFORM_SYNC_SECRET_ and capitals, digits or _, so that a manifest never names the token or another credential of the runner.", "type": "string", "pattern": "^PLATFORM_SYNC_SECRET_[A-Z0-9_]+$"}, "fromFile": {"title": "From file", "description": "Path of a file that holds the secret, relative to the secrets directory the operator names with --secrets-dir or PLATFORM_SYNC_SECRETS_DIR (never the manifests); it must stay inside it.", "type": "string", "minLength": 1}}}, {"type": "string"}]})),
      additionalScopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { title: "Additional scopes", description: "Scopes asked for besides openid.", examples: [["email", "groups"]] })),
      groupsClaim: Type.Optional(Type.String({ title: "Groups claim", description: "Claim of the ID token that lists the person's groups (for group mappings).", examples: ["groups"] })),
      pkceEnabled: Type.Optional(Type.Boolean({ title: "PKCE", description: "Use PKCE in the login flow." })),
    }, { title: "OIDC", description: "The OIDC client: issuer, client id, client secret (a reference), scopes and the claim that lists a person's groups.", additionalProperties: false }),
  }),
  groupMapping: Type.Object({
    externalGroup: Type.String({ title: "External group", description: "The group as the identity provider names it (in its groups claim).", minLength: 1, examples: ["platform-admins"] }),
    role: Type.String({ title: "Role", description: "Role the group's people get: the nearest custom role of the provider's group or its ancestors, else a built-in; a path with \"/\" names a custom role from the org root.", minLength: 1, examples: ["owner", "viewer"] }),
  }),
  accountAssociation: Type.Object({
    name: Type.String({ title: "Name", description: "Name of the association.", minLength: 1, examples: ["acme-cloud"] }),
    description: Type.Optional(Type.String({ title: "Description", description: "Description of the association. Left out = not managed; \"\" clears it." })),
    amazon: Type.Optional(Type.Object({
      account: Type.String({ title: "Account", description: "AWS account id: 12 digits, quoted.", pattern: "^[0-9]{12}$", examples: ["123456789012"] }),
    }, { title: "Amazon", description: "The AWS account.", additionalProperties: false })),
    google: Type.Optional(Type.Object({
      projectId: Type.Optional(Type.String({ minLength: 1, examples: ["acme-prod"], title: "Project id", description: "Google Cloud project id." })),
      projectNumber: Type.Optional(Type.String({ pattern: "^[0-9]+$", examples: ["123456789"], title: "Project number", description: "Google Cloud project number, quoted." })),
    }, { title: "Google", description: "The Google Cloud project.", additionalProperties: false, minProperties: 1 })),
    azure: Type.Optional(Type.Object({
      tenantId: Type.String({ minLength: 1, title: "Tenant id", description: "Azure tenant id." }),
      clientIds: Type.Optional(Type.Unsafe<Record<string, string>>({"type": "object", "additionalProperties": {"type": "string"}, "title": "Client ids", "description": "Azure application client ids by name."})),
    }, { title: "Azure", description: "The Azure tenant and client ids by name.", additionalProperties: false })),
    github: Type.Optional(Type.Object({
      installations: Type.Array(Type.Object({
        installationId: Type.String({ minLength: 1, title: "Installation id", description: "GitHub App installation id, quoted." }),
        name: Type.Optional(Type.String({ title: "Name", description: "Name of the installation." })),
      }, { additionalProperties: false }), { title: "Installations", description: "GitHub App installations of the org." }),
    }, { title: "GitHub", description: "The GitHub App installations.", additionalProperties: false })),
    chainguard: Type.Optional(Type.Object({
      serviceBindings: Type.Optional(Type.Unsafe<Record<string, string>>({"type": "object", "additionalProperties": {"type": "string"}, "title": "Service bindings", "description": "Chainguard service bindings by name."})),
    }, { title: "Chainguard", description: "Chainguard service bindings by name.", additionalProperties: false })),
  }),
  tag: Type.Object({
    name: Type.String({ title: 'Name', description: 'Tag name, Docker style.', pattern: '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$' }),
    digest: Type.String({ title: 'Digest', description: 'Digest of the image the tag names.', pattern: '^sha256:[0-9a-f]{64}$' }),
    deprecated: Type.Optional(Type.Boolean({ title: 'Deprecated', description: 'Set by the service, shown only.' })),
  }),
  terms: Type.Object({
    docId: Type.String({ title: "Document id", description: "A terms document id: a letter or digit, then letters, digits, \".\", \"_\" or \"-\", at most 128 characters (^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$).", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$" }),
  }),
  roleBinding: Type.Object({}),
  groupInvite: Type.Object({
    email: Type.Optional(EMAIL),
    role: ROLE_NAME_REF("whoever accepts the invite will"),
    expirationTime: Type.String({ title: "Expiration time", description: "When the invite stops being accepted (RFC 3339): set by the plan from settings.inviteTtl.", minLength: 1 }),
    singleUse: Type.Optional(Type.Boolean({ title: "Single use", description: "The invite is consumed when accepted (default true)." })),
  }),
};

export type FieldDeclarations = typeof FIELD_DECLARATIONS;
