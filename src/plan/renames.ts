/**
 * Renames in place (DESIGN.md §3 `renamedFrom`). Resources are matched by address, and a name
 * is part of the address, so a rename would otherwise read as a delete and a create — a new
 * uid, and everything beneath the old one deleted with it. Instead, a desired resource that
 * says `renamedFrom: <old>` takes over a live sibling of the old name: the live state is
 * re-addressed as if the rename were done (the resource and everything beneath or bound to it
 * carry the new path), so matching pairs them and the field diff turns the rename into one
 * update whose mask holds `name`. Pure.
 */
import { oldNameVariants, renameLinesOf } from '../model/rename-lines.js';
import { compileAddressGlob, groupAddress, joinPath, matchesAnyGlob, parentPath } from '../model/address.js';
import { descriptorOf, subResourceFields } from '../model/kinds.js';
import type { PlanRefusal } from '../model/plan.js';
import {
  fieldsOf,
  type DesiredResource,
  type DesiredState,
  type LiveResource,
  type LiveState,
} from '../model/resources.js';
import { type AddressOrder, readdress } from './readdress.js';

export interface RenameResult {
  /** Live state with every rename applied to addresses and paths (the renamed resources keep their old `name` field). */
  live: LiveState;
  /** New address → the address the resource has live now, for each rename to plan. */
  previousAddress: Map<string, string>;
  refusals: PlanRefusal[];
  /** A live resource's address as read, before any rename (found by kind and uid; mapped on first use). */
  liveAddressOf: (resource: Pick<LiveResource, 'kind' | 'uid' | 'address'>) => string;
}

/** Each live resource's address as read, found by its kind and uid; the map is made on first use. */
function addressesAsRead(live: LiveState): RenameResult['liveAddressOf'] {
  let byUid: Map<string, string> | undefined;
  return (r) =>
    (byUid ??= new Map(live.resources.map((x) => [`${x.kind}\u0000${x.uid}`, x.address]))).get(
      `${r.kind}\u0000${r.uid}`,
    ) ?? r.address;
}

/** The address a desired resource had under its old name (its parent already renamed, if it was). */
function oldAddressOf(d: DesiredResource, oldName: string): string {
  if (descriptorOf(d.kind).ownsGroupPath) return groupAddress(joinPath(parentPath(d.groupPath), oldName));
  return descriptorOf(d.kind).address(
    d.groupPath,
    { ...d.fields, name: oldName },
    { groupPath: d.groupPath, fields: {} },
  );
}

/** Depth of what a rename changes: groups shallowest first, so a nested rename sees its parent's new path. */
function renameOrder(d: DesiredResource): number {
  return (descriptorOf(d.kind).ownsGroupPath ? 0 : 1000) + d.groupPath.split('/').length;
}

export function applyRenames(desired: DesiredState, live: LiveState): RenameResult {
  const previousAddress = new Map<string, string>();
  const refusals: PlanRefusal[] = [];
  const wanted = desired.resources
    .filter((d) => d.renamedFrom !== undefined && descriptorOf(d.kind).renameable)
    .sort((a, b) => renameOrder(a) - renameOrder(b));
  const liveAddressOf = addressesAsRead(live);
  if (wanted.length === 0 || live.org === null) return { live, previousAddress, refusals, liveAddressOf };

  const ambiguous = new Set(live.ambiguities.map((a) => a.address));
  const declared = new Set(desired.resources.map((r) => r.address));
  const ignore = desired.settings.ignore.map(compileAddressGlob);
  const newNames = new Map<string, string>();
  const liveOrder: AddressOrder = {};
  let current = live;
  let byAddress = new Map(current.resources.map((r) => [r.address, r]));
  /** Renames made so far in `byAddress` only, not yet in `current`. */
  let unapplied = false;
  /**
   * The depth (renameOrder) of the group renames among them. A group's rename moves its own
   * address and everything beneath it: a later rename of a group at the same depth meets only
   * its own address, but one deeper, or of anything else, is looked up in the state re-addressed.
   */
  let unappliedGroups: number | undefined;
  for (const d of wanted) {
    const order = renameOrder(d);
    if (unappliedGroups !== undefined && unappliedGroups !== order) {
      current = readdress(live, newNames, liveOrder);
      byAddress = new Map(current.resources.map((r) => [r.address, r]));
      unapplied = false;
      unappliedGroups = undefined;
    }
    const oldAddress = oldAddressOf(d, d.renamedFrom!);
    const before = byAddress.get(oldAddress);
    const after = byAddress.get(d.address);
    if (ambiguous.has(oldAddress)) {
      refusals.push({
        rule: 'ambiguous-live',
        message: `${d.address} is renamedFrom "${d.renamedFrom}", but ${oldAddress} matches several live resources; rename or remove the duplicates by hand, the plan will not guess`,
        addresses: [d.address, oldAddress],
      });
      continue;
    }
    // Both live, but the old name is declared in its own right (a chain of renames once applied:
    // `x2` renamedFrom `web`, `web` renamedFrom `app`): the old name is that resource's now, and
    // this line's rename is done.
    if (before && after && declared.has(oldAddress)) continue;
    if (before && after) {
      refusals.push({
        rule: 'rename-conflict',
        message:
          `${d.address} is renamedFrom "${d.renamedFrom}", but both ${oldAddress} (uid ${before.uid}) and ${d.address} (uid ${after.uid}) exist live; ` +
          `delete or rename one of them by hand, or drop renamedFrom to manage ${d.address} as it is`,
        addresses: [d.address, oldAddress],
      });
      continue;
    }
    // Already renamed (only the new name is live), or nothing to rename (neither): no rename.
    if (!before || before.kind !== d.kind) continue;
    // A rename may not take over what settings.ignore leaves alone (a hand-managed identity
    // renamed into the manifests would be the pull request's to rewrite): refused, not done.
    const liveAddress = ignore.length > 0 ? liveAddressOf(before) : oldAddress;
    if (ignore.length > 0 && (matchesAnyGlob(liveAddress, ignore) || matchesAnyGlob(oldAddress, ignore))) {
      refusals.push({
        rule: 'rename-ignored',
        message: `${d.address} is renamedFrom "${d.renamedFrom}", but ${liveAddress} is ignored (settings.ignore): an ignored resource is left alone, never renamed into the manifests; drop renamedFrom, or narrow the ignore glob`,
        addresses: [d.address, liveAddress],
      });
      continue;
    }
    newNames.set(before.uid, (d.fields as { name: string }).name);
    previousAddress.set(d.address, oldAddress);
    // Of what this rename moves, only its own address can be looked up by the renames still to
    // come before the next readdress (groups of one depth first, then what is not a group: that
    // moves only itself among the renameable kinds), so the map is updated for it alone.
    byAddress.delete(oldAddress);
    byAddress.set(d.address, before);
    unapplied = true;
    if (descriptorOf(d.kind).ownsGroupPath) unappliedGroups = order;
  }
  if (unapplied) current = readdress(live, newNames, liveOrder);
  return { live: current, previousAddress, refusals, liveAddressOf };
}

/**
 * Every address a live resource answers to for `ignore` and `protect`: its address now, as read
 * (before the plan's renames), and each under the old names the manifests' `renamedFrom` lines
 * give them. Undefined when there is nothing but the address itself (no rename of either kind).
 */
export function formerAddressesOf(
  desired: DesiredState,
  asRead: RenameResult['liveAddressOf'] | undefined,
): ((resource: Pick<LiveResource, 'kind' | 'uid' | 'address'>) => string[]) | undefined {
  const lines = renameLinesOf(desired);
  if (asRead === undefined && lines.groups.length === 0 && lines.items.size === 0) return undefined;
  return (resource) => {
    const read = asRead ? asRead(resource) : resource.address;
    const out = oldNameVariants(resource.address, lines);
    if (read !== resource.address) for (const v of oldNameVariants(read, lines)) if (!out.includes(v)) out.push(v);
    return out;
  };
}

/**
 * Addresses of the resources whose sub-resources (KindDescriptor `subResource`) the manifests
 * manage: only those are read. A resource that is being renamed, or that sits in a group being
 * renamed (`renamedFrom`), is still at its old address live — or half-way, after an interrupted
 * apply — so it is named under every old name the manifests' renamedFrom lines give it.
 */
export function managedSubResources(desired: DesiredState): Set<string> {
  const lines = renameLinesOf(desired);
  const addresses = new Set<string>();
  // Indexed, without a closure per resource: this runs once per plan over every resource, before
  // V8 optimises it (a for…of allocates then; docs/performance.md, issue 61 allocation).
  const resources = desired.resources;
  for (let i = 0; i < resources.length; i++) {
    const r = resources[i]!;
    const specs = subResourceFields(r.kind);
    if (specs.length === 0) continue;
    const fields = fieldsOf(r);
    let managed = false;
    for (let j = 0; j < specs.length && !managed; j++) managed = fields[specs[j]!.name] !== undefined;
    if (!managed) continue;
    for (const address of oldNameVariants(r.address, lines)) addresses.add(address);
  }
  return addresses;
}
