/**
 * What the manifests' `renamedFrom` lines say about addresses (DESIGN.md §4 rev 4): for as long
 * as a line stays in the manifests, `ignore` and `protect` globs also match a resource under the
 * old name that line gives it. Read by the planner (which live resources a glob covers) and by
 * `validate` (a glob that matches only through an old name is warned about). Pure.
 */
import { joinPath, namedAddress, parentPath } from './address.js';
import type { DesiredResource } from './resources.js';

/** Old-name variants of one address are bounded: a path of many renamed groups stops here. */
const MAX_FORMER_VARIANTS = 64;

/** What the manifests' `renamedFrom` lines say: each renamed group's new and old path, each renamed item's new and old address. */
export interface RenameLines {
  groups: { path: string; oldPath: string }[];
  items: ReadonlyMap<string, string>;
}

/** The `renamedFrom` lines of the manifests, whether or not their renames are still to plan. */
export function renameLinesOf(desired: { resources: readonly DesiredResource[] }): RenameLines {
  const groups: RenameLines['groups'] = [];
  const items = new Map<string, string>();
  for (const d of desired.resources) {
    if (d.renamedFrom === undefined) continue;
    if (d.kind === 'group') groups.push({ path: d.groupPath, oldPath: joinPath(parentPath(d.groupPath), d.renamedFrom) });
    else items.set(d.address, namedAddress(d.kind, d.groupPath, d.renamedFrom));
  }
  // Deepest first: a nested rename's old path is written under its parent's new path, which a
  // shallower rename then turns into the old one too.
  groups.sort((a, b) => b.path.length - a.path.length);
  return { groups, items };
}

/**
 * An address under every old name the `renamedFrom` lines give it (DESIGN.md §4: for as long
 * as a line stays, a glob also matches the resource under the old name that line gives it),
 * the address itself first.
 */
export function oldNameVariants(address: string, lines: RenameLines): string[] {
  const variants = [address];
  const item = lines.items.get(address);
  if (item !== undefined) variants.push(item);
  for (const { path, oldPath } of lines.groups) {
    for (const v of [...variants]) {
      if (variants.length >= MAX_FORMER_VARIANTS) break;
      const colon = v.indexOf(':');
      const rest = v.slice(colon + 1);
      const under = rest === path || rest.startsWith(`${path}/`) || rest.startsWith(`${path}:`);
      if (under) variants.push(`${v.slice(0, colon + 1)}${oldPath}${rest.slice(path.length)}`);
    }
  }
  return variants;
}
