/**
 * Turns raw API listings of one org into the shared resource model (pure, no I/O): group
 * paths from the uid tree and names, addresses only through the kind descriptors, binding
 * references as canonical keys. The I/O half is read-live-state.ts.
 */
import { escapeValue, hasControl } from '../io/escape.js';
import { joinPath, ORG_ADDRESS, type IdentityKey, type RoleKey } from '../model/address.js';
import { listedFields, type KindDescriptor, type ListedField } from '../model/kind-descriptor.js';
import { CREATE_ORDER, descriptorOf, KIND_INFO, KINDS, type Kind } from '../model/kinds.js';
import type { IncompleteRead, LiveAmbiguity, LiveResource } from '../model/resources.js';
import type { ApiObject } from '../api/types.js';
import { referencedUid } from '../api/hydrated.js';

/** Kinds listed under an org (everything but the org root itself, which is found first). */
export const LISTED_KINDS: readonly Kind[] = KINDS;

/** What readLiveState fetched: the org root and every listing under it. */
export interface RawOrgListings {
  org: ApiObject;
  items: Record<Kind, readonly ApiObject[]>;
  /** Built-in role name → uid. */
  builtinRoles: Record<string, string>;
}

/** The resources built, with the addresses found twice and the resources that could not be placed. */
export interface BuiltLiveResources {
  /** Sorted by address; for an ambiguous address only the first (lowest uid) is kept. */
  resources: LiveResource[];
  ambiguities: LiveAmbiguity[];
  /**
   * Listings shown incomplete by what was built: resources whose parent is missing (never
   * silently dropped) — their own kind's and the parent's kind's listing both —, and
   * identities/roles inside the org that a binding names but their listing did not return.
   */
  unplaced: IncompleteRead[];
}

/** Parent uid of a child uid (`<parent>/<16 hex>`); null for a root uid. */
export function parentUidOf(uid: string): string | null {
  const i = uid.lastIndexOf('/');
  return i < 0 ? null : uid.slice(0, i);
}

/** Copies the API object's timestamps (and an identity's e-mail) onto a resource (they come last among its keys). */
function addTimestamps(
  resource: { createTime?: string; updateTime?: string; lastSeenTime?: string; email?: string },
  obj: ApiObject,
): void {
  if (typeof obj.createTime === 'string') resource.createTime = obj.createTime;
  // When an identity last logged in (the API sets it): what an access review asks of it.
  if (typeof obj.lastSeenTime === 'string') resource.lastSeenTime = obj.lastSeenTime;
  // The address a person signed in with (identities): what `members` are matched by, never managed.
  if (typeof obj.email === 'string' && obj.email !== '' && obj.email.length <= 254) resource.email = obj.email;
  if (typeof obj.updateTime === 'string') resource.updateTime = obj.updateTime;
}

/** Each kind's listed fields and their readers, decided once. */
const LISTED = new Map<string, readonly ListedField[]>();
function listedOf(descriptor: KindDescriptor): readonly ListedField[] {
  let listed = LISTED.get(descriptor.kind);
  if (listed === undefined) LISTED.set(descriptor.kind, (listed = listedFields(descriptor.fields)));
  return listed;
}

/** The managed fields of an API object that its listing carries (others are ignored). */
function readListedFields(listed: readonly ListedField[], obj: ApiObject): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (let i = 0; i < listed.length; i++) {
    const f = listed[i]!;
    const value = f.read(obj[f.key]);
    if (value !== undefined) fields[f.name] = value;
  }
  return fields;
}

/**
 * Parents before children, and among siblings lowest uid first, so that "the first of two
 * ambiguous siblings" is the same on every run: a child's uid is longer than its parent's.
 */
function inPlacementOrder(items: readonly ApiObject[]): readonly ApiObject[] {
  const before = (a: ApiObject, b: ApiObject) =>
    a.uid.length - b.uid.length || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
  // Listings come ordered by uid: siblings of one depth, the most of them, are in order already.
  let sorted = true;
  for (let i = 1; i < items.length && sorted; i++) sorted = before(items[i - 1]!, items[i]!) <= 0;
  return sorted ? items : [...items].sort(before);
}

/** The org root group as a resource: address `org`, path '', no parent. */
export function buildOrgResource(org: ApiObject): LiveResource {
  const resource = {
    kind: 'group',
    address: ORG_ADDRESS,
    groupPath: '',
    parentAddress: null,
    uid: org.uid,
    parentUid: null,
    fields: readListedFields(listedOf(descriptorOf('group')), org),
  } as unknown as LiveResource;
  addTimestamps(resource, org);
  return resource;
}

interface Tally {
  count: number;
  example: string;
  /** The resource that names the example (a binding, a child). */
  by?: string;
}

function tally(counts: Map<Kind, Tally>, kind: Kind, uid: string, by?: string): void {
  const entry = counts.get(kind) ?? { count: 0, example: uid, ...(by !== undefined ? { by } : {}) };
  entry.count++;
  counts.set(kind, entry);
}

/** Builds every live resource of one org from its listings, kind by kind in create order. */
export function buildLiveResources(raw: RawOrgListings): BuiltLiveResources {
  const builder = new LiveResourceBuilder(raw.org, raw.builtinRoles);
  for (const kind of CREATE_ORDER) builder.add(kind, raw.items[kind] ?? []);
  return builder.finish();
}

/**
 * buildLiveResources one kind at a time, in create order (parents and referenced kinds first):
 * the read builds each kind as soon as its listing is in, while the others are still arriving.
 */
export class LiveResourceBuilder {
  private readonly built: LiveResource[];
  /** Resources that hold children (groups, repos), by uid. */
  private readonly parents: Map<string, LiveResource>;
  /** Path from the org root of each referenceable resource (identities, roles), by kind and uid. */
  private readonly pathsByKind = new Map<string, Map<string, string>>();
  private readonly builtinByUid: Map<string, string>;
  private readonly unplaced = new Map<Kind, Tally>();
  /** Parents that resources name but their kind's listing did not return, by the parent's kind. */
  private readonly missingParents = new Map<Kind, Tally>();
  private readonly unlisted = new Map<Kind, Tally>();
  /** Where in CREATE_ORDER the next kind added may be. */
  private next = 0;

  constructor(
    private readonly org: ApiObject,
    builtinRoles: Record<string, string>,
  ) {
    const resource = buildOrgResource(org);
    this.built = [resource];
    this.parents = new Map([[org.uid, resource]]);
    this.builtinByUid = new Map(Object.entries(builtinRoles).map(([name, uid]) => [uid, name]));
  }

  /**
   * A binding may name an identity or role outside the org (kept as `{uid}`), but one whose
   * uid lies inside the org must have been listed: if not, that listing missed it, and the
   * binding's address (`uid:…` instead of a path) would not match the manifests.
   */
  private referenceKey(kind: Kind, uid: string, bindingUid: string): IdentityKey | RoleKey {
    const builtin = this.builtinByUid.get(uid); // flat uids: only a role can have one
    if (builtin !== undefined) return { builtin };
    const path = this.pathsByKind.get(kind)?.get(uid);
    if (path !== undefined) return { path };
    if (uid.startsWith(`${this.org.uid}/`)) tally(this.unlisted, kind, uid, bindingUid);
    return { uid };
  }

  /** Adds every listed resource of `kind`; kinds come in CREATE_ORDER (others are not built). */
  add(kind: Kind, items: readonly ApiObject[]): void {
    const at = CREATE_ORDER.indexOf(kind, this.next);
    if (at < 0) throw new Error(`live build: ${kind} added out of create order`);
    this.next = at + 1;
    const descriptor = descriptorOf(kind);
    const roleRefFields = descriptor.fields.filter((spec) => spec.type === 'roleRef');
    const listed = listedOf(descriptor);
    const paths = descriptor.referenceable ? new Map<string, string>() : undefined;
    if (paths) this.pathsByKind.set(kind, paths);
    // One resource read twice (the org's association by uid, and again by a server whose
    // descendants_of listing includes the org's own) is one resource: de-duplicated by uid
    // (placement order sorts by uid, so a repeat comes right after the first).
    let previousUid: string | undefined;
    const placed = inPlacementOrder(items);
    const of: KindPlacing = { kind, descriptor, listed, references: descriptor.references ?? [], roleRefFields, paths };
    // Indexed loops here and below: this runs per resource, mostly before V8 optimises it, and a
    // for…of then allocates an iterator result per step.
    for (let i = 0; i < placed.length; i++) previousUid = this.place(of, placed[i]!, previousUid);
  }

  /** Builds one listed resource of `kind` (or tallies it unplaced) unless it repeats `previousUid`; returns its uid. */
  private place(of: KindPlacing, obj: ApiObject, previousUid: string | undefined): string {
    const { kind, descriptor, listed, references, roleRefFields, paths } = of;
    if (obj.uid === previousUid) return previousUid;
    if (descriptor.isOrgResource && !descriptor.isOrgResource(obj)) return obj.uid;
    const parentUid = descriptor.uidIsParent
      ? obj.uid
      : descriptor.listedPerParent
        ? this.org.uid
        : parentUidOf(obj.uid);
    const parent = parentUid === null ? undefined : this.parents.get(parentUid);
    if (parentUid === null || parent === undefined || parent.kind !== descriptor.parentKind) {
      tally(this.unplaced, kind, obj.uid);
      // The parent's own listing missed it: that listing is incomplete too, or a plan would
      // create the parent (it may be the very resource the listing left out).
      if (parentUid !== null && parent === undefined)
        tally(this.missingParents, descriptor.parentKind, parentUid, obj.uid);
      return obj.uid;
    }
    const fields = readListedFields(listed, obj);
    for (let r = 0; r < references.length; r++) {
      const ref = references[r] as 'identity' | 'role';
      fields[ref] = this.referenceKey(ref, referencedUid(obj, ref), obj.uid);
    }
    // A role named by uid (an identity provider's defaultRole) reads like a binding's role.
    for (let r = 0; r < roleRefFields.length; r++) {
      const spec = roleRefFields[r]!;
      const value = fields[spec.name] as { uid?: string } | undefined;
      if (value?.uid !== undefined) fields[spec.name] = this.referenceKey('role', value.uid, obj.uid);
    }
    const groupPath = descriptor.ownsGroupPath ? joinPath(parent.groupPath, String(fields.name)) : parent.groupPath;
    const resource = {
      kind,
      address: oneLine(descriptor.address(groupPath, fields, parent, obj.uid)),
      groupPath,
      parentAddress: parent.address,
      uid: obj.uid,
      // The parent's own uid string (equal to parentUid): a slice of the child's uid would be one more string per resource.
      parentUid: parent.uid,
      fields,
    } as unknown as LiveResource;
    addTimestamps(resource, obj);
    this.built.push(resource);
    if (descriptor.holdsChildren) this.parents.set(obj.uid, resource);
    paths?.set(obj.uid, joinPath(groupPath, String(fields.name)));
    return obj.uid;
  }

  /** The resources built, sorted, with the ambiguous addresses and what could not be placed. */
  finish(): BuiltLiveResources {
    return {
      ...separateAmbiguities(this.built),
      unplaced: [
        ...describeUnplaced(this.unplaced),
        ...describeMissingParents(this.missingParents),
        ...describeUnlisted(this.unlisted),
      ],
    };
  }
}

/**
 * A live address is one line: a hostile server's name holding a newline or a control is shown
 * escaped in every view and message (DESIGN.md §8 rev 4). The manifests cannot declare such a
 * name (validate refuses it), so the escaped address only ever names a live-only resource.
 */
function oneLine(address: string): string {
  return hasControl(address) ? escapeValue(address) : address;
}

/** What placing the listed resources of one kind reads, worked out once per kind (LiveResourceBuilder.add). */
interface KindPlacing {
  kind: Kind;
  descriptor: KindDescriptor;
  listed: readonly ListedField[];
  references: readonly string[];
  roleRefFields: readonly { name: string }[];
  /** Where a referenceable kind's paths are recorded, by uid. */
  paths: Map<string, string> | undefined;
}

/** Orders resources by address, by UTF-16 code units (as a plain `sort()` orders strings). */
function byAddress(a: LiveResource, b: LiveResource): number {
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}

/**
 * Keeps the first resource per address and reports every address held by more than one. One
 * stable sort by address, no map of every address: the resources of one address stay in the
 * order they were built, side by side, the first of them kept.
 */
function separateAmbiguities(built: readonly LiveResource[]): {
  resources: LiveResource[];
  ambiguities: LiveAmbiguity[];
} {
  const sorted = built.slice().sort(byAddress);
  const resources: LiveResource[] = [];
  const ambiguities: LiveAmbiguity[] = [];
  for (let i = 0; i < sorted.length; ) {
    const first = sorted[i]!;
    let end = i + 1;
    while (end < sorted.length && sorted[end]!.address === first.address) end++;
    resources.push(first);
    if (end - i > 1) ambiguities.push({ address: first.address, uids: sorted.slice(i, end).map((r) => r.uid) });
    i = end;
  }
  return { resources, ambiguities };
}

function describeUnplaced(counts: Map<Kind, Tally>): IncompleteRead[] {
  return [...counts].map(([kind, { count, example }]) => ({
    kind,
    reason: `${count} ${KIND_INFO[kind].plural} (e.g. ${example}) belong to a parent missing from the listings`,
  }));
}

function describeMissingParents(counts: Map<Kind, Tally>): IncompleteRead[] {
  return [...counts].map(([kind, { count, example, by }]) => ({
    kind,
    reason: `${count} listed resource${count === 1 ? ' names' : 's name'} a parent missing from the ${KIND_INFO[kind].plural} listing (e.g. ${example}, parent of ${by})`,
  }));
}

function describeUnlisted(counts: Map<Kind, Tally>): IncompleteRead[] {
  return [...counts].map(([kind, { count, example, by }]) => ({
    kind,
    reason: `${count} role binding reference${count === 1 ? '' : 's'} to ${KIND_INFO[kind].plural} inside the org missing from the listing (e.g. ${example}, bound by ${by})`,
  }));
}
