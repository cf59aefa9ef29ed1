/** Reading `settings` and naming kinds in messages. Pure. */
import type { Kind } from '../model/kinds.js';
import type { PruneSetting } from '../model/resources.js';

/** `settings.prune` for one kind: a boolean for all, or a map whose absent kinds are pruned. */
export function isPruned(prune: PruneSetting, kind: Kind): boolean {
  return typeof prune === 'boolean' ? prune : (prune[kind] ?? true);
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
  return `${n} ${KIND_LABEL[kind][n === 1 ? 0 : 1]}`;
}

