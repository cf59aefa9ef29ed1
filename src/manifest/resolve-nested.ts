/**
 * Items of lists inside another kind's items (an identity provider's `groupMappings`): their
 * plain fields, their role resolved in the parent's group, their address from both. Pure (the
 * resolver's, resolve.ts, which declares what this returns).
 */
import { readManifestValue, type KindDescriptor } from '../model/kind-descriptor.js';
import type { RoleKey } from '../model/address.js';
import { DESCRIPTORS } from '../model/kinds.js';
import type { DesiredResource } from '../model/resources.js';
import { pushTo } from '../util/multimap.js';
import { asString, fieldKey, type Obj, type Site } from './resolve-tables.js';

export interface NestedItem {
  descriptor: KindDescriptor;
  site: Site;
  groupPath: string;
  parent: DesiredResource;
  value: Obj;
  where: string;
}

/** Kinds listed inside the items of another kind (group mappings of an identity provider), by that kind. */
export const NESTED_KINDS: ReadonlyMap<string, readonly KindDescriptor[]> = (() => {
  const byParent = new Map<string, KindDescriptor[]>();
  for (const d of DESCRIPTORS) if (d.manifest?.form === 'nested') pushTo(byParent, d.parentKind, d);
  return byParent;
})();

/**
 * An item of a nested list (a group mapping): its plain fields, its role resolved in the
 * parent's group, its address from both; a duplicate is reported like any other.
 */
export function nestedResource(
  n: NestedItem,
  resolveRole: (site: Site, field: string, groupPath: string, ref: string, what: string) => RoleKey | undefined,
): DesiredResource | undefined {
  const fields: Obj = {};
  for (const spec of n.descriptor.fields) {
    const written = n.value[fieldKey(n.value, spec.name, n.descriptor.manifest!.definition)];
    if (spec.type === 'roleRef') {
      const ref = asString(written);
      if (ref === undefined || ref === '') return undefined; // the schema reports it missing
      const key = resolveRole(n.site, spec.name, n.groupPath, ref, `${n.descriptor.label.one} of ${n.where}`);
      if (!key) return undefined;
      fields[spec.name] = key;
    } else {
      const value = readManifestValue(spec, written);
      if (value === undefined) return undefined; // the schema reports it
      fields[spec.name] = value;
    }
  }
  const resource = {
    kind: n.descriptor.kind,
    address: n.descriptor.address(n.groupPath, fields, { groupPath: n.groupPath, fields: n.parent.fields }),
    groupPath: n.groupPath,
    parentAddress: n.parent.address,
    source: n.site.doc.locate(n.site.pointer),
    fields,
  } as unknown as DesiredResource;
  return resource;
}
