/**
 * What the manifests' `renamedFrom` lines say about addresses (DESIGN.md §4 rev 4): for as long
 * as a line stays in the manifests, `ignore` and `protect` globs also match a resource under the
 * old name that line gives it. Read by the planner (which live resources a glob covers) and by
 * `validate` (a glob that matches only through an old name is warned about). Pure.
 */
import { joinPath, namedAddress, parentPath } from './address.js';
import type { DesiredResource } from './resources.js';
import { DESCRIPTORS } from './kinds.js';
import type { KindDescriptor } from './kind-descriptor.js';

/** Kinds whose address is a group path alone: the group, and the association that takes its uid. */
const GROUP_ADDRESSED: ReadonlySet<string> = new Set(
  (DESCRIPTORS as readonly KindDescriptor[])
    .filter((d) => d.kind === 'group' || d.uidIsParent === true)
    .map((d) => d.kind),
);

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
  const resources = desired.resources;
  // Indexed: one pass over every resource, before V8 optimises it (a for…of allocates then).
  for (let i = 0; i < resources.length; i++) {
    const d = resources[i]!;
    if (d.renamedFrom === undefined) continue;
    if (d.kind === 'group')
      groups.push({ path: d.groupPath, oldPath: joinPath(parentPath(d.groupPath), d.renamedFrom) });
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
      // Beneath the group: its path and a '/' (a tag's repo path too). The path alone is the
      // group itself (or its association); an org-level item of that name is not beneath it.
      const under = rest.startsWith(`${path}/`) || (rest === path && GROUP_ADDRESSED.has(v.slice(0, colon)));
      if (under) variants.push(`${v.slice(0, colon + 1)}${oldPath}${rest.slice(path.length)}`);
    }
  }
  return variants;
}
