/**
 * `adopt` (DESIGN.md §4 "Drift both ways (rev 6)"): drift's other answer. The plan against live
 * says what differs; each step is turned around into an edit of the manifests, so that they
 * describe live — a changed field in place, a resource made by hand added where its group is
 * described, one deleted by hand removed, an invite as a `members` line — and the edited files
 * are planned again against the same live state: the result is only returned when that plan is
 * empty (apart from what adopt leaves on purpose: protected resources deleted by hand, and what
 * holds them).
 */
import { resolve } from 'node:path';
import { Document, isMap, isSeq, type Node, type YAMLMap, type YAMLSeq } from 'yaml';
import type { ApiClient } from '../api/types.js';
import { assertDriftReadable, describeDrift, type DriftReport } from '../drift/drift-report.js';
import { readTextSyncBounded } from '../io/read-file.js';
import { validateManifestTexts } from '../manifest/index.js';
import { DEFAULT_MAX_FILE_BYTES } from '../manifest/index.js';
import { asciiLower } from '../model/email.js';
import {
  type AddressGlob,
  compileAddressGlob,
  groupAddress,
  matchesAnyGlob,
  ORG_ADDRESS,
  referenceText,
} from '../model/address.js';
import { UserError } from '../model/errors.js';
import type { KindDescriptor } from '../model/kind-descriptor.js';
import {
  declaringGroupPath,
  descriptorOf,
  GROUP_KIND,
  IDENTITY_GRANT_KIND,
  INVITE_KIND,
  PRINCIPAL_KIND,
  type Kind,
} from '../model/kinds.js';
import type { PlanStep } from '../model/plan.js';
import type { DesiredMember, DesiredResource, LiveResource, LiveState } from '../model/resources.js';
import { planFromManifests } from '../pipeline.js';
import { plan as makePlan } from '../plan/index.js';
import { indexManifests, siteAt, type ManifestIndex, type Site } from './locate.js';
import { keepDeclaredSecrets, liveItemNode, memberNode } from './live-nodes.js';
import { appendItems, insertPair, reconcile, removeItems, removePair } from './yaml-edits.js';
import { editedText, pairOf, parseEditable, type EditableFile } from './yaml-text.js';

export const ADOPT_FORMAT_VERSION = 1;

/** What adopt did about one drifted resource. */
export interface AdoptItem {
  /** As drift says it: changed, made by hand (`unmanaged`), deleted by hand (`missing`). */
  category: 'changed' | 'unmanaged' | 'missing';
  kind: Kind;
  address: string;
  /** `changed`: fields rewritten; `added`/`removed`: an item; `left`: not adopted (see `reason`). */
  action: 'changed' | 'added' | 'removed' | 'left';
  /** The manifest file edited. */
  file?: string;
  /** The manifest fields rewritten (changed). */
  fields?: string[];
  reason?: string;
}

export interface AdoptedFile {
  file: string;
  before: string;
  after: string;
}

export interface AdoptResult {
  org: { name: string; uid?: string };
  items: AdoptItem[];
  /** The files whose text changes, in the order the manifests were read. */
  files: AdoptedFile[];
  /** The drift the edits answer (for the pull request's body). */
  drift: DriftReport;
}

export interface AdoptOptions {
  /** Where resources made by hand go (one of the manifest files read); default the file describing their group. */
  into?: string;
  now?: number;
}

/** Reads the manifests and live, and returns the manifests rewritten to describe live (nothing is written here). */
export async function adoptDrift(paths: string[], client: ApiClient, options: AdoptOptions = {}): Promise<AdoptResult> {
  const planning = { allowMassDelete: true, ...(options.now !== undefined ? { now: options.now } : {}) };
  const { desired, live, plan, now } = await planFromManifests(paths, client, planning);
  assertDriftReadable(plan);
  const into = options.into === undefined ? undefined : resolve(options.into);
  const files = desired.files.map((file) =>
    parseEditable(file, readTextSyncBounded(file, { maxBytes: DEFAULT_MAX_FILE_BYTES })),
  );
  const intoFile = into === undefined ? undefined : files.find((f) => resolve(f.file) === into);
  if (into !== undefined && !intoFile) {
    throw new UserError(
      'ADOPT_INTO',
      `--into ${options.into} is not one of the manifest files read (${desired.files.join(', ')}); nothing was written`,
    );
  }
  const index = indexManifests(files);
  const protect = desired.settings.protect.map(compileAddressGlob);
  const edit = new Adoption(desired.resources, desired.members ?? [], live, index, intoFile, protect);
  for (const step of plan.steps) edit.step(step);
  edit.flushAdditions();

  const after = files.map((f) => ({ file: f.file, before: f.text, after: editedText(f) }));
  checkAdopted(after, live, now, edit.items);
  const byUid = new Map(live.resources.map((r) => [r.uid, r.address]));
  return {
    org: plan.org,
    items: edit.items,
    files: after.filter((f) => f.after !== f.before),
    drift: describeDrift(plan, { addressOfUid: (uid) => byUid.get(uid) }),
  };
}

/**
 * The edited manifests must validate and plan to nothing against the same live state (what is
 * left on purpose aside): otherwise adopt names what it could not write, and nothing is written.
 */
function checkAdopted(files: readonly AdoptedFile[], live: LiveState, now: number, items: readonly AdoptItem[]): void {
  const { state, diagnostics } = validateManifestTexts(files.map((f) => ({ file: f.file, text: f.after })));
  const left = new Set(items.filter((i) => i.action === 'left').map((i) => i.address));
  const rest = state
    ? makePlan(state, live, { allowMassDelete: true, now }).steps.filter((s) => !left.has(s.address))
    : [];
  if (diagnostics.length === 0 && rest.length === 0) return;
  throw new UserError(
    'ADOPT_INCOMPLETE',
    'cannot adopt: the rewritten manifests would not describe live, so nothing was written:\n' +
      [
        ...diagnostics.slice(0, 20).map((d) => `  - ${d.message}`),
        ...rest.slice(0, 20).map((s) => `  - ${s.action} ${s.address} would remain`),
      ].join('\n'),
  );
}

/** A list to append to: where it is (a map describing a group, or an item), its key, the new nodes. */
interface Pending {
  file: EditableFile;
  map: YAMLMap;
  key: string;
  nodes: Node[];
}

class Adoption {
  readonly items: AdoptItem[] = [];
  private readonly desiredByAddress: Map<string, DesiredResource>;
  private readonly liveByUid: Map<string, LiveResource>;
  private readonly liveByAddress: Map<string, LiveResource>;
  /** Nodes built for resources made by hand, by address: what their own children go into. */
  private readonly built = new Map<string, YAMLMap>();
  private readonly pending = new Map<string, Pending>();
  /** Items to remove, by the list holding them. */
  private readonly removals = new Map<YAMLSeq, { site: Site; items: Node[] }>();
  private readonly scratch = new Document();
  private readonly people: Map<string, string>;
  private readonly addedDeletes = new Set<string>();
  /** Declared resources holding a protected one beneath them, by address → the first such one. */
  private readonly holdsProtected: Map<string, string>;

  constructor(
    desired: readonly DesiredResource[],
    private readonly members: readonly DesiredMember[],
    private readonly live: LiveState,
    private readonly index: ManifestIndex,
    private readonly into: EditableFile | undefined,
    private readonly protect: readonly AddressGlob[],
  ) {
    this.desiredByAddress = new Map(desired.map((r) => [r.address, r]));
    this.holdsProtected = holdersOfProtected(desired, this.desiredByAddress, protect);
    this.liveByUid = new Map(live.resources.map((r) => [r.uid, r]));
    this.liveByAddress = new Map(live.resources.map((r) => [r.address, r]));
    // People (DESIGN.md §4): identities the service reports an e-mail for, by their path.
    this.people = new Map(
      live.resources.flatMap((r) =>
        r.kind === PRINCIPAL_KIND && r.email !== undefined ? [[pathOf(r.address), r.email]] : [],
      ),
    );
  }

  step(step: PlanStep): void {
    if (step.action === 'update') return this.changed(step);
    if (step.action === 'delete') {
      const r = this.liveByUid.get(step.uid);
      if (r) this.addedDeletes.add(r.address);
      return;
    }
    this.removed(step);
  }

  /** A field changed by hand: rewritten in place. */
  private changed(step: Extract<PlanStep, { action: 'update' }>): void {
    const r = this.desiredByAddress.get(step.address);
    const liveR = this.liveByUid.get(step.uid);
    const site = r && siteAt(this.index, r.source);
    if (!r || !liveR || !site || !isMap(site.node))
      return this.leave(step, 'changed', 'its declaration was not found in the files');
    const descriptor = descriptorOf(r.kind) as KindDescriptor;
    const map = site.node;
    const written = r.kind === IDENTITY_GRANT_KIND ? bindingFields(liveR) : this.liveFields(liveR);
    keepDeclaredSecrets(descriptor, map, written);
    const fields: string[] = [];
    for (const spec of descriptor.fields) {
      const api = spec.apiName ?? spec.name;
      const reference = (m: string): boolean =>
        r.kind === IDENTITY_GRANT_KIND && /^(role|identity)/.test(m) && /^(role|identity)/.test(spec.name);
      if (!step.updateMask.some((m) => m === api || m.startsWith(`${api}.`) || reference(m))) continue;
      fields.push(spec.name);
    }
    if (step.updateMask.includes('name')) {
      const renamed = pairOf(map, 'renamedFrom');
      if (renamed) removePair(site.file, map, renamed);
    }
    if (r.kind === IDENTITY_GRANT_KIND) {
      // A binding's role (or identity) is one key of several spellings: written as live names it.
      for (const key of ['role', 'roleUid', 'identity', 'identityUid']) {
        const pair = pairOf(map, key);
        if (pair && !(key in written)) removePair(site.file, map, pair);
      }
      for (const [key, value] of Object.entries(written)) {
        const pair = pairOf(map, key);
        if (pair) reconcile(site.file, pair, value);
        else insertPair(site.file, map, key, this.scratch.createNode(value) as Node);
      }
    } else {
      for (const name of fields) {
        const pair = pairOf(map, name);
        const value =
          written[name] ?? (descriptor.fields.find((s) => s.name === name)?.type === 'string' ? '' : undefined);
        if (pair && value !== undefined) reconcile(site.file, pair, value);
        else if (pair) removePair(site.file, map, pair);
      }
    }
    const said = fields.length > 0 ? fields : step.updateMask;
    this.items.push({
      category: 'changed',
      kind: r.kind,
      address: r.address,
      action: 'changed',
      file: site.file.file,
      fields: said,
    });
  }

  private liveFields(r: LiveResource): Record<string, unknown> {
    return (liveItemNode(this.scratch, r) as YAMLMap).toJSON() as Record<string, unknown>;
  }

  /**
   * Declared, missing live (deleted by hand): its item removed — every map describing it, for a
   * group. A protected one stays, and so does whatever holds it (a group, an identity provider):
   * removing the holder would remove the protected item with it.
   */
  private removed(step: PlanStep): void {
    const kind = step.kind;
    if (matchesAnyGlob(step.address, this.protect))
      return this.leave(step, 'missing', 'protected: left in the manifests (apply creates it again)');
    const held = this.holdsProtected.get(step.address);
    if (held !== undefined)
      return this.leave(step, 'missing', `it holds protected ${held}: left in the manifests (apply creates it again)`);
    if (kind === INVITE_KIND) return this.removedMember(step);
    const r = this.desiredByAddress.get(step.address);
    if (!r) return this.leave(step, 'missing', 'its declaration was not found in the files');
    const sites =
      kind === GROUP_KIND
        ? (this.index.groups.get(r.groupPath) ?? [])
        : [siteAt(this.index, r.source)].filter((s): s is Site => s !== undefined);
    if (sites.length === 0) return this.leave(step, 'missing', 'its declaration was not found in the files');
    for (const site of sites) this.remove(site);
    this.items.push({ category: 'missing', kind, address: r.address, action: 'removed', file: sites[0]!.file.file });
  }

  /** A member whose invite is gone (and who is not present): the `members` line removed — unless an expired invite is only being replaced. */
  private removedMember(step: PlanStep): void {
    const memberAddress = `member:${step.address.slice(step.address.indexOf(':') + 1)}`;
    const member = this.members.find((m) => m.address === memberAddress);
    if (!member) return this.leave(step, 'missing', 'its members line was not found');
    const expired = this.live.resources.some(
      (r) =>
        r.kind === INVITE_KIND &&
        r.groupPath === member.groupPath &&
        r.fields.email !== undefined &&
        asciiLower(r.fields.email) === asciiLower(member.email),
    );
    if (expired) return; // the plan replaces an expired invite: not drift
    const site = siteAt(this.index, member.source);
    if (!site) return this.leave(step, 'missing', 'its members line was not found');
    this.remove(site);
    this.items.push({
      category: 'missing',
      kind: step.kind,
      address: memberAddress,
      action: 'removed',
      file: site.file.file,
    });
  }

  private remove(site: Site): void {
    if (site.seq && site.pair && site.map) {
      const entry = this.removals.get(site.seq) ?? { site, items: [] };
      entry.items.push(site.node);
      this.removals.set(site.seq, entry);
    } else if (site.pair && site.map) removePair(site.file, site.map, site.pair);
  }

  private leave(step: PlanStep, category: AdoptItem['category'], reason: string): void {
    this.items.push({ category, kind: step.kind, address: step.address, action: 'left', reason });
  }

  /** Resources made by hand: each added where its group is described, a group's with it. */
  flushAdditions(): void {
    for (const { site, items } of this.removals.values())
      removeItems(site.file, { map: site.map!, pair: site.pair! }, site.seq!, items);
    const added = [...this.addedDeletes]
      .map((a) => this.liveByAddress.get(a)!)
      .filter((r) => r && (descriptorOf(r.kind).manifest || r.kind === INVITE_KIND));
    const bound = new Set(
      this.live.resources.flatMap((r) =>
        r.kind === IDENTITY_GRANT_KIND && 'path' in r.fields.identity ? [r.fields.identity.path] : [],
      ),
    );
    // Parents before children: groups by depth, then the kinds in the order they are created.
    const order = (r: LiveResource): number => (r.kind === GROUP_KIND ? r.groupPath.split('/').length : 100);
    added.sort((a, b) => order(a) - order(b) || a.address.localeCompare(b.address));
    for (const r of added) {
      const path = declaringGroupPath(r);
      if (r.kind === INVITE_KIND) {
        const open = r.fields.email !== undefined && Date.parse(r.fields.expirationTime) > Date.now();
        if (!open) {
          const reason =
            'an expired invite, or one without an e-mail: no members line describes it (ignore it in settings)';
          this.items.push({ category: 'unmanaged', kind: r.kind, address: r.address, action: 'left', reason });
          continue;
        }
        this.add(r, path, 'members', memberNode(this.scratch, r.groupPath, r.fields.email!, r.fields.role));
        continue;
      }
      if (r.kind === IDENTITY_GRANT_KIND && 'path' in r.fields.identity && this.people.has(r.fields.identity.path)) {
        this.add(
          r,
          path,
          'members',
          memberNode(this.scratch, r.groupPath, this.people.get(r.fields.identity.path)!, r.fields.role),
        );
        continue;
      }
      // A person bound to a role: their members lines say it.
      if (r.kind === PRINCIPAL_KIND && this.people.has(pathOf(r.address)) && bound.has(pathOf(r.address))) continue;
      const form = descriptorOf(r.kind).manifest!;
      const node = liveItemNode(this.scratch, r);
      if (form.form === 'nested') {
        const parent = this.built.get(r.parentAddress ?? '');
        const declared = this.desiredByAddress.get(r.parentAddress ?? '');
        const site = declared && siteAt(this.index, declared.source);
        if (parent) appendTo(this.scratch, parent, form.listKey, node);
        else if (site && isMap(site.node)) this.queue(site.file, site.node, form.listKey, node);
        else {
          this.items.push({
            category: 'unmanaged',
            kind: r.kind,
            address: r.address,
            action: 'left',
            reason: 'its parent is not described in the files',
          });
          continue;
        }
        this.items.push({
          category: 'unmanaged',
          kind: r.kind,
          address: r.address,
          action: 'added',
          ...(site ? { file: site.file.file } : {}),
        });
        if (isMap(node)) this.built.set(r.address, node);
        continue;
      }
      if (isMap(node)) this.built.set(r.address, node);
      this.add(r, path, form.form === 'group' ? 'groups' : form.listKey, node, form.form === 'single');
    }
    for (const p of this.pending.values()) {
      const pair = pairOf(p.map, p.key);
      if (pair && isSeq(pair.value)) appendItems(p.file, pair.value, p.nodes);
      else if (!pair) {
        const single =
          p.nodes.length === 1 &&
          !isSeq(p.nodes[0]) &&
          p.key !== 'groups' &&
          p.key !== 'members' &&
          this.singleKeys.has(p.key);
        insertPair(p.file, p.map, p.key, single ? p.nodes[0]! : seqOf(this.scratch, p.nodes));
      }
    }
  }

  private readonly singleKeys = new Set<string>();

  private add(r: LiveResource, groupPath: string, key: string, node: Node, single = false): void {
    if (single) this.singleKeys.add(key);
    const parent = this.built.get(groupPath === '' ? ORG_ADDRESS : groupAddress(groupPath));
    if (parent) {
      if (single) parent.set(key, node);
      else appendTo(this.scratch, parent, key, node);
      this.items.push({ category: 'unmanaged', kind: r.kind, address: r.address, action: 'added' });
      return;
    }
    const site = this.siteFor(groupPath, key);
    if (!site) {
      const reason = `group ${groupPath || 'org'} is not described in ${this.into?.file ?? 'the files'}`;
      this.items.push({ category: 'unmanaged', kind: r.kind, address: r.address, action: 'left', reason });
      return;
    }
    this.queue(site.file, site.node as YAMLMap, key, node);
    this.items.push({ category: 'unmanaged', kind: r.kind, address: r.address, action: 'added', file: site.file.file });
  }

  private queue(file: EditableFile, map: YAMLMap, key: string, node: Node): void {
    const id = `${file.file}:${map.range![0]}:${key}`;
    const entry = this.pending.get(id) ?? { file, map, key, nodes: [] };
    entry.nodes.push(node);
    this.pending.set(id, entry);
  }

  /** The map a new item of `groupPath`'s list `key` goes into: in --into, else where the list already is, else where the group is declared. */
  private siteFor(groupPath: string, key: string): Site | undefined {
    const sites = (this.index.groups.get(groupPath) ?? []).filter((s) => !this.into || s.file === this.into);
    const declared = this.desiredByAddress.get(groupPath === '' ? ORG_ADDRESS : groupAddress(groupPath));
    const inDeclaring = (s: Site): boolean => declared !== undefined && s.file.file === declared.source.file;
    const withList = sites.filter((s) => pairOf(s.node as YAMLMap, key) !== undefined);
    return withList.find(inDeclaring) ?? withList[0] ?? sites.find(inDeclaring) ?? sites[0];
  }
}

/**
 * Every declared resource with a protected one beneath it (its parent, the parent's parent, …),
 * by address → the first protected one found. (An ignored resource is never declared: validate
 * refuses it, so only protect keeps a holder.)
 */
function holdersOfProtected(
  desired: readonly DesiredResource[],
  byAddress: ReadonlyMap<string, DesiredResource>,
  protect: readonly AddressGlob[],
): Map<string, string> {
  const holders = new Map<string, string>();
  if (protect.length === 0) return holders;
  for (const r of desired) {
    if (!matchesAnyGlob(r.address, protect)) continue;
    for (let up = r.parentAddress; up !== null && !holders.has(up); up = byAddress.get(up)?.parentAddress ?? null)
      holders.set(up, r.address);
  }
  return holders;
}

/** `identity:a/b` → `a/b`: a resource's path from its address. */
function pathOf(address: string): string {
  return address.slice(address.indexOf(':') + 1);
}

function bindingFields(r: LiveResource): Record<string, unknown> {
  if (r.kind !== IDENTITY_GRANT_KIND) return {};
  return writeBindingFields(r);
}

function writeBindingFields(r: Extract<LiveResource, { kind: typeof IDENTITY_GRANT_KIND }>): Record<string, unknown> {
  const identity = 'path' in r.fields.identity ? referenceText(r.groupPath, r.fields.identity) : undefined;
  const out: Record<string, unknown> =
    identity !== undefined ? { identity } : { identityUid: (r.fields.identity as { uid: string }).uid };
  if ('uid' in r.fields.role) out.roleUid = r.fields.role.uid;
  else out.role = referenceText(r.groupPath, r.fields.role);
  return out;
}

function appendTo(doc: Document, map: YAMLMap, key: string, node: Node): void {
  const seq = map.get(key, true);
  if (isSeq(seq)) seq.items.push(node);
  else map.set(key, seqOf(doc, [node]));
}

function seqOf(doc: Document, nodes: readonly Node[]): YAMLSeq {
  const seq = doc.createNode([]) as YAMLSeq;
  seq.items.push(...nodes);
  return seq;
}
