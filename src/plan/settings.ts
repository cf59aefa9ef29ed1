/** Reading `settings` and naming kinds and resources in messages. Pure. */
import type { Kind } from '../model/kinds.js';
import type { PruneSetting } from '../model/resources.js';
import { PRUNE_KEYS } from '../model/kinds.js';

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

const KIND_LABEL: Record<Kind, [string, string]> = {
  group: ['group', 'groups'],
  identity: ['identity', 'identities'],
  role: ['role', 'roles'],
  roleBinding: ['role binding', 'role bindings'],
  repo: ['repo', 'repos'],
  tag: ['tag', 'tags'],
  subscription: ['subscription', 'subscriptions'],
};

/** "1 repo", "3 role bindings". */
export function countLabel(kind: Kind, n: number): string {
  return `${n} ${kindLabel(kind, n)}`;
}

/** "repo", "role bindings": the kind as a reader says it, for `n` of them. */
export function kindLabel(kind: Kind, n: number): string {
  return KIND_LABEL[kind][n === 1 ? 0 : 1];
}

/** At most this many names in one message; a refusal's `addresses` always lists all of them. */
const NAMES_IN_MESSAGE = 10;

/** "a, b, c" — the first ten, then "and N more". */
export function listNames(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_IN_MESSAGE).join(', ');
  return names.length > NAMES_IN_MESSAGE ? `${shown} and ${names.length - NAMES_IN_MESSAGE} more` : shown;
}
