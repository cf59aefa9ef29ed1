/**
 * What every audit rule reads, worked out once from the manifests and the live org: identities
 * (declared ones as declared, with their manifest location; live ones the manifests leave out as
 * read), role bindings on both sides, which roles grant write access, managed repos and their
 * tags. Pure: no I/O.
 */
import { identityRefAddress, roleRefAddress } from '../plan/references.js';
import { isIgnoredResource, isPruned } from '../plan/settings.js';
import { compileAddressGlob } from '../model/address.js';
import type { IdentityKey, RoleKey } from '../model/address.js';
import type { FieldsByKind } from '../model/kinds.js';
import type { AccessRelation } from '../access/relation.js';
import type { AccessRule } from '../model/access-rules.js';
import { RELATIONSHIP_FIELDS } from '../model/identity-relationships.js';
import type { DesiredResource, DesiredState, LiveResource, LiveState, SourceLocation } from '../model/resources.js';

/**
 * A role — built-in or custom — grants write access when a capability of it does (DESIGN.md §7;
 * rev 6: asked of the capabilities the roles list gives, never of a role's name).
 */
const WRITE_CAPABILITY = /\.(create|update|delete)$/;

/** Whether a role with these capabilities can write: one of them ends in `.create`, `.update` or `.delete`. */
export const canWrite = (capabilities: readonly string[]): boolean =>
  capabilities.some((c) => WRITE_CAPABILITY.test(c));

export interface AuditedIdentity {
  address: string;
  fields: FieldsByKind['identity'];
  /** Where the manifests declare it; absent for a live identity they leave out. */
  location?: SourceLocation;
  /** As read live (timestamps), when it exists. */
  live?: LiveResource & { kind: 'identity' };
}

export interface AuditedBinding {
  address: string;
  identity: IdentityKey;
  role: RoleKey;
  declared: boolean;
  live: boolean;
  location?: SourceLocation;
  /** A live binding the manifests leave out: why it stays — the ignore glob that keeps it, or prune off — or that the next apply deletes it. */
  undeclaredBecause?: { ignoredBy: string } | 'not-pruned' | 'pruned-next-apply';
}

export interface AuditedTag {
  address: string;
  name: string;
  deprecated: boolean;
}

export interface AuditFacts {
  org: { name: string; uid: string | null };
  identities: AuditedIdentity[];
  bindings: AuditedBinding[];
  /** Repos the manifests manage, with the tags live holds under each. */
  managedRepos: { address: string; location: SourceLocation; tags: AuditedTag[] }[];
  /** Live invites (DESIGN.md §7 rev 4: open-invite, invite-expired). */
  invites: { address: string; email?: string; role: RoleKey; expirationTime: string }[];
  /** Every repo with a catalog entitlement, as it will be (declared syncConfig, else live). */
  entitlements: { address: string; expiration: string; location?: SourceLocation }[];
  isWriteRole(role: RoleKey): boolean;
  /** Effective access of the org as the manifests would make it (set by audit()): who can act, and what they hold where. */
  access?: AccessRelation;
  /** Effective access of the org as it is live (set by audit()): what access rules judge (DESIGN.md §7 rev 6). */
  liveAccess?: AccessRelation;
  /** The manifests' `org.accessRules`. */
  accessRules: AccessRule[];
  /** Where the manifests declare a resource, by address. */
  locationOf(address: string): SourceLocation | undefined;
  /** The write roles an identity holds (by any binding, declared or live), by their reference text. */
  writeRolesOf(identityAddress: string): string[];
}

const ofKind = <K extends DesiredResource['kind']>(resources: readonly DesiredResource[], kind: K) =>
  resources.filter((r): r is DesiredResource & { kind: K } => r.kind === kind);
const liveOfKind = <K extends LiveResource['kind']>(resources: readonly LiveResource[], kind: K) =>
  resources.filter((r): r is LiveResource & { kind: K } => r.kind === kind);

/**
 * An identity as it will be once the manifests apply (DESIGN.md §7 "What audit judges"): the
 * declared value of every field the manifest manages, the live value of every field it leaves
 * out. The relationship is one field in this sense: an identity declared without one keeps its
 * live relationship (its staticKeys, its subjectPattern), which audit then judges.
 */
function effectiveIdentityFields(
  declared: FieldsByKind['identity'],
  live: FieldsByKind['identity'] | undefined,
): FieldsByKind['identity'] {
  if (!live) return declared;
  const has = (f: Record<string, unknown>) => RELATIONSHIP_FIELDS.some((r) => f[r] !== undefined && f[r] !== null);
  const out: Record<string, unknown> = { ...(live as unknown as Record<string, unknown>) };
  if (has(declared as unknown as Record<string, unknown>)) for (const r of RELATIONSHIP_FIELDS) delete out[r];
  for (const [k, v] of Object.entries(declared)) if (v !== undefined) out[k] = v;
  return out as unknown as FieldsByKind['identity'];
}

export function gatherFacts(desired: DesiredState, live: LiveState): AuditFacts {
  const liveIdentities = new Map(liveOfKind(live.resources, 'identity').map((r) => [r.address, r]));
  const identities: AuditedIdentity[] = ofKind(desired.resources, 'identity').map((d) => {
    const l = liveIdentities.get(d.address);
    return {
      address: d.address,
      fields: effectiveIdentityFields(d.fields, l?.fields),
      location: d.source,
      ...(l ? { live: l } : {}),
    };
  });
  const declaredIdentities = new Set(identities.map((i) => i.address));
  for (const l of liveIdentities.values())
    if (!declaredIdentities.has(l.address)) identities.push({ address: l.address, fields: l.fields, live: l });

  const ignore = desired.settings.ignore.map((g) => ({ glob: g, compiled: compileAddressGlob(g) }));
  const whyUndeclared = (l: LiveResource): NonNullable<AuditedBinding['undeclaredBecause']> => {
    const glob = ignore.find((g) => isIgnoredResource(l, [g.compiled]));
    if (glob) return { ignoredBy: glob.glob };
    return isPruned(desired.settings.prune, 'roleBinding') ? 'pruned-next-apply' : 'not-pruned';
  };
  const bindings = new Map<string, AuditedBinding>();
  for (const d of ofKind(desired.resources, 'roleBinding'))
    bindings.set(d.address, {
      address: d.address,
      identity: d.fields.identity,
      role: d.fields.role,
      declared: true,
      live: false,
      location: d.source,
    });
  for (const l of liveOfKind(live.resources, 'roleBinding')) {
    const known = bindings.get(l.address);
    if (known) known.live = true;
    else
      bindings.set(l.address, {
        address: l.address,
        identity: l.fields.identity,
        role: l.fields.role,
        declared: false,
        live: true,
        undeclaredBecause: whyUndeclared(l),
      });
  }

  // Capabilities of custom roles by path: as declared, else as live.
  const capabilities = new Map<string, readonly string[]>();
  for (const l of liveOfKind(live.resources, 'role')) capabilities.set(l.address, l.fields.capabilities ?? []);
  for (const d of ofKind(desired.resources, 'role')) capabilities.set(d.address, d.fields.capabilities ?? []);
  const builtinByUid = new Map(Object.entries(live.builtinRoles).map(([name, uid]) => [uid, name]));
  const builtinCapabilities = (name: string | undefined): readonly string[] =>
    name === undefined ? [] : (live.builtinRoleCapabilities?.[name] ?? []);
  const isWriteRole = (role: RoleKey): boolean => {
    if ('builtin' in role) return canWrite(builtinCapabilities(role.builtin));
    if ('uid' in role) return canWrite(builtinCapabilities(builtinByUid.get(role.uid)));
    return canWrite(capabilities.get(roleRefAddress(role)) ?? []);
  };
  const roleText = (role: RoleKey): string =>
    'builtin' in role ? role.builtin : 'path' in role ? role.path : `uid:${role.uid}`;
  const writeRolesOf = (identityAddress: string): string[] =>
    [
      ...new Set(
        [...bindings.values()]
          .filter((b) => identityRefAddress(b.identity) === identityAddress && isWriteRole(b.role))
          .map((b) => roleText(b.role)),
      ),
    ].sort();

  const tagsByRepo = new Map<string, AuditedTag[]>();
  for (const t of liveOfKind(live.resources, 'tag')) {
    if (t.parentAddress === null) continue;
    const list = tagsByRepo.get(t.parentAddress) ?? [];
    list.push({ address: t.address, name: t.fields.name, deprecated: t.fields.deprecated === true });
    tagsByRepo.set(t.parentAddress, list);
  }
  const managedRepos = ofKind(desired.resources, 'repo').map((d) => ({
    address: d.address,
    location: d.source,
    tags: tagsByRepo.get(d.address) ?? [],
  }));

  const invites = liveOfKind(live.resources, 'groupInvite').map((r) => ({
    address: r.address,
    role: r.fields.role,
    expirationTime: r.fields.expirationTime,
    ...(r.fields.email !== undefined ? { email: r.fields.email } : {}),
  }));
  const declaredRepos = new Map(ofKind(desired.resources, 'repo').map((d) => [d.address, d]));
  const entitlements: AuditFacts['entitlements'] = [];
  for (const r of liveOfKind(live.resources, 'repo')) {
    const declared = declaredRepos.get(r.address);
    const expiration = (declared?.fields.syncConfig ?? r.fields.syncConfig)?.expiration;
    if (expiration !== undefined)
      entitlements.push({ address: r.address, expiration, ...(declared ? { location: declared.source } : {}) });
    declaredRepos.delete(r.address);
  }
  for (const d of declaredRepos.values())
    if (d.fields.syncConfig)
      entitlements.push({ address: d.address, expiration: d.fields.syncConfig.expiration, location: d.source });

  const declaredAt = new Map(desired.resources.map((r) => [r.address, r.source]));
  return {
    accessRules: desired.accessRules ?? [],
    locationOf: (address) => declaredAt.get(address),
    org: { name: desired.org.name, uid: live.org?.uid ?? null },
    invites,
    entitlements,
    identities,
    bindings: [...bindings.values()],
    managedRepos,
    isWriteRole,
    writeRolesOf,
  };
}
