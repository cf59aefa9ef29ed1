/**
 * Live state → manifests (DESIGN.md §5 `export`): the way to adopt an org that already exists.
 * Pure: takes a LiveState, returns file names and their text; the CLI writes them.
 *
 * The invariant everything here serves: loading the returned files and planning them against
 * the same live state yields zero steps. So every managed field the API returned is written
 * (an empty description is written as `""`, which manages it), references are written in the
 * form the manifest loader resolves back to the same key, and tags — which manifests do not
 * describe — are left out.
 */
import { planMembers } from '../plan/phases/members.js';
import { asciiLower } from '../model/email.js';
import { createHash } from 'node:crypto';
import { Document, isMap, isScalar, type Node, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { ORG_ADDRESS, referenceText, type RoleKey } from '../model/address.js';
import type { KindDescriptor } from '../model/kind-descriptor.js';
import { MANIFEST_API_VERSION } from '../manifest/schema.js';
import { UserError } from '../model/errors.js';
import { escapeValue } from '../io/escape.js';
import { validateManifestTexts } from '../manifest/index.js';
import { FORBIDDEN_KEYS } from '../manifest/parse-documents.js';
import {
  capabilitiesHeld,
  declaringGroupPath,
  descriptorOf,
  DESCRIPTORS,
  GROUP_KIND,
  IDENTITY_GRANT_KIND,
  INVITE_KIND,
  PRINCIPAL_KIND,
  type Kind,
} from '../model/kinds.js';
import type { LiveResource, LiveState } from '../model/resources.js';
import { pushTo } from '../util/multimap.js';
import { flowWhenShort, itemFields, writeBinding } from './written-items.js';

/** One manifest file: a path relative to the output directory, and its whole text. */
export interface ExportedFile {
  file: string;
  text: string;
}

export interface ExportOptions {
  /**
   * What the `# yaml-language-server: $schema=` comment points at. The CLI passes `--schema-ref`,
   * else the path, relative to the output directory, of the project's
   * `node_modules/platform-sync` schema, else of the running install's.
   */
  schemaRef?: string;
  /** The time of the export (ms): an invite open at it is written as a member (default: now). */
  now?: number;
}

/**
 * Default `$schema` reference, relative to the exported files: right when they are written to
 * the root of a project that has platform-sync installed as a dependency. The CLI computes the
 * exact relative path instead (see ExportOptions.schemaRef).
 */
export const DEFAULT_SCHEMA_REF = 'node_modules/platform-sync/schemas/manifest.schema.json';
/** The file that carries the org itself: its own lists, its pinned uid and the settings. */
export const ORG_FILE = 'org.yaml';

type LiveOf<K extends LiveResource['kind']> = Extract<LiveResource, { kind: K }>;

/** Live resources indexed by the group that owns them, for a walk from the root down. */
interface GroupIndex {
  groups: Map<string, LiveOf<'group'>>;
  /** Kind → group path → the resources of that kind the group holds (child groups included), sorted by key. */
  byKind: Map<Kind, Map<string, LiveResource[]>>;
  /** Group path → who should hold which role there, by e-mail: written as `members` lines — open invites that carry an e-mail, and people present (DESIGN.md §4). */
  members: Map<string, { email: string; role: RoleKey }[]>;
  /** Invites no member line describes (expired, or without an e-mail): ignored by the export's settings. */
  unwritableInvites: LiveResource[];
}

/**
 * Writes the live org as manifests: `org.yaml` for the org (its uid pinned, its own lists,
 * the settings) and one file per top-level group with everything beneath it.
 * Refuses (UserError) when there is no org, or when live state is ambiguous (two siblings
 * with one name cannot both be written as manifests).
 */
export function exportManifests(live: LiveState, options: ExportOptions = {}): ExportedFile[] {
  if (!live.org) throw new UserError('EXPORT_NO_ORG', 'there is no org to export: the root group was not found');
  if (live.ambiguities.length > 0) {
    throw new UserError(
      'EXPORT_AMBIGUOUS',
      `cannot export org ${live.org.name}: live state has siblings sharing one name, which manifests cannot tell apart:\n` +
        live.ambiguities.map((a) => `  - ${a.address}: uids ${a.uids.join(', ')}`).join('\n') +
        '\nRename or delete one of each pair, then export again.',
    );
  }
  if (live.incomplete.length > 0) {
    throw new UserError(
      'EXPORT_INCOMPLETE',
      `cannot export org ${live.org.name}: some listings did not read back consistently, so the export could miss resources:\n` +
        live.incomplete.map((i) => `  - ${i.kind}: ${i.reason}`).join('\n') +
        '\nRun export again.',
    );
  }
  // The manifest format forbids a custom role named like a built-in (a bare name could not
  // say which one a binding means), so such an org cannot be written down as it is.
  const shadowing = live.resources.filter((r) =>
    ((descriptorOf(r.kind) as KindDescriptor).builtinNames ?? []).includes(
      String((r.fields as { name?: unknown }).name),
    ),
  );
  if (shadowing.length > 0) {
    throw new UserError(
      'EXPORT_UNREPRESENTABLE',
      `cannot export org ${live.org.name}: custom roles named like built-in roles cannot be written as manifests:\n` +
        shadowing.map((r) => `  - ${r.address} (uid ${(r as LiveResource).uid})`).join('\n') +
        '\nRename them (and update their bindings), then export again.',
    );
  }
  // A key the manifest reader refuses (`__proto__`, `constructor`: a claim may be named so)
  // would make manifests that `validate` rejects: name them instead (DESIGN.md §4).
  const forbidden = live.resources.flatMap((r) =>
    findForbiddenKeys(r.fields).map(
      (path) => `  - ${r.address}: key ${JSON.stringify(path.at(-1))} at ${path.join('.')}`,
    ),
  );
  if (forbidden.length > 0) {
    throw new UserError(
      'EXPORT_UNREPRESENTABLE',
      `cannot export org ${live.org.name}: live values hold keys that manifests cannot hold (they could alter object prototypes in programs that read them):\n` +
        forbidden.join('\n') +
        '\nRename or remove them on the service, then export again.',
    );
  }
  const nowMs = options.now ?? Date.now();
  const index = indexLiveState(live, nowMs);
  const org = index.groups.get('');
  if (!org) throw new UserError('EXPORT_NO_ORG', `live state for org ${live.org.name} does not contain its root group`);
  const schemaRef = options.schemaRef ?? DEFAULT_SCHEMA_REF;
  const orgName = live.org.name;

  const files: ExportedFile[] = [];
  const orgDoc = newManifestDocument(schemaRef, `Org "${orgName}": the root group's own resources and the settings.`);
  const orgMap = orgDoc.createNode({ name: orgName, uid: live.org.uid }) as YAMLMap;
  (orgMap.get('uid', true) as Scalar).comment =
    ` pinned: plan matches this exact root group, even if another root group is named "${orgName}"`;
  addGroupBody(orgDoc, orgMap, org, index, { withName: false, withChildGroups: false });
  orgDoc.set('org', orgMap);
  // An invite no member line can describe (expired, or for whoever holds its code) is left alone, not pruned.
  const ignore = index.unwritableInvites.map((r) => r.address).sort(compareStrings);
  const settings = orgDoc.createNode({ prune: true, ignore, protect: [] }) as YAMLMap;
  commentKey(settings, 'prune', 'live resources these files do not describe are deleted by apply');
  commentKey(
    settings,
    'ignore',
    ignore.length > 0
      ? 'address globs left alone entirely, e.g. "identity:*/human-*"; the invites listed are expired or carry no e-mail, so no member line describes them'
      : 'address globs left alone entirely, e.g. "identity:*/human-*"',
  );
  commentKey(settings, 'protect', 'address globs never deleted, e.g. "repo:*"');
  orgDoc.set('settings', settings);
  files.push({ file: ORG_FILE, text: stringify(orgDoc) });

  const taken = new Set([ORG_FILE]);
  for (const top of (index.byKind.get('group')?.get('') ?? []) as LiveOf<'group'>[]) {
    const doc = newManifestDocument(
      schemaRef,
      `Group "${top.fields.name}" of org "${orgName}" and everything beneath it.`,
    );
    const topMap = doc.createNode({}) as YAMLMap;
    addGroupBody(doc, topMap, top, index, FULL_GROUP);
    const orgRef = doc.createNode({ name: orgName, groups: [] }) as YAMLMap;
    (orgRef.get('groups') as YAMLSeq).items.push(topMap);
    doc.set('org', orgRef);
    const file = fileNameForGroup(top.fields.name, taken);
    taken.add(file);
    files.push({ file, text: stringify(doc) });
  }
  checkRoundTrip(live, files, nowMs);
  return files;
}

/**
 * An export is only written when it says what live holds (DESIGN.md §4): the files must pass
 * `validate`, and every live resource the manifests can hold must be declared in them at its
 * own address. A non-conforming server's names (a group `a/b` or `../../x`, a name `validate`
 * rejects) make export fail naming them — never files the next plan would read as deletes.
 */
function checkRoundTrip(live: LiveState, files: readonly ExportedFile[], nowMs: number): void {
  const { state, diagnostics } = validateManifestTexts(
    files.map((f) => ({ file: f.file, text: f.text })),
    { knownCapabilities: capabilitiesHeld(live.resources) },
  );
  // A members line declares the binding and the identity of a person present, as plan reads it.
  const declared = new Set(
    (state ? planMembers(state, live, nowMs).desired : undefined)?.resources.map((r) => r.address) ?? [],
  );
  const lost = state
    ? live.resources.filter(
        (r) => r.address !== ORG_ADDRESS && descriptorOf(r.kind).manifest && !declared.has(r.address),
      )
    : [];
  if (diagnostics.length === 0 && lost.length === 0) return;
  const problems = [
    ...diagnostics.slice(0, 20).map((d) => `  - ${escapeValue(d.message)}`),
    ...lost
      .slice(0, 20)
      .map((r) => `  - ${escapeValue(r.address)} (uid ${r.uid}) cannot be written at its own address`),
  ];
  const more = Math.max(0, diagnostics.length - 20) + Math.max(0, lost.length - 20);
  throw new UserError(
    'EXPORT_UNREPRESENTABLE',
    `cannot export org ${escapeValue(live.org?.name ?? '?')}: live holds names or values that manifests cannot hold as they are, so the export would not describe the org; nothing was written:\n` +
      problems.join('\n') +
      (more > 0 ? `\n  … and ${more} more` : '') +
      '\nRename them on the service (a name is lowercase letters, digits, ".", "_", "-" and spaces, one line, no "/"), then export again.',
  );
}

/** Longest file-name stem (bytes): far below the 255 every common file system allows. */
const MAX_STEM = 100;

/**
 * A file name for a top-level group: its name made safe for every file system — only
 * `[a-z0-9._-]` kept (spaces, slashes and anything a hostile server might send become `_`), no
 * leading dot, and a name too long for a file system shortened deterministically (its start,
 * then a hash of the whole name) — unique among the files already taken (`-2`, `-3`, … on a
 * clash). The file name carries no meaning: the group's name is inside the file.
 */
export function fileNameForGroup(name: string, taken: ReadonlySet<string>): string {
  let slug = name.replace(/[^a-z0-9._-]/g, '_').replace(/^\./, '_');
  if (slug.length > MAX_STEM)
    slug = `${slug.slice(0, MAX_STEM - 13)}-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
  let file = `${slug}.yaml`;
  for (let n = 2; taken.has(file); n++) file = `${slug}-${n}.yaml`;
  return file;
}

/** The mark every file an export writes carries in its header: what `export --force` may replace (DESIGN.md §8 rev 5). */
export const EXPORT_MARK = 'Written by `platform-sync export`';

function newManifestDocument(schemaRef: string, what: string): Document {
  const doc = new Document({ apiVersion: MANIFEST_API_VERSION });
  doc.commentBefore = ` yaml-language-server: $schema=${schemaRef}\n ${what}\n ${EXPORT_MARK}; \`platform-sync plan\` on these files shows no changes.`;
  return doc;
}

function stringify(doc: Document): string {
  // lineWidth 0: never fold long descriptions or sinks, so a diff of the file stays one line.
  return doc.toString({ lineWidth: 0 });
}

const FULL_GROUP = { withName: true, withChildGroups: true } as const;

/**
 * Fills a group's map: its own fields and its lists, recursively for child groups. For the org
 * in org.yaml the name is already there and the child groups go to files of their own.
 */
function addGroupBody(
  doc: Document,
  map: YAMLMap,
  group: LiveOf<'group'>,
  index: GroupIndex,
  parts: { withName: boolean; withChildGroups: boolean },
): void {
  const path = group.groupPath;
  if (parts.withName) map.set('name', group.fields.name);
  // Every other declared field of a group, from the one declaration (a field added there is written without a line of its own).
  for (const [field, value] of Object.entries(itemFields(GROUP, group))) if (field !== 'name') map.set(field, value);

  for (const descriptor of DESCRIPTORS) {
    const form = descriptor.manifest;
    if (!form || form.form === 'group' || form.form === 'nested') continue; // child groups come last, below; nested lists inside their items
    const items = index.byKind.get(descriptor.kind)?.get(path) ?? [];
    if (items.length === 0) continue;
    if (form.form === 'values') {
      const keyField = descriptor.keyField ?? 'name';
      const values = items
        .map((r) => String((r.fields as unknown as Record<string, unknown>)[keyField]))
        .sort(compareStrings);
      const node = doc.createNode(values) as YAMLSeq;
      node.flow = true;
      map.set(form.listKey, node);
      continue;
    }
    if (form.form === 'single') {
      const node = doc.createNode(itemFields(descriptor, items[0]!)) as YAMLMap;
      for (const spec of descriptor.fields) if (spec.type === 'object') setFlow(node, spec.name);
      map.set(form.listKey, node);
      continue;
    }
    map.set(
      form.listKey,
      form.form === 'binding' ? writeBindings(doc, path, items) : writeItems(doc, descriptor, items, index),
    );
  }

  // Open invites with an e-mail: the members they are for (DESIGN.md §4); never their codes.
  const members = index.members.get(path) ?? [];
  if (members.length > 0) {
    // One line per (e-mail, role): a present person's binding and an open invite of the same role are one member.
    const unique = new Map(
      members.map((m) => [
        `${asciiLower(m.email)}=${referenceText(path, m.role)}`,
        { email: m.email, role: referenceText(path, m.role) },
      ]),
    );
    const written = [...unique.values()].sort((a, b) => compareStrings(`${a.email}=${a.role}`, `${b.email}=${b.role}`));
    const seq = doc.createNode(written) as YAMLSeq;
    forEachMap(seq, (m) => void (m.flow = true));
    map.set('members', seq);
  }

  const children = parts.withChildGroups ? ((index.byKind.get('group')?.get(path) ?? []) as LiveOf<'group'>[]) : [];
  if (children.length > 0) {
    const seq = doc.createNode([]) as YAMLSeq;
    for (const child of children) {
      const childMap = doc.createNode({}) as YAMLMap;
      addGroupBody(doc, childMap, child, index, FULL_GROUP);
      seq.items.push(childMap);
    }
    map.set('groups', seq);
  }
}

/** Plain list items: the key first, then every managed field the API returned, in descriptor order. */
function writeItems(
  doc: Document,
  descriptor: KindDescriptor,
  items: readonly LiveResource[],
  index: GroupIndex,
): YAMLSeq {
  const seq = doc.createNode(
    items.map((r) => {
      const out = itemFields(descriptor, r);
      // Lists inside the item (an identity provider's group mappings).
      for (const nested of DESCRIPTORS) {
        if (nested.manifest?.form !== 'nested' || nested.parentKind !== descriptor.kind) continue;
        const children = (index.byKind.get(nested.kind)?.get(r.groupPath) ?? []).filter(
          (c) => c.parentAddress === r.address,
        );
        if (children.length > 0) out[nested.manifest.listKey] = children.map((c) => itemFields(nested, c));
      }
      return out;
    }),
  ) as YAMLSeq;
  forEachMap(seq, (m) => {
    for (const path of descriptor.secretPaths ?? []) {
      const node = m.getIn(path.split('.'), true);
      if (node && typeof node === 'object')
        (node as { comment?: string }).comment =
          ' the API never returns a secret: set this PLATFORM_SYNC_SECRET_* variable in the apply job (never in a plan job of pull requests) when this is created or with apply --rotate-secrets';
    }
    for (const spec of descriptor.fields) {
      // Objects and sets on one line read like the manifests people write; markdown text
      // as a block scalar stays readable and diffable (an empty one stays "").
      if (spec.type === 'object' || spec.type === 'stringSet') setFlow(m, spec.name);
      const node = m.get(spec.name, true);
      if (spec.block && isScalar(node) && typeof node.value === 'string' && node.value !== '')
        node.type = 'BLOCK_LITERAL';
    }
  });
  return seq;
}

function writeBindings(doc: Document, path: string, bindings: readonly LiveResource[]): YAMLSeq {
  const written = (bindings as LiveOf<'roleBinding'>[]).map((b) =>
    writeBinding(path, b.fields.identity, b.fields.role),
  );
  written.sort((a, b) => compareStrings(a.sortKey, b.sortKey));
  const seq = doc.createNode(written.map((w) => w.fields)) as YAMLSeq;
  seq.items.forEach((item, i) => {
    const w = written[i]!;
    if (!isMap(item)) return;
    for (const [key, comment] of Object.entries(w.comments)) {
      const node = item.get(key, true);
      if (isScalar(node)) node.comment = ` ${comment}`;
    }
  });
  return seq;
}

const GROUP = descriptorOf('group');

/** An identity's path from the org root (what a binding names it by). */
function identityPath(r: LiveResource): string {
  return r.address.slice('identity:'.length);
}

function indexLiveState(live: LiveState, nowMs: number): GroupIndex {
  const index: GroupIndex = { groups: new Map(), byKind: new Map(), members: new Map(), unwritableInvites: [] };
  // People present (DESIGN.md §4): an identity the service reports an e-mail for, bound to a role,
  // is written as a members line per binding — not as a managed identity and its bindings. One
  // bound to nothing stays an identity (a plan would otherwise prune it).
  const personEmail = new Map<string, string>();
  for (const r of live.resources)
    if (r.kind === PRINCIPAL_KIND && r.email !== undefined) personEmail.set(identityPath(r), r.email);
  const boundPeople = new Set<string>();
  const personOf = (r: LiveResource): string | undefined => {
    if (r.kind !== IDENTITY_GRANT_KIND) return undefined;
    const key = r.fields.identity;
    return 'path' in key && personEmail.has(key.path) ? key.path : undefined;
  };
  for (const r of live.resources) {
    const person = personOf(r);
    if (person !== undefined) boundPeople.add(person);
  }
  for (const r of live.resources) {
    if (r.kind === GROUP_KIND) index.groups.set(r.groupPath, r);
    if (r.address === ORG_ADDRESS) continue;
    if (r.kind === INVITE_KIND) {
      const open = r.fields.email !== undefined && Date.parse(r.fields.expirationTime) > nowMs;
      if (open) pushTo(index.members, r.groupPath, { email: r.fields.email!, role: r.fields.role });
      else index.unwritableInvites.push(r);
      continue;
    }
    const person = personOf(r);
    if (person !== undefined && r.kind === IDENTITY_GRANT_KIND) {
      pushTo(index.members, r.groupPath, { email: personEmail.get(person)!, role: r.fields.role });
      continue;
    }
    if (r.kind === PRINCIPAL_KIND && boundPeople.has(identityPath(r))) continue;
    const descriptor = descriptorOf(r.kind);
    if (!descriptor.manifest) continue; // tags are published by CI, not declared in manifests
    let byGroup = index.byKind.get(r.kind);
    if (!byGroup) index.byKind.set(r.kind, (byGroup = new Map()));
    pushTo(byGroup, declaringGroupPath(r), r);
  }
  // Stable output whatever order the API listed things in: a re-export diffs only on change.
  for (const [kind, byGroup] of index.byKind) {
    const key = descriptorOf(kind).keyField;
    if (key === null) continue; // bindings are sorted as written
    const keyOf = (r: LiveResource): string => String((r.fields as unknown as Record<string, unknown>)[key]);
    for (const list of byGroup.values()) list.sort((a, b) => compareStrings(keyOf(a), keyOf(b)));
  }
  return index;
}

/** A comment on the line above a key of a map. */
function commentKey(map: YAMLMap, key: string, comment: string): void {
  const pair = map.items.find((p) => isScalar(p.key) && p.key.value === key);
  if (pair && isScalar(pair.key)) pair.key.commentBefore = ` ${comment}`;
}

function forEachMap(seq: YAMLSeq, fn: (m: YAMLMap) => void): void {
  for (const item of seq.items) if (isMap(item)) fn(item);
}

function setFlow(m: YAMLMap, key: string): void {
  const node = m.get(key, true) as Node | undefined;
  if (node) flowWhenShort(node);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Paths of the object keys under `value` that a manifest may not hold (FORBIDDEN_KEYS). */
function findForbiddenKeys(value: unknown, path: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => findForbiddenKeys(v, [...path, String(i)]));
  const found: string[][] = [];
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) found.push([...path, key]);
    found.push(...findForbiddenKeys((value as Record<string, unknown>)[key], [...path, key]));
  }
  return found;
}
