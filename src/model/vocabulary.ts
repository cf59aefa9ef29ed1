/**
 * The words of the manifest format that several declarations share, written once (issue 41):
 * the name pattern every named kind uses and the capabilities a custom role may hold. The field
 * declarations (kinds/declarations.ts), the manifest's own structure (manifest-declaration.ts)
 * and validate's messages read them from here; the emulator keeps its own, from its contract.
 */

/** Names of the org, groups, identities, roles, repos and identity providers (spec: Identity name pattern). */
export const NAME_PATTERN_SOURCE = '^[a-z0-9 ._-]{1,}$';

/** How a name field is described in the schema: `noun` names what it names ("group", "identity provider"). */
export function describeName(noun: string): string {
  return `Name of the ${noun}, unique among its siblings: lowercase letters, digits, spaces, ".", "_" and "-" (${NAME_PATTERN_SOURCE}).`;
}

/** Capabilities a custom role may hold; anything else is code 3 at the API and an error in validation. */
export const CAPABILITIES = [
  'groups.list',
  'groups.create',
  'groups.update',
  'groups.delete',
  'identity.list',
  'identity.create',
  'identity.update',
  'identity.delete',
  'role_bindings.list',
  'role_bindings.create',
  'role_bindings.delete',
  'repo.list',
  'repo.create',
  'repo.update',
  'repo.delete',
  'tag.list',
  'tag.create',
  'tag.delete',
  'subscriptions.list',
  'subscriptions.create',
  'subscriptions.delete',
  'advisories.list',
  'identity_providers.list',
  'identity_providers.create',
  'identity_providers.update',
  'identity_providers.delete',
  'account_associations.list',
  'account_associations.create',
  'account_associations.update',
  'account_associations.delete',
] as const;
