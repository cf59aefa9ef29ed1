/**
 * Semantic validation and resolution: parsed documents → one DesiredState.
 *
 * Runs on every document the YAML layer could read, schema-valid or not, reading values
 * defensively, so that one run reports the semantic problems of all files alongside the schema
 * ones. Documents describing the same group are merged (lists add up, scalars must agree); a
 * group may appear only once per document. Pure.
 */
import { hasControl } from '../io/escape.js';
import { groupAddress, joinPath, parentPath } from '../model/address.js';
import { readManifestValue, type KindDescriptor } from '../model/kind-descriptor.js';
import type { Diagnostic } from '../model/errors.js';
import { descriptorOf, DESCRIPTORS } from '../model/kinds.js';
import type { DesiredResource, DesiredState, SourceLocation } from '../model/resources.js';
import { unknownCapabilityMessage } from '../model/vocabulary.js';
import { formatLocation, formatPointer } from './diagnostics.js';
import type { ManifestDocument } from './parse-documents.js';
import { SettingsReader } from './resolve-settings.js';
import { pushTo } from '../util/multimap.js';
import { ignoredDeclarations, oldNameGlobWarnings } from './resolve-globs.js';
import { ReferenceResolver } from './resolve-references.js';
import { resolveMembers, type PendingMember } from './resolve-members.js';
import { resolveAccessRules, type PendingAccessRule } from './resolve-access-rules.js';
import { RenameClaims } from './resolve-renames.js';
import { refusalMessage, type Refusal } from './resolve-refusals.js';
import { takeSecrets } from './resolve-secrets.js';
import { nestedResource, NESTED_KINDS, type NestedItem } from './resolve-nested.js';
import {
  asArray,
  asObject,
  asString,
  fieldKey,
  isSegment,
  itemSiteAt,
  siteAt,
  type GroupRecord,
  type Obj,
  type PendingBinding,
  type ReferenceIndex,
  type Site,
} from './resolve-tables.js';

export interface ResolveOptions {
  /** Files read, sorted (becomes DesiredState.files). */
  files: string[];
  /**
   * False when some document could not be read (YAML errors): references that do not resolve
   * may then point into the unreadable part, so they are not reported.
   */
  complete: boolean;
  /**
   * Capabilities outside the service's catalog that live roles hold (the service added them after
   * this version's catalog): accepted like the catalog's (DESIGN.md §2 rev 6). Offline, none.
   */
  knownCapabilities?: ReadonlySet<string>;
}

export interface ResolveResult {
  /** Present only when there are no diagnostics. */
  state?: DesiredState;
  diagnostics: Diagnostic[];
  /** What holds now but will not once the manifests change (a glob that matches only through an old name). */
  warnings?: Diagnostic[];
}

/** A group's declared fields that a document sets (all but its name, which is the key). */
const GROUP_SCALARS = descriptorOf('group').fields.filter((spec) => spec.name !== 'name');
const ROLE_BINDING = descriptorOf('roleBinding');

/** Merges, checks and resolves documents (in file order) into one DesiredState. */
export function resolveDesiredState(documents: readonly ManifestDocument[], options: ResolveOptions): ResolveResult {
  const resolver = new Resolver(options);
  for (const doc of documents) resolver.addDocument(doc);
  return resolver.finish(documents);
}

class Resolver {
  private readonly diagnostics: Diagnostic[] = [];
  private readonly resources: DesiredResource[] = [];
  private readonly declared = new Map<string, SourceLocation>();
  private readonly groups = new Map<string, GroupRecord>();
  /** Identity and custom role paths ('engineering/ci-bot'), and names per group, for references. */
  private readonly referenceable = new Map<string, ReferenceIndex>(
    DESCRIPTORS.filter((d) => d.referenceable).map((d) => [
      d.kind,
      { paths: new Set(), namesByGroup: new Map(), pathsByName: new Map() },
    ]),
  );
  private readonly identities = this.referenceable.get('identity')!;
  private readonly roles = this.referenceable.get('role')!;
  private readonly bindings: PendingBinding[] = [];
  private readonly members: PendingMember[] = [];
  /** `org.accessRules` of every document (resolve-access-rules.ts), checked once everything is declared. */
  private readonly accessRules: PendingAccessRule[] = [];
  /** Items of lists inside another kind's items (group mappings of an identity provider). */
  private readonly nested: NestedItem[] = [];
  /** Role references of other kinds (an identity provider's defaultRole: `field` of the item at `site`), resolved once every role is declared. */
  private readonly roleRefs: {
    resource: DesiredResource;
    field: string;
    site: Site;
    groupPath: string;
    ref: string;
    what: string;
  }[] = [];
  /** `renamedFrom` claims, to refuse two siblings taking one old name (resolve-renames.ts). */
  private readonly renames = new RenameClaims(
    (site, message) => this.report(site, message),
    (path) => this.groupLabel(path),
  );
  private org: { name: string; nameLocation: SourceLocation; source: SourceLocation } | undefined;
  /** `settings`, document by document (resolve-settings.ts). */
  private readonly settings = new SettingsReader((site, message) => this.report(site, message));

  /** How references resolve: against the identities and roles declared so far (resolve-references.ts). */
  private readonly references: ReferenceResolver;

  constructor(private readonly options: ResolveOptions) {
    this.references = new ReferenceResolver(
      this.identities,
      this.roles,
      this.groups,
      options,
      (site, message, target) => this.report(site, message, target),
      (path) => this.groupLabel(path),
    );
  }

  addDocument(doc: ManifestDocument): void {
    const root = asObject(doc.value);
    const org = asObject(root?.org);
    const name = asString(org?.[fieldKey(org, 'name', 'org')]);
    if (!root || !org || name === undefined) return; // the schema reports what is missing
    const nameLocation = doc.locate(['org', 'name']);
    if (!this.org) {
      this.org = { name, nameLocation, source: doc.locate(['org']) };
    } else if (name !== this.org.name) {
      this.report(
        { doc, pointer: ['org', 'name'] },
        `org ${JSON.stringify(name)} differs from org ${JSON.stringify(this.org.name)} declared at ${formatLocation(this.org.nameLocation)}; all manifests of one set must describe the same org`,
      );
      return;
    }
    this.addGroup({ doc, pointer: ['org'] }, '', org);
    asArray(org.accessRules).forEach((raw, i) => {
      const value = asObject(raw);
      if (value) this.accessRules.push({ site: { doc, pointer: ['org', 'accessRules', i] }, value });
    });
    this.settings.add(doc, asObject(root.settings));
  }

  finish(documents: readonly ManifestDocument[]): ResolveResult {
    for (const binding of this.bindings) this.resolveBinding(binding);
    for (const r of this.roleRefs) {
      const key = this.references.resolveRoleName(r.site, r.field, r.groupPath, r.ref, r.what);
      if (key) (r.resource.fields as unknown as Obj)[r.field] = key;
    }
    for (const n of this.nested) {
      const resource = nestedResource(n, (site, field, groupPath, ref, what) =>
        this.references.resolveRoleName(site, field, groupPath, ref, what),
      );
      const refusal = resource && this.claim(resource);
      if (refusal !== undefined) this.refuse(n.site, resource!, refusal, `${n.descriptor.label.one} in ${n.where}`);
    }
    const members = resolveMembers(this.members, {
      resolveRole: (site, groupPath, ref, what) => this.references.resolveRoleName(site, 'role', groupPath, ref, what),
      report: (site, message) => this.report(site, message),
      groupLabel: (path) => this.groupLabel(path),
    });
    const accessRules = resolveAccessRules(this.accessRules, {
      groupPaths: new Set(this.groups.keys()),
      resources: this.resources,
      ...(this.options.knownCapabilities ? { knownCapabilities: this.options.knownCapabilities } : {}),
      resolveRole: (site, groupPath, ref, what) => this.references.resolveRoleName(site, 'role', groupPath, ref, what),
      report: (site, message, target) => this.report(site, message, target),
    });
    this.diagnostics.push(...ignoredDeclarations(this.settings.globs.ignore, this.resources, documents));
    if (this.diagnostics.length > 0 || !this.org) return { diagnostics: this.diagnostics };
    const orgRecord = this.groups.get('')!;
    const uid = orgRecord.scalars.get('uid')?.value as string | undefined;
    const state: DesiredState = {
      org: { name: this.org.name, ...(uid !== undefined ? { uid } : {}), source: this.org.source },
      resources: this.resources,
      ...(members.length > 0 ? { members } : {}),
      ...(accessRules.length > 0 ? { accessRules } : {}),
      settings: {
        prune: this.settings.prune?.value ?? true,
        ignore: [...this.settings.globs.ignore.keys()],
        protect: [...this.settings.globs.protect.keys()],
        ...(this.settings.inviteTtl ? { inviteTtlMs: this.settings.inviteTtl.ms } : {}),
      },
      files: this.options.files,
    };
    return { state, diagnostics: [], warnings: oldNameGlobWarnings(this.settings.globs, this.resources, this.groups) };
  }

  /** Each capability an item names is one of the service's catalog, or one live roles hold (the schema checked the spelling). */
  private checkCapabilities(site: Site, field: string, item: Obj, owner: string): void {
    const names = item[field];
    if (!Array.isArray(names)) return;
    names.forEach((name, index) => {
      const problem =
        typeof name === 'string' ? unknownCapabilityMessage(name, owner, this.options.knownCapabilities) : undefined;
      if (problem) this.report(siteAt(site, field, String(index)), problem, 'value', name as string);
    });
  }

  private report(site: Site, message: string, target: 'key' | 'value' = 'value', unknownCapability?: string): void {
    this.diagnostics.push({
      location: site.doc.locate(site.pointer, target),
      path: formatPointer(site.pointer),
      message,
      ...(unknownCapability !== undefined ? { unknownCapability } : {}),
    });
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
      const place = { groupPath: path, fields: {} };
      record = { resource, place, scalars: new Map(), documents: new Map(), sourceSetsScalars: false };
      this.groups.set(path, record);
      this.resources.push(resource);
    } else {
      const earlier = record.documents.get(site.doc);
      if (earlier) {
        this.report(
          site,
          `${this.groupLabel(path)} is described twice in one document (also at ${formatLocation(earlier)}); describe a group once per document (several files may each describe it)`,
        );
        return;
      }
    }
    record.documents.set(site.doc, source);
    // A group merged from several files points back at the place that describes it (sets its
    // description or uid), not at a file that only adds to its lists.
    if (
      !record.sourceSetsScalars &&
      (GROUP_SCALARS.some((spec) => value[spec.name] !== undefined) || (path === '' && value.uid !== undefined))
    ) {
      record.resource.source = source;
      record.sourceSetsScalars = true;
      if (path === '' && this.org) this.org.source = source;
    }

    // Every declared field of a group but its name (the key), from the one declaration: a field
    // added there is read here without a line of its own.
    for (const spec of GROUP_SCALARS) {
      const field = readManifestValue(spec, value[spec.name]);
      if (field !== undefined && this.setScalar(record, spec.name, field, siteAt(site, spec.name)))
        (record.resource.fields as unknown as Obj)[spec.name] = field;
    }
    if (path === '') {
      const uid = asString(value.uid);
      if (uid !== undefined && this.setScalar(record, 'uid', uid, siteAt(site, 'uid'))) record.resource.uid = uid;
    }
    // The previous name (the org's: a pinned uid whose live name differs is refused without it).
    const renamedFrom = asString(value.renamedFrom);
    const renameSite = siteAt(site, 'renamedFrom');
    if (
      renamedFrom !== undefined &&
      this.renames.check(renameSite, record.resource, renamedFrom) &&
      this.setScalar(record, 'renamedFrom', renamedFrom, renameSite)
    ) {
      record.resource.renamedFrom = renamedFrom;
    }

    // People by e-mail (resolve-members.ts): resolved once every role is declared; a group's before its children's.
    this.eachItem(site, value, 'members', (item, itemSite) =>
      this.members.push({ site: itemSite, groupPath: path, value: item }),
    );
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
          const refusal = this.claim(resource);
          if (refusal !== undefined)
            this.refuse(itemSite, resource, refusal, `${descriptor.describe(id)} of ${this.groupLabel(path)}`);
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
          if (name !== undefined && isSegment(name)) this.addGroup(itemSite, joinPath(path, name), item);
        }
      });
    }
  }

  private eachItem(site: Site, group: Obj, list: string, visit: (item: Obj, site: Site) => void): void {
    const key = fieldKey(group, list, site.pointer.length === 1 ? 'org' : 'group');
    const items = asArray(group[key]);
    for (let i = 0; i < items.length; i++) {
      const item = asObject(items[i]);
      if (item) visit(item, itemSiteAt(site, key, i));
    }
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
    if (
      earlier.value === value ||
      (typeof value === 'object' && JSON.stringify(earlier.value) === JSON.stringify(value))
    )
      return true;
    this.report(
      site,
      `conflicting ${field} for ${this.groupLabel(record.resource.groupPath)}: ${JSON.stringify(value)} here, but ${JSON.stringify(earlier.value)} at ${formatLocation(earlier.location)}; set it in one place only, or to the same value`,
    );
    return false;
  }

  /** Adds a resource unless its address holds a control character or is taken: else why not, for `refuse` to report. */
  private claim(resource: DesiredResource): Refusal | undefined {
    if (hasControl(resource.address)) return 'control';
    const earlier = this.declared.get(resource.address);
    if (earlier) return earlier;
    this.declared.set(resource.address, resource.source);
    this.resources.push(resource);
    return undefined;
  }

  /** Reports a resource `claim` refused, declared at `site`; `what` names it. */
  private refuse(site: Site, resource: DesiredResource, refusal: Refusal, what: string): void {
    this.report(site, refusalMessage(what, resource.address, refusal));
  }

  /** A resource of a group declared at `site`, its address from its descriptor (every field in one literal: this runs per resource). */
  private groupResource(descriptor: KindDescriptor, site: Site, groupPath: string, fields: Obj): DesiredResource {
    const group = this.groups.get(groupPath)!; // recorded before anything in it
    return {
      kind: descriptor.kind,
      address: descriptor.address(groupPath, fields, group.place),
      groupPath,
      // The group's own address string, not a new one per resource (≈3 MB at 100,000 resources).
      parentAddress: group.resource.address,
      source: site.doc.locate(site.pointer),
      fields,
    } as unknown as DesiredResource;
  }

  /** A plain list item of a group (identity, role, repo…), read through its descriptor. */
  private addItem(descriptor: KindDescriptor, site: Site, groupPath: string, item: Obj): void {
    const keyField = descriptor.keyField ?? 'name';
    const key = asString(item[fieldKey(item, keyField, descriptor.manifest!.definition)]);
    if (key === undefined || (keyField === 'name' && !isSegment(key))) return;
    const where = this.groupLabel(groupPath);
    let fatal = false;
    const problems = descriptor.checkItem?.(item, key, where);
    for (let i = 0; problems !== undefined && i < problems.length; i++) {
      const problem = problems[i]!;
      this.report(siteAt(site, ...problem.pointer), problem.message);
      fatal ||= problem.fatal === true;
    }
    if (fatal) return;
    if (descriptor.access?.is === 'capabilities')
      this.checkCapabilities(site, descriptor.access.field, item, descriptor.describe(key));
    const fields: Obj = { [keyField]: key };
    // Only a kind with secrets looks for them, and only a kind with role references keeps a list
    // of them: nothing is allocated for what an item cannot hold (this runs per resource).
    const secrets =
      descriptor.secretPaths === undefined
        ? undefined
        : takeSecrets(descriptor, descriptor.secretPaths, site, item, key, (d) => this.diagnostics.push(d));
    const written = secrets?.item ?? item;
    let roleRefs: { field: string; ref: string }[] | undefined;
    // Indexed: per resource, mostly before V8 optimises it (a for…of allocates then).
    const specs = descriptor.fields;
    for (let i = 0; i < specs.length; i++) {
      const spec = specs[i]!;
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
    for (let r = 0; roleRefs !== undefined && r < roleRefs.length; r++) {
      const { field, ref } = roleRefs[r]!;
      this.roleRefs.push({
        resource,
        field,
        site,
        groupPath,
        ref,
        what: `${field} of ${descriptor.describe(key)} in ${where}`,
      });
    }
    const renamedFrom = descriptor.renameable ? asString(item.renamedFrom) : undefined;
    const refusal = this.claim(resource);
    if (refusal !== undefined) {
      this.refuse(site, resource, refusal, `${descriptor.describe(key)} in ${where}`);
      return;
    }
    // Lists inside this item (an identity provider's groupMappings): resolved once every role is declared.
    const nestedKinds = NESTED_KINDS.get(descriptor.kind);
    for (let n = 0; nestedKinds !== undefined && n < nestedKinds.length; n++) {
      const nested = nestedKinds[n]!;
      const list = nested.manifest!.listKey;
      const items = asArray(item[list]);
      for (let i = 0; i < items.length; i++) {
        const value = asObject(items[i]);
        if (value)
          this.nested.push({
            descriptor: nested,
            site: itemSiteAt(site, list, i),
            groupPath,
            parent: resource,
            value,
            where: `${descriptor.describe(key)} in ${where}`,
          });
      }
    }
    if (renamedFrom !== undefined && this.renames.check(siteAt(site, 'renamedFrom'), resource, renamedFrom))
      resource.renamedFrom = renamedFrom;
    const refs = this.referenceable.get(descriptor.kind);
    if (refs) {
      const path = joinPath(groupPath, key);
      refs.paths.add(path);
      pushTo(refs.namesByGroup, groupPath, key);
      pushTo(refs.pathsByName, key, path);
    }
  }

  /** The one resource of its kind a group may hold (an account association), read through its descriptor. */
  private addSingle(descriptor: KindDescriptor, site: Site, groupPath: string, item: Obj): void {
    const fields: Obj = {};
    for (const spec of descriptor.fields) {
      const value = readManifestValue(spec, item[spec.name]);
      if (value !== undefined) fields[spec.name] = value;
    }
    const resource = this.groupResource(descriptor, site, groupPath, fields);
    const refusal = this.claim(resource);
    if (refusal !== undefined)
      this.refuse(site, resource, refusal, `${descriptor.describe('')} of ${this.groupLabel(groupPath)}`);
  }

  // ---- role bindings --------------------------------------------------------------------

  private resolveBinding({ site, groupPath, value }: PendingBinding): void {
    const identity = this.references.resolveIdentityOf(site, groupPath, value);
    const role = this.references.resolveRoleOf(site, groupPath, value);
    if (!identity || !role) return;
    const resource = this.groupResource(ROLE_BINDING, site, groupPath, { identity, role });
    const refusal = this.claim(resource);
    if (refusal !== undefined) this.refuse(site, resource, refusal, `role binding in ${this.groupLabel(groupPath)}`);
  }
}
