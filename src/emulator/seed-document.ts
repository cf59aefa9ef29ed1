/**
 * What an emulator seed is (see seed.ts): its shape, nested like a manifest, the fields each
 * object may hold, and reading one from a YAML or JSON file (bounded; a syntax error is named
 * by where it is, never by what the file says).
 */
import type { AwsIdentity, ClaimMatch, StaticKeys } from '../model/identity-relationships.js';
import { RELATIONSHIPS } from './relationships.js';
import { FileReadError, readTextSyncBounded } from '../io/read-file.js';
import { lazyRequire } from '../util/lazy-require.js';
import { UserError } from '../model/errors.js';

/** Loaded for a YAML seed only: an emulator started without one does not compile yaml. */
const yaml = lazyRequire<typeof import('yaml')>('yaml');

export interface SeedTag {
  name: string;
  digest: string;
  deprecated?: boolean;
}
export interface SeedRepo {
  name: string;
  description?: string;
  readme?: string;
  tags?: SeedTag[];
}
export interface SeedIdentity {
  name: string;
  description?: string;
  /** When it last logged in (RFC 3339); only the service sets it, a seed may (to show an unused identity). */
  lastSeenTime?: string;
  /** At most one relationship, as the API takes it (DESIGN.md §2). */
  claimMatch?: ClaimMatch;
  awsIdentity?: AwsIdentity;
  staticKeys?: StaticKeys;
  servicePrincipal?: string;
  /** A person's sign-in address (only the service sets it: a seed may, to show a member present). */
  email?: string;
}

/**
 * An invite (DESIGN.md §2): `role` resolves like a binding's; `expirationTime` may be past (an
 * expired invite stays listed); `code`, when given, is what accepts it (the emulator keeps its hash).
 */
export interface SeedGroupInvite {
  role: string;
  email?: string;
  expirationTime: string;
  singleUse?: boolean;
  code?: string;
}
export interface SeedRole {
  name: string;
  description?: string;
  capabilities: string[];
}
/**
 * `identity`: a sibling's name, or a path from the org root (`engineering/ci-bot`, `/ci-bot`).
 * `role`: a custom role of this group or an ancestor (nearest wins), else a built-in.
 */
export interface SeedRoleBinding {
  identity: string;
  role: string;
}
export interface SeedSubscription {
  sink: string;
}
/** An identity provider: `defaultRole` and each mapping's `role` resolve like a binding's role. */
export interface SeedIdentityProvider {
  name: string;
  description?: string;
  defaultRole: string;
  oidc: {
    issuer: string;
    clientId: string;
    clientSecret: string;
    additionalScopes?: string[];
    groupsClaim?: string;
    pkceEnabled?: boolean;
  };
  groupMappings?: { externalGroup: string; role: string }[];
}
export interface SeedGroup {
  name: string;
  description?: string;
  identities?: SeedIdentity[];
  roles?: SeedRole[];
  repos?: SeedRepo[];
  subscriptions?: SeedSubscription[];
  roleBindings?: SeedRoleBinding[];
  identityProviders?: SeedIdentityProvider[];
  /** At most one per group; it takes the group's uid. */
  accountAssociation?: { name: string; description?: string } & Record<string, unknown>;
  groupInvites?: SeedGroupInvite[];
  groups?: SeedGroup[];
}
/** A root group; `uid` (40 lowercase hex) pins its uid; `acceptedTerms` are its accepted documents. */
export interface SeedOrg extends SeedGroup {
  uid?: string;
  acceptedTerms?: string[];
}
/** An advisory; with `org` it lives under that org, else it is global (every token sees it). */
export interface SeedAdvisory {
  advisoryId: string;
  artifactName: string;
  org?: string;
}
export interface SeedDocument {
  orgs?: SeedOrg[];
  advisories?: SeedAdvisory[];
}

export interface SeedResult {
  /** Org name → root group uid. */
  orgUids: Record<string, string>;
  /**
   * Every created resource by a readable key: `group:acme/engineering`, `identity:acme/ci-bot`,
   * `role:acme/deployer`, `repo:acme/nginx`, `tag:acme/nginx:1.0`, `subscription:acme/<sink>`,
   * `roleBinding:acme/<identity path>=<role>`, `advisory:<advisoryId>`; orgs are `group:acme`.
   */
  uids: Record<string, string>;
  /** Number of resources created. */
  count: number;
}

/** A seed file is invalid; the message lists every problem with its location. */
export class SeedError extends UserError {
  constructor(source: string, problems: string[]) {
    super(
      'EMULATOR_SEED_INVALID',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in emulator seed ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
  }
}

/** Largest seed file read. */
const MAX_SEED_BYTES = 256 * 1024 * 1024;

/** Reads a YAML or JSON seed file. */
export function readSeedFile(path: string): SeedDocument {
  let text: string;
  try {
    text = readTextSyncBounded(path, { maxBytes: MAX_SEED_BYTES });
  } catch (err) {
    throw new UserError(
      'EMULATOR_SEED_UNREADABLE',
      `cannot read emulator seed ${err instanceof FileReadError ? err.message : path}`,
    );
  }
  try {
    return (yaml().parse(text) ?? {}) as SeedDocument;
  } catch (err) {
    // Where, never what: a seed is no manifest, and its content is never quoted (DESIGN.md §8 rev 4).
    const at = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new SeedError(path, [`not valid YAML/JSON${at ? ` (at line ${at.line}, column ${at.col})` : ''}`]);
  }
}

const GROUP_KEYS = [
  'name',
  'description',
  'identities',
  'roles',
  'repos',
  'subscriptions',
  'roleBindings',
  'identityProviders',
  'accountAssociation',
  'groupInvites',
  'groups',
];
export const KEYS: Record<string, readonly string[]> = {
  org: ['uid', 'acceptedTerms', ...GROUP_KEYS],
  identityProvider: ['name', 'description', 'defaultRole', 'oidc', 'groupMappings'],
  groupMapping: ['externalGroup', 'role'],
  accountAssociation: ['name', 'description', 'amazon', 'google', 'azure', 'github', 'chainguard'],
  group: GROUP_KEYS,
  identity: ['name', 'description', 'lastSeenTime', 'email', ...RELATIONSHIPS],
  groupInvite: ['role', 'email', 'expirationTime', 'singleUse', 'code'],
  role: ['name', 'description', 'capabilities'],
  repo: ['name', 'description', 'readme', 'tags'],
  tag: ['name', 'digest', 'deprecated'],
  subscription: ['sink'],
  roleBinding: ['identity', 'role'],
  advisory: ['advisoryId', 'artifactName', 'org'],
  document: ['orgs', 'advisories'],
};
