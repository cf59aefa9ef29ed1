/**
 * Semantic validation and resolution: parsed documents → one DesiredState.
 *
 * Runs on every document the YAML layer could read, schema-valid or not, reading values
 * defensively, so that one run reports the semantic problems of all files alongside the schema
 * ones. Documents describing the same group are merged (lists add up, scalars must agree); a
 * group may appear only once per document. Pure.
 */
import { escapeValue, hasControl } from '../io/escape.js';
import { renameLinesOf } from '../model/rename-lines.js';
import { compileAddressGlob, groupAddress, joinPath, parentPath, type IdentityKey, type RoleKey } from '../model/address.js';
import { readManifestValue, type KindDescriptor } from '../model/kind-descriptor.js';
import type { Diagnostic } from '../model/errors.js';
import { BUILTIN_ROLE_NAMES, descriptorOf, DESCRIPTORS } from '../model/kinds.js';
import type { DesiredResource, DesiredState, PruneSetting, SecretRef, SourceLocation } from '../model/resources.js';
import { checkSecretRefShape } from '../apply/secrets.js';
import { formatLocation, formatPointer, type Pointer } from './diagnostics.js';
import type { ManifestDocument } from './parse-documents.js';
import { checkAddressGlob, pruneKey, toPruneSetting } from './settings.js';
import { didYouMean, findMisspeltKey, formatList, suggestClosest } from '../util/suggest.js';
import { readDefinitionFields } from './schema.js';
import { pushTo } from '../util/multimap.js';

export interface ResolveOptions {
  /** Files read, sorted (becomes DesiredState.files). */
  files: string[];
  /**
   * False when some document could not be read (YAML errors): references that do not resolve
   * may then point into the unreadable part, so they are not reported.
   */
  complete: boolean;
}

export interface ResolveResult {
  /** Present only when there are no diagnostics. */
  state?: DesiredState;
  diagnostics: Diagnostic[];
  /** What holds now but will not once the manifests change (a glob that matches only through an old name). */
  warnings?: Diagnostic[];
}

/** Where something was written: a document and a path inside it. */
interface Site {
  doc: ManifestDocument;
  pointer: Pointer;
}

/**
 * The site `steps` inside `site`. Its pointer is made by `concat`, which allocates it at its
 * length: an array literal with a spread keeps room to grow (≈230 bytes instead of ≈100 for a
 * pointer of five), and a resource's location keeps its pointer (≈15 MB at 100,000 resources).
 */
function siteAt(site: Site, ...steps: (string | number)[]): Site {
  return { doc: site.doc, pointer: site.pointer.concat(steps) };
}

interface ScalarRecord {
  value: unknown;
  location: SourceLocation;
}

interface GroupRecord {
  resource: DesiredResource & { kind: 'group' };
  /** Scalars set so far (description; uid for the org), for "set twice differently". */
  scalars: Map<string, ScalarRecord>;
  /** Documents that described this group, to refuse a group twice in one document. */
  documents: Map<ManifestDocument, SourceLocation>;
  /** Whether `resource.source` is a place that sets a scalar of the group (its "main" declaration). */
  sourceSetsScalars: boolean;
}

interface PendingBinding {
  site: Site;
  groupPath: string;
  value: Record<string, unknown>;
}

type Obj = Record<string, unknown>;

/** What references resolve against: the declared resources of one referenceable kind. */
interface ReferenceIndex {
  paths: Set<string>;
  namesByGroup: Map<string, string[]>;
  pathsByName: Map<string, string[]>;
}

/**
 * The key that holds `field` in `obj`: the field itself, or when it is absent, a key misspelt
 * for it ("nmae", "identites"). The schema reports the typo once, with its "did you mean"; the
 * checks here then judge what was meant instead of echoing the typo as a missing name or an
 * unknown reference. `definition` names the schema definition whose fields are the known keys.
 */
function fieldKey(obj: Obj, field: string, definition: string): string {
  if (obj[field] !== undefined) return field;
  return findMisspeltKey(obj, field, readDefinitionFields(definition)) ?? field;
}

function asObject(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}
function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

const BUILTIN_ROLES: ReadonlySet<string> = new Set(BUILTIN_ROLE_NAMES);
/** A group's declared fields that a document sets (all but its name, which is the key). */
const GROUP_SCALARS = descriptorOf('group').fields.filter((spec) => spec.name !== 'name');
const NO_ROLE_REFS: readonly { field: string; ref: string }[] = [];

/** Kinds listed inside the items of another kind (group mappings of an identity provider), by that kind. */
const NESTED_KINDS: ReadonlyMap<string, readonly KindDescriptor[]> = (() => {
  const byParent = new Map<string, KindDescriptor[]>();
  for (const d of DESCRIPTORS) if (d.manifest?.form === 'nested') pushTo(byParent, d.parentKind, d);
  return byParent;
})();

/** Merges, checks and resolves documents (in file order) into one DesiredState. */
export function resolveDesiredState(documents: readonly ManifestDocument[], options: ResolveOptions): ResolveResult {
  const resolver = new Resolver(options);
  for (const doc of documents) resolver.addDocument(doc);
  return resolver.finish();
}

class Resolver {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly resources: DesiredResource[] = [];
  private readonly declared = new Map<string, SourceLocation>();
  private readonly groups = new Map<string, GroupRecord>();
  /** Identity and custom role paths ('engineering/ci-bot'), and names per group, for references. */
  private readonly referenceable = new Map<string, ReferenceIndex>(
    DESCRIPTORS.filter((d) => d.referenceable).map((d) => [d.kind, { paths: new Set(), namesByGroup: new Map(), pathsByName: new Map() }]),
  );
  private readonly identities = this.referenceable.get('identity')!;
  private readonly roles = this.referenceable.get('role')!;
  private readonly bindings: PendingBinding[] = [];
  /** Items of lists inside another kind's items (group mappings of an identity provider). */
  private readonly nested: { descriptor: KindDescriptor; site: Site; groupPath: string; parent: DesiredResource; value: Obj; where: string }[] = [];
  /** Role references of other kinds (an identity provider's defaultRole: `field` of the item at `site`), resolved once every role is declared. */
  private readonly roleRefs: { resource: DesiredResource; field: string; site: Site; groupPath: string; ref: string; what: string }[] = [];
  /** `renamedFrom` claims by kind, parent and old name, to refuse two siblings taking one old name. */
  private readonly renames = new Map<string, { address: string; what: string; location: SourceLocation }>();
  private org: { name: string; nameLocation: SourceLocation; source: SourceLocation } | undefined;
  private prune: { value: PruneSetting; written: unknown; location: SourceLocation } | undefined;
  private readonly globs = { ignore: new Map<string, SourceLocation>(), protect: new Map<string, SourceLocation>() };

  constructor(private readonly options: ResolveOptions) {}

  addDocument(doc: ManifestDocument): void {
    const root = asObject(doc.value);
    const org = asObject(root?.org);
    const name = asString(org && org[fieldKey(org, 'name', 'org')]);
    if (!root || !org || name === undefined) return; // the schema reports what is missing
    const nameLocation = doc.locate(['org', 'name']);
    if (!this.org) {
      this.org = { name, nameLocation, source: doc.locate(['org']) };
    } else if (name !== this.org.name) {
      this.report({ doc, pointer: ['org', 'name'] }, `org ${JSON.stringify(name)} differs from org ${JSON.stringify(this.org.name)} declared at ${formatLocation(this.org.nameLocation)}; all manifests of one set must describe the same org`);
      return;
    }
    this.addGroup({ doc, pointer: ['org'] }, '', org);
    this.addSettings(doc, asObject(root.settings));
  }

  finish(): ResolveResult {
    for (const binding of this.bindings) this.resolveBinding(binding);
    for (const r of this.roleRefs) {
      const key = this.resolveRoleName(r.site, r.field, r.groupPath, r.ref, r.what);
      if (key) (r.resource.fields as unknown as Obj)[r.field] = key;
    }
    for (const n of this.nested) this.addNestedItem(n);
    this.checkIgnoredDeclarations();
    if (this.diagnostics.length > 0 || !this.org) return { diagnostics: this.diagnostics };
    const orgRecord = this.groups.get('')!;
    const uid = orgRecord.scalars.get('uid')?.value as string | undefined;
    const state: DesiredState = {
      org: { name: this.org.name, ...(uid !== undefined ? { uid } : {}), source: this.org.source },
      resources: this.resources,
      settings: {
        prune: this.prune?.value ?? true,
        ignore: [...this.globs.ignore.keys()],
        protect: [...this.globs.protect.keys()],
      },
      files: this.options.files,
    };
    return { state, diagnostics: [], warnings: this.oldNameGlobWarnings() };
  }

  /**
   * Globs that match only through an old name a `renamedFrom` line gives (DESIGN.md §4 rev 4):
   * they hold while the line stays, and stop holding — silently — once it is dropped, so say so
   * now. A glob "names" an old path when its text after the kind starts with it and no group of
   * that path is declared.
   */
  private oldNameGlobWarnings(): Diagnostic[] {
    if (this.globs.ignore.size === 0 && this.globs.protect.size === 0) return [];
    const lines = renameLinesOf({ resources: this.resources });
    if (lines.groups.length === 0 && lines.items.size === 0) return [];
    const warnings: Diagnostic[] = [];
    for (const list of ['ignore', 'protect'] as const) {
      for (const [glob, location] of this.globs[list]) {
        const colon = glob.indexOf(':');
        const kind = glob.slice(0, colon + 1);
        const rest = glob.slice(colon + 1);
        const group = lines.groups.find(({ oldPath }) => (rest === oldPath || rest.startsWith(`${oldPath}/`) || rest.startsWith(`${oldPath}:`)) && !this.groups.has(oldPath));
        const item = [...lines.items].find(([, old]) => old === glob);
        if (!group && !item) continue;
        const [oldName, owner, updated] = group
          ? [group.oldPath, `group ${JSON.stringify(group.path)}`, `${kind}${group.path}${rest.slice(group.oldPath.length)}`]
          : [item![1], item![0], item![0]];
        warnings.push({
          location,
          path: '',
          message: `settings.${list} glob ${JSON.stringify(glob)} matches only through the old name ${JSON.stringify(oldName)} that renamedFrom gives ${owner}; it holds while that renamedFrom line stays: update it (to ${JSON.stringify(updated)}) before the line is removed`,
        });
      }
    }
    return warnings;
  }

  private report(site: Site, message: string, target: 'key' | 'value' = 'value'): void {
    this.diagnostics.push({ location: site.doc.locate(site.pointer, target), path: formatPointer(site.pointer), message });
  }

  private readonly groupLabels = new Map<string, string>();

  /** `org "acme"`, `group "eng/platform"`: how messages name a group (asked for every item, so kept). */
  private groupLabel(path: string): string {
    if (path === '') return `org ${JSON.stringify(this.org?.name ?? '')}`;
    let label = this.groupLabels.get(path);
    if (label === undefined) {
      label = `group ${JSON.stringify(path)}`;
      this.groupLabels.set(path, label);
    }
    return label;
  }

  // ---- groups and what they hold -------------------------------------------------------

  private addGroup(site: Site, path: string, value: Obj): void {
    const source = site.doc.locate(site.pointer);
    let record = this.groups.get(path);
    if (!record) {
      const resource: DesiredResource & { kind: 'group' } = {
        kind: 'group',
        address: groupAddress(path),
        groupPath: path,
        parentAddress: path === '' ? null : this.groups.get(parentPath(path))!.resource.address,
        fields: { name: path === '' ? this.org!.name : path.slice(path.lastIndexOf('/') + 1) },
        source,
      };
      record = { resource, scalars: new Map(), documents: new Map(), sourceSetsScalars: false };
      this.groups.set(path, record);
      this.resources.push(resource);
    } else {
      const earlier = record.documents.get(site.doc);
      if (earlier) {
        this.report(site, `${this.groupLabel(path)} is described twice in one document (also at ${formatLocation(earlier)}); describe a group once per document (several files may each describe it)`);
        return;
      }
    }
    record.documents.set(site.doc, source);
    // A group merged from several files points back at the place that describes it (sets its
    // description or uid), not at a file that only adds to its lists.
    if (!record.sourceSetsScalars && (GROUP_SCALARS.some((spec) => value[spec.name] !== undefined) || (path === '' && value.uid !== undefined))) {
      record.resource.source = source;
      record.sourceSetsScalars = true;
      if (path === '' && this.org) this.org.source = source;
    }

    // Every declared field of a group but its name (the key), from the one declaration: a field
    // added there is read here without a line of its own.
    for (const spec of GROUP_SCALARS) {
      const field = readManifestValue(spec, value[spec.name]);
      if (field !== undefined && this.setScalar(record, spec.name, field, siteAt(site, spec.name))) (record.resource.fields as unknown as Obj)[spec.name] = field;
    }
    if (path === '') {
      const uid = asString(value.uid);
      if (uid !== undefined && this.setScalar(record, 'uid', uid, siteAt(site, 'uid'))) record.resource.uid = uid;
      // The org's previous name: a pinned uid whose live name differs is refused without it.
      const renamedFrom = asString(value.renamedFrom);
      const renameSite = siteAt(site, 'renamedFrom');
      if (renamedFrom !== undefined && this.checkRename(renameSite, record.resource, renamedFrom) && this.setScalar(record, 'renamedFrom', renamedFrom, renameSite)) {
        record.resource.renamedFrom = renamedFrom;
      }
    } else {
      const renamedFrom = asString(value.renamedFrom);
      const renameSite = siteAt(site, 'renamedFrom');
      if (renamedFrom !== undefined && this.checkRename(renameSite, record.resource, renamedFrom) && this.setScalar(record, 'renamedFrom', renamedFrom, renameSite)) {
        record.resource.renamedFrom = renamedFrom;
      }
    }

    for (const descriptor of DESCRIPTORS) {
      const form = descriptor.manifest;
      if (!form) continue;
      if (form.form === 'nested') continue; // listed inside an item of its parent kind (addItem)
      if (form.form === 'values') {
        const key = fieldKey(value, form.listKey, site.pointer.length === 1 ? 'org' : 'group');
        asArray(value[key]).forEach((raw, i) => {
          const id = asString(raw);
          if (id === undefined || id === '') return; // the schema reports the type
          const itemSite = siteAt(site, key, i);
          const fields = { [descriptor.keyField ?? 'name']: id };
          const resource = this.groupResource(descriptor, itemSite, path, fields);
          this.declare(itemSite, resource, () => `${descriptor.describe(id)} of ${this.groupLabel(path)}`);
        });
        continue;
      }
      if (form.form === 'single') {
        const key = fieldKey(value, form.listKey, site.pointer.length === 1 ? 'org' : 'group');
        const item = asObject(value[key]);
        if (item) this.addSingle(descriptor, siteAt(site, key), path, item);
        continue;
      }
      this.eachItem(site, value, form.listKey, (item, itemSite) => {
        if (form.form === 'item') this.addItem(descriptor, itemSite, path, item);
        else if (form.form === 'binding') this.bindings.push({ site: itemSite, groupPath: path, value: item });
        else {
          const name = asString(item[fieldKey(item, 'name', form.definition)]);
          if (name !== undefined) this.addGroup(itemSite, joinPath(path, name), item);
        }
      });
    }
  }

  private eachItem(site: Site, group: Obj, list: string, visit: (item: Obj, site: Site) => void): void {
    const key = fieldKey(group, list, site.pointer.length === 1 ? 'org' : 'group');
    asArray(group[key]).forEach((raw, i) => {
      const item = asObject(raw);
      if (item) visit(item, siteAt(site, key, i));
    });
  }

  /**
   * `renamedFrom` must name another name, and no two siblings of one kind may claim the same old
   * name (the plan could not tell which one the live resource becomes). False when reported.
   */
  private checkRename(site: Site, resource: DesiredResource, renamedFrom: string): boolean {
    const name = (resource.fields as { name?: string }).name ?? '';
    const what = `${descriptorOf(resource.kind).describe(name)} in ${this.groupLabel(resource.kind === 'group' ? parentPath(resource.groupPath) : resource.groupPath)}`;
    if (renamedFrom === name) {
      this.report(site, `renamedFrom ${JSON.stringify(renamedFrom)} of ${what} is its own name; expected the previous name, or remove renamedFrom`);
      return false;
    }
    const parent = resource.kind === 'group' ? parentPath(resource.groupPath) : resource.groupPath;
    const key = `${resource.kind}\u0000${parent}\u0000${renamedFrom}`;
    const earlier = this.renames.get(key);
    if (earlier && earlier.address !== resource.address) {
      this.report(site, `${what} and ${earlier.what} (at ${formatLocation(earlier.location)}) are both renamedFrom ${JSON.stringify(renamedFrom)}; expected one ${resource.kind} to take over the old name`);
      return false;
    }
    this.renames.set(key, { address: resource.address, what, location: site.doc.locate(site.pointer) });
    return true;
  }

  /** Records a scalar of a group; false (and a diagnostic naming both places) when it conflicts. */
  private setScalar(record: GroupRecord, field: string, value: unknown, site: Site): boolean {
    const location = site.doc.locate(site.pointer);
    const earlier = record.scalars.get(field);
    if (!earlier) {
      record.scalars.set(field, { value, location });
      return true;
    }
    // A structured field agrees when it is the same value, written anywhere.
    if (earlier.value === value || (typeof value === 'object' && JSON.stringify(earlier.value) === JSON.stringify(value))) return true;
    this.report(
      site,
      `conflicting ${field} for ${this.groupLabel(record.resource.groupPath)}: ${JSON.stringify(value)} here, but ${JSON.stringify(earlier.value)} at ${formatLocation(earlier.location)}; set it in one place only, or to the same value`,
    );
    return false;
  }

  /**
   * Adds a resource unless its address is taken; a duplicate is reported with both places.
   * `what` names the resource in that message; it is built only then (this runs per resource).
   */
  private declare(site: Site, resource: DesiredResource, what: () => string): boolean {
    if (hasControl(resource.address)) {
      // A name, key or reference on two lines would forge the lines after it in every view
      // (DESIGN.md §8 rev 4): refused here as the emulator refuses it.
      this.report(site, `${escapeValue(what())} has a name or key holding a control character (a newline, a tab, …): ${escapeValue(resource.address)}; a name is one line of printable text`);
      return false;
    }
    const earlier = this.declared.get(resource.address);
    if (earlier) {
      this.report(site, `${what()} is declared twice (address ${resource.address}); also declared at ${formatLocation(earlier)}`);
      return false;
    }
    this.declared.set(resource.address, resource.source);
    this.resources.push(resource);
    return true;
  }

  /** A resource of a group declared at `site`, its address from its descriptor (every field in one literal: this runs per resource). */
  private groupResource(descriptor: KindDescriptor, site: Site, groupPath: string, fields: Obj): DesiredResource {
    return {
      kind: descriptor.kind,
      address: descriptor.address(groupPath, fields, { groupPath, fields: {} }),
      groupPath,
      // The group's own address string, not a new one per resource (≈3 MB at 100,000 resources);
      // a group is recorded before anything in it.
      parentAddress: this.groups.get(groupPath)!.resource.address,
      source: site.doc.locate(site.pointer),
      fields,
    } as unknown as DesiredResource;
  }

  /** A plain list item of a group (identity, role, repo…), read through its descriptor. */
  private addItem(descriptor: KindDescriptor, site: Site, groupPath: string, item: Obj): void {
    const keyField = descriptor.keyField ?? 'name';
    const key = asString(item[fieldKey(item, keyField, descriptor.manifest!.definition)]);
    if (key === undefined) return;
    const where = this.groupLabel(groupPath);
    let fatal = false;
    for (const problem of descriptor.checkItem?.(item, key, where) ?? []) {
      this.report(siteAt(site, ...problem.pointer), problem.message);
      fatal ||= problem.fatal === true;
    }
    if (fatal) return;
    const fields: Obj = { [keyField]: key };
    // Only a kind with secrets looks for them, and only a kind with role references keeps a list
    // of them: nothing is allocated for what an item cannot hold (this runs per resource).
    const secrets = descriptor.secretPaths === undefined ? undefined : this.takeSecrets(descriptor, descriptor.secretPaths, site, item, key);
    const written = secrets?.item ?? item;
    let roleRefs: { field: string; ref: string }[] | undefined;
    for (const spec of descriptor.fields) {
      if (spec.name === keyField) continue;
      if (spec.type === 'roleRef') {
        const ref = asString(item[spec.name]);
        if (ref !== undefined && ref !== '') (roleRefs ??= []).push({ field: spec.name, ref });
        continue;
      }
      const value = readManifestValue(spec, written[spec.name]);
      if (value !== undefined) fields[spec.name] = value;
    }
    const resource = this.groupResource(descriptor, site, groupPath, fields);
    if (secrets !== undefined && Object.keys(secrets.refs).length > 0) resource.secrets = secrets.refs;
    for (const { field, ref } of roleRefs ?? NO_ROLE_REFS) {
      this.roleRefs.push({ resource, field, site, groupPath, ref, what: `${field} of ${descriptor.describe(key)} in ${where}` });
    }
    const renamedFrom = descriptor.renameable ? asString(item.renamedFrom) : undefined;
    if (!this.declare(site, resource, () => `${descriptor.describe(key)} in ${where}`)) return;
    // Lists inside this item (an identity provider's groupMappings): resolved once every role is declared.
    for (const nested of NESTED_KINDS.get(descriptor.kind) ?? []) {
      const list = nested.manifest!.listKey;
      asArray(item[list]).forEach((raw, i) => {
        const value = asObject(raw);
        if (value) this.nested.push({ descriptor: nested, site: siteAt(site, list, i), groupPath, parent: resource, value, where: `${descriptor.describe(key)} in ${where}` });
      });
    }
    if (renamedFrom !== undefined && this.checkRename(siteAt(site, 'renamedFrom'), resource, renamedFrom)) resource.renamedFrom = renamedFrom;
    const refs = this.referenceable.get(descriptor.kind);
    if (refs) {
      const path = joinPath(groupPath, key);
      refs.paths.add(path);
      pushTo(refs.namesByGroup, groupPath, key);
      pushTo(refs.pathsByName, key, path);
    }
  }

  /**
   * A kind's secrets (`oidc.clientSecret`) are references, never values: each is taken out of the
   * item (so it is never a field, never compared, planned as a value or exported) and kept as a
   * SecretRef, a file path made absolute against the manifest's own directory.
   */
  private takeSecrets(descriptor: KindDescriptor, secretPaths: readonly string[], site: Site, item: Obj, key: string): { item: Obj; refs: Record<string, SecretRef> } {
    const refs: Record<string, SecretRef> = {};
    const holderOf = (root: Obj, parts: string[]) => parts.slice(0, -1).reduce<Obj | undefined>((o, p) => asObject(o?.[p]), root);
    const present = secretPaths.map((path) => path.split('.')).filter((parts) => holderOf(item, parts)?.[parts[parts.length - 1]!] !== undefined);
    // Most items hold no secret: only one that does is copied (its secrets are taken out of the copy).
    if (present.length === 0) return { item, refs };
    const copy: Obj = structuredClone(item);
    for (const parts of present) {
      const path = parts.join('.');
      const holder = holderOf(copy, parts)!;
      const last = parts[parts.length - 1]!;
      const raw = holder[last];
      delete holder[last];
      const ref = asObject(raw);
      const fromEnv = asString(ref?.fromEnv);
      const fromFile = asString(ref?.fromFile);
      // A pull request wrote these (DESIGN.md §3, §8): only PLATFORM_SYNC_SECRET_* variables, only
      // relative paths inside the operator's secrets directory (checked again where they are read).
      const written: SecretRef | undefined = fromEnv !== undefined && fromFile === undefined ? { fromEnv } : fromFile !== undefined && fromEnv === undefined ? { fromFile } : undefined;
      const problem = written ? checkSecretRefShape(written) : undefined;
      if (written && problem) {
        this.report(siteAt(site, ...parts, 'fromEnv' in written ? 'fromEnv' : 'fromFile'), `${problem} (${path} of ${descriptor.describe(key)})`);
      } else if (written) refs[path] = written;
      else if (ref !== undefined) {
        this.report(siteAt(site, ...parts), `${path} of ${descriptor.describe(key)} must be exactly one of {fromEnv: VARIABLE} or {fromFile: path}`);
      }
    }
    return { item: copy, refs };
  }

  /** The one resource of its kind a group may hold (an account association), read through its descriptor. */
  private addSingle(descriptor: KindDescriptor, site: Site, groupPath: string, item: Obj): void {
    const fields: Obj = {};
    for (const spec of descriptor.fields) {
      const value = readManifestValue(spec, item[spec.name]);
      if (value !== undefined) fields[spec.name] = value;
    }
    const resource = this.groupResource(descriptor, site, groupPath, fields);
    this.declare(site, resource, () => `${descriptor.describe('')} of ${this.groupLabel(groupPath)}`);
  }

  /**
   * An item of a nested list (a group mapping): its plain fields, its role resolved in the
   * parent's group, its address from both; a duplicate is reported like any other.
   */
  private addNestedItem(n: { descriptor: KindDescriptor; site: Site; groupPath: string; parent: DesiredResource; value: Obj; where: string }): void {
    const fields: Obj = {};
    for (const spec of n.descriptor.fields) {
      const written = n.value[fieldKey(n.value, spec.name, n.descriptor.manifest!.definition)];
      if (spec.type === 'roleRef') {
        const ref = asString(written);
        if (ref === undefined || ref === '') return; // the schema reports it missing
        const key = this.resolveRoleName(n.site, spec.name, n.groupPath, ref, `${n.descriptor.label.one} of ${n.where}`);
        if (!key) return;
        fields[spec.name] = key;
      } else {
        const value = readManifestValue(spec, written);
        if (value === undefined) return; // the schema reports it
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
    this.declare(n.site, resource, () => `${n.descriptor.label.one} in ${n.where}`);
  }

  // ---- role bindings --------------------------------------------------------------------

  private resolveBinding({ site, groupPath, value }: PendingBinding): void {
    const identity = this.resolveIdentityOf(site, groupPath, value);
    const role = this.resolveRoleOf(site, groupPath, value);
    if (!identity || !role) return;
    const resource = this.groupResource(descriptorOf('roleBinding'), site, groupPath, { identity, role });
    this.declare(site, resource, () => `role binding in ${this.groupLabel(groupPath)}`);
  }

  /** Exactly one of `<field>` / `<field>Uid`; reports none-or-both and returns which is set. */
  private pickReference(site: Site, groupPath: string, value: Obj, field: 'identity' | 'role'): { ref: string; refKey: string } | { uid: string } | undefined {
    const refKey = fieldKey(value, field, 'roleBinding');
    const uidKey = fieldKey(value, `${field}Uid`, 'roleBinding');
    const ref = asString(value[refKey]);
    const uid = asString(value[uidKey]);
    if (ref !== undefined && uid !== undefined) {
      // Points at whichever of the two keys comes second: that is where the contradiction appears.
      const [first, second] = [refKey, uidKey].map((key) => site.doc.locate(site.pointer.concat(key), 'key'));
      const later = first!.line > second!.line || (first!.line === second!.line && first!.column > second!.column) ? refKey : uidKey;
      this.report(
        siteAt(site, later),
        `ambiguous ${field} in role binding of ${this.groupLabel(groupPath)}: both ${field} ${JSON.stringify(ref)} and ${field}Uid ${JSON.stringify(uid)} are given; expected exactly one of ${field}, ${field}Uid`,
        'key',
      );
      return undefined;
    }
    if (ref === undefined && uid === undefined) {
      if (value[refKey] === undefined && value[uidKey] === undefined) {
        const how = field === 'identity' ? 'identity (a name, or a /path from the org root)' : 'role (a custom or built-in role name)';
        this.report(site, `role binding in ${this.groupLabel(groupPath)} has no ${field}; expected ${how} or ${field}Uid`);
      }
      return undefined; // a wrong type is the schema's to report
    }
    return ref !== undefined ? { ref, refKey } : { uid: uid! };
  }

  private resolveIdentityOf(site: Site, groupPath: string, value: Obj): IdentityKey | undefined {
    const picked = this.pickReference(site, groupPath, value, 'identity');
    if (!picked || 'uid' in picked) return picked;
    const { ref, refKey } = picked;
    if (ref.includes('/')) {
      const path = ref.replace(/^\/+/, '');
      if (this.identities.paths.has(path)) return { path };
      if (this.options.complete) {
        this.report(siteAt(site, refKey), `unknown identity ${JSON.stringify(ref)} in role binding of ${this.groupLabel(groupPath)}: a path is from the org root, and ${this.explainMissingPath('identity', path)}; expected the path of a declared identity, or identityUid for one the manifests do not manage`);
      }
      return undefined;
    }
    const path = joinPath(groupPath, ref);
    if (this.identities.paths.has(path)) return { path };
    if (this.options.complete) {
      const elsewhere = (this.identities.pathsByName.get(ref) ?? []).map((p) => `"/${p}"`);
      const siblings = this.identities.namesByGroup.get(groupPath) ?? [];
      let hint = elsewhere.length > 0 ? ` (did you mean ${elsewhere.join(' or ')}? a name with "/" is a path from the org root)` : didYouMean(ref, siblings);
      if (hint === '') {
        // A misspelt name of an identity in another group (`releas-bot` for `/release-bot`).
        const close = suggestClosest(ref, [...this.identities.pathsByName.keys()]);
        const paths = close === undefined ? [] : (this.identities.pathsByName.get(close) ?? []).map((p) => `"/${p}"`);
        if (paths.length > 0) hint = ` (did you mean ${paths.join(' or ')}? a name with "/" is a path from the org root)`;
      }
      const expected = siblings.length > 0 ? `expected one of ${formatList(siblings)}` : `${this.groupLabel(groupPath)} declares no identities`;
      this.report(
        siteAt(site, refKey),
        `unknown identity ${JSON.stringify(ref)} in role binding of ${this.groupLabel(groupPath)}: a bare name is an identity of the same group; ${expected}${hint}`,
      );
    }
    return undefined;
  }

  private resolveRoleOf(site: Site, groupPath: string, value: Obj): RoleKey | undefined {
    const picked = this.pickReference(site, groupPath, value, 'role');
    if (!picked || 'uid' in picked) return picked;
    return this.resolveRoleName(site, picked.refKey, groupPath, picked.ref, `role binding of ${this.groupLabel(groupPath)}`);
  }

  /**
   * A role named by a resource of `groupPath` (a binding, an identity provider's default role):
   * a path from the org root, else the nearest custom role of the group or its ancestors, else a
   * built-in. The reference is `refKey` of the item at `at` (its site is made only for a message);
   * `what` names the referring place in messages ("role binding of org \"acme\"").
   */
  private resolveRoleName(at: Site, refKey: string, groupPath: string, ref: string, what: string): RoleKey | undefined {
    if (ref.includes('/')) {
      const path = ref.replace(/^\/+/, '');
      if (this.roles.paths.has(path)) {
        if (isGroupOrAncestor(parentPath(path), groupPath)) return { path };
        // The API refuses it too: a binding may only use custom roles of its group or its ancestors.
        this.report(
          siteAt(at, refKey),
          `role ${JSON.stringify(ref)} in ${what} belongs to ${this.groupLabel(parentPath(path))}, which is not this group or one of its ancestors; it may use the custom roles of its own group and its ancestors, or a built-in role`,
        );
        return undefined;
      }
      if (this.options.complete) {
        this.report(siteAt(at, refKey), `unknown role ${JSON.stringify(ref)} in ${what}: a path is from the org root, and ${this.explainMissingPath('role', path)}; expected the path of a declared custom role of this group or its ancestors, or roleUid`);
      }
      return undefined;
    }
    // Nearest first: the binding's own group, then each ancestor up to the org.
    for (let g = groupPath; ; g = parentPath(g)) {
      const path = joinPath(g, ref);
      if (this.roles.paths.has(path)) return { path };
      if (g === '') break;
    }
    if (BUILTIN_ROLES.has(ref)) return { builtin: ref };
    if (this.options.complete) {
      const visible: string[] = [];
      for (let g = groupPath; ; g = parentPath(g)) {
        visible.push(...(this.roles.namesByGroup.get(g) ?? []));
        if (g === '') break;
      }
      const custom = visible.length > 0 ? `a custom role of this group or its ancestors (${formatList(visible)})` : 'a custom role of this group or its ancestors (none are declared)';
      const elsewhere = (this.roles.pathsByName.get(ref) ?? []).map((p) => this.groupLabel(parentPath(p)));
      const note =
        elsewhere.length > 0
          ? `; a custom role ${JSON.stringify(ref)} exists in ${elsewhere.join(' and ')}, but only custom roles of its own group and its ancestors may be used`
          : didYouMean(ref, [...visible, ...BUILTIN_ROLE_NAMES]);
      this.report(siteAt(at, refKey), `unknown role ${JSON.stringify(ref)} in ${what}; expected ${custom} or a built-in role (${BUILTIN_ROLE_NAMES.join(', ')})${note}`);
    }
    return undefined;
  }

  /** Why a path from the org root names nothing: its group is not declared, or lacks the name. */
  private explainMissingPath(kind: 'identity' | 'role', path: string): string {
    const group = parentPath(path);
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!this.groups.has(group)) {
      return `there is no group ${JSON.stringify(group)}${didYouMean(group, [...this.groups.keys()].filter((g) => g !== ''))}`;
    }
    const names = (kind === 'identity' ? this.identities.namesByGroup : this.roles.namesByGroup).get(group) ?? [];
    const what = kind === 'identity' ? 'identity' : 'custom role';
    const hint = didYouMean(name, names) || (names.length > 0 ? ` (it declares ${formatList(names)})` : '');
    return `${this.groupLabel(group)} declares no ${what} ${JSON.stringify(name)}${hint}`;
  }

  // ---- settings -------------------------------------------------------------------------

  private addSettings(doc: ManifestDocument, settings: Obj | undefined): void {
    if (!settings) return;
    const prune = toPruneSetting(settings.prune);
    if (prune !== undefined) {
      const site = { doc, pointer: ['settings', 'prune'] };
      const location = doc.locate(site.pointer);
      // Messages quote the value as written (`{widgets: true}`), not the converted setting.
      if (!this.prune) this.prune = { value: prune, written: settings.prune, location };
      else if (pruneKey(this.prune.value) !== pruneKey(prune)) {
        this.report(site, `conflicting settings.prune: ${JSON.stringify(settings.prune)} here, but ${JSON.stringify(this.prune.written)} at ${formatLocation(this.prune.location)}; set it in one place only, or to the same value`);
      }
    }
    for (const list of ['ignore', 'protect'] as const) {
      asArray(settings[list]).forEach((raw, i) => {
        const glob = asString(raw);
        if (glob === undefined || glob === '') return; // the schema reports the type
        const site = { doc, pointer: ['settings', list, i] };
        const problem = checkAddressGlob(glob, list);
        if (problem) this.report(site, problem);
        else if (!this.globs[list].has(glob)) this.globs[list].set(glob, doc.locate(site.pointer));
      });
    }
  }

  /** A resource both declared and ignored is a contradiction: ignore means "never touch". */
  private checkIgnoredDeclarations(): void {
    if (this.globs.ignore.size === 0) return;
    const globs = [...this.globs.ignore].map(([glob, location]) => ({ glob, location, re: compileAddressGlob(glob) }));
    for (const resource of this.resources) {
      const hit = globs.find((g) => g.re.test(resource.address));
      if (hit) {
        this.diagnostics.push({
          location: resource.source,
          path: '',
          message: `${resource.address} is declared here but matches ignore glob ${JSON.stringify(hit.glob)} at ${formatLocation(hit.location)}, which leaves it alone entirely; remove the declaration or narrow the glob`,
        });
      }
    }
  }
}

/** True when `owner` is `group` itself or one of its ancestors (the org '' is everyone's). */
function isGroupOrAncestor(owner: string, group: string): boolean {
  return owner === '' || owner === group || group.startsWith(`${owner}/`);
}
