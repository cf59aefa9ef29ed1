/**
 * How far an access change reaches (DESIGN.md §4 "Access changes": `groups` = the number of groups
 * where that capability really changes). A change is reported once at the highest group where it
 * starts; its capabilities may change in more or fewer of the groups below (a capability still held
 * on one of them through another binding is not lost there), so a change is said as one entry per
 * reach: `bot` that loses registry.push on the org but keeps registry.pull on `eng` loses
 * `tag.create` on the org and 1 group below, and `repo.list` on the org alone.
 */
import type { AccessChange } from '../model/plan.js';

/**
 * `change` (its capabilities found at `top`), split into one entry per set of groups where its
 * capabilities change, each with that number as `groups`; the widest reach first. `groupsBelow`
 * are the groups at or below `top`; `changedAt(direction, group)` what changes on one.
 */
export function splitByReach(
  change: AccessChange,
  groupsBelow: readonly string[],
  changedAt: (direction: 'gained' | 'lost', group: string) => ReadonlySet<string> | undefined,
): AccessChange[] {
  const byReach = new Map<string, { groups: number; gained: string[]; lost: string[] }>();
  for (const direction of ['gained', 'lost'] as const) {
    for (const cap of change[direction]) {
      const where = groupsBelow.filter((g) => changedAt(direction, g)?.has(cap) === true);
      const key = where.join('\u0000');
      let entry = byReach.get(key);
      if (!entry) byReach.set(key, (entry = { groups: where.length, gained: [], lost: [] }));
      entry[direction].push(cap);
    }
  }
  return [...byReach.values()]
    .sort((a, b) => b.groups - a.groups)
    .map((e) => ({ ...change, gained: e.gained.sort(), lost: e.lost.sort(), groups: e.groups }));
}
