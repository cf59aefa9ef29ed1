/** Reading `settings` and naming kinds and resources in messages. Pure. */
import type { Kind } from '../model/kinds.js';
import type { PruneSetting, ResourceUnion } from '../model/resources.js';
import { matchesAnyGlob, type AddressGlob } from '../model/address.js';
import { identityRefAddress } from './references.js';
import { IDENTITY_GRANT_KIND, PRUNE_KEYS } from '../model/kinds.js';

/** `settings.prune` for one kind: a boolean for all, or a map whose absent kinds are pruned. */
export function isPruned(prune: PruneSetting, kind: Kind): boolean {
  return typeof prune === 'boolean' ? prune : (prune[kind] ?? true);
}

/** The key a manifest writes under `settings.prune` for a kind (`roleBindings`), if it has one. */
function pruneKeyOf(kind: Kind): string | undefined {
  return Object.entries(PRUNE_KEYS).find(([, k]) => k === kind)?.[0];
}

/**
 * The setting that turns pruning of `kind` off, as the user wrote it: `settings.prune.roleBindings
 * is false`, or `settings.prune is false` (tags have no key of their own). Only for a kind that
 * {@link isPruned} says is not pruned.
 */
export function describePruneOff(prune: PruneSetting, kind: Kind): string {
  const key = pruneKeyOf(kind);
  return typeof prune === 'object' && key !== undefined && prune[kind] === false
    ? `settings.prune.${key} is false`
    : 'settings.prune is false';
}

/** How to turn pruning of `kind` back on, in the manifest's words. */
export function describePruneOn(prune: PruneSetting, kind: Kind): string {
  const key = pruneKeyOf(kind);
  return typeof prune === 'object' && key !== undefined ? `settings.prune.${key}: true` : 'settings.prune: true';
}

export { countLabel, kindLabel } from '../model/kinds.js';

/** At most this many names in one message; a refusal's `addresses` always lists all of them. */
const NAMES_IN_MESSAGE = 10;

/** "a, b, c" — the first ten, then "and N more". */
export function listNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_IN_MESSAGE).join(', ');
  return names.length > NAMES_IN_MESSAGE ? `${shown} and ${names.length - NAMES_IN_MESSAGE} more` : shown;
}

/**
 * Whether `settings.ignore` leaves a resource alone: its address matches a glob, or it is a role
 * binding of an ignored identity (DESIGN.md §4: ignoring people never revokes the access granted
 * to them by hand). An outside identity is `identity:uid:<uid>` here.
 */
export function isIgnoredResource(
  resource: Pick<ResourceUnion, 'kind' | 'address' | 'fields'>,
  ignore: readonly AddressGlob[],
): boolean {
  if (ignore.length === 0) return false;
  if (matchesAnyGlob(resource.address, ignore)) return true;
  return (
    resource.kind === IDENTITY_GRANT_KIND &&
    matchesAnyGlob(
      identityRefAddress((resource as Extract<ResourceUnion, { kind: 'roleBinding' }>).fields.identity),
      ignore,
    )
  );
}
