/**
 * The planner (DESIGN.md §4, STYLE.md §1): `plan(desired, live, options) → Plan`.
 *
 * Pure — no I/O, no clock, no randomness — and deterministic: the same inputs give the same
 * plan, step for step. It matches desired and live resources by address, decides creates,
 * updates and deletes, wires `dependsOn` edges, orders the steps once, and refuses (collecting
 * every reason) a plan that would be unsafe or that the server would reject.
 */
import { compileAddressGlob, matchesAnyGlob, ORG_ADDRESS, type AddressGlob } from '../model/address.js';
import { UnsafePlanError } from '../model/errors.js';
import { descriptorOf, roleRefFields, type Kind } from '../model/kinds.js';
import { referenceUidField } from '../model/kind-descriptor.js';
import { PLAN_FORMAT_VERSION } from '../model/plan.js';
import type { CreateStep, DeleteStep, Plan, PlanRefusal, PlanStep, PlanSummary, UidReference, UpdateStep } from '../model/plan.js';
import type { DesiredResource, DesiredState, LiveResource, LiveState } from '../model/resources.js';
import type { IdentityKey, RoleKey } from '../model/address.js';
import { createFields, diffManagedFields, displayFields, type FieldChange } from './fields.js';
import { orderSteps, type OrderedStep } from './order.js';
import { describeRoleKey, identityRefAddress, normaliseBinding, referenceAddress, roleRefAddress } from './references.js';
import { indexLive, type Holders, type LiveIndex } from './live-index.js';
import { pushTo } from '../util/multimap.js';
import { findRefusals, rolesUpdatedAway } from './safety.js';
import { countLabel, describePruneOff, isIgnoredResource, isPruned, listNames } from './settings.js';
import { checkTargets } from './targets.js';
import { applyRenames, formerAddressesOf, type RenameResult } from './renames.js';

export { countLabel, isPruned } from './settings.js';
export { checkTargets, TARGET_PREFIXES } from './targets.js';

export interface PlanOptions {
  /**
   * `--target` addresses or address globs. Only matching steps are planned, plus every step
   * they depend on (the parents a create needs, the identity/role a binding references, the
   * children a delete must remove first).
   */
  targets?: string[];
  /** Largest share of a kind's managed live resources one plan may delete (default 0.25). */
  maxDeleteRatio?: number;
  /** Lift the mass-delete refusal. */
  allowMassDelete?: boolean;
  /**
   * `apply --rotate-secrets`: re-send every declared secret of a resource that exists (one PATCH
   * per resource, its mask naming the secret). Without it a secret is sent only by a create:
   * the API never returns one, so a changed secret cannot be detected.
   */
  rotateSecrets?: boolean;
  /**
   * Plan the create of the org when no root group of its name is visible (`--bootstrap`).
   * Without it a missing org is a refusal, never a `create org` step (DESIGN.md §4): a wrong
   * URL or another tenant's token looks exactly like an org that does not exist.
   */
  bootstrap?: boolean;
}

export const DEFAULT_MAX_DELETE_RATIO = 0.25;

interface Planning {
  desired: DesiredState;
  /** Live state as read, re-addressed by the renames the manifests ask for (renames.ts). */
  live: LiveState;
  /** New address → address before the rename, for each rename in place. */
  previousAddress: Map<string, string>;
  index: LiveIndex;
  ignore: AddressGlob[];
  warnings: string[];
  /** Found while planning, reported with the safety refusals (all at once). */
  refusals: PlanRefusal[];
  /** Step address → step and its group path (for ordering). */
  steps: Map<string, OrderedStep>;
  rotateSecrets: boolean;
  /** Addresses created by this plan, as planCreates decided them. */
  creating: Set<string>;
  /** The address a live resource has now, before the plan's renames (only when there are renames). */
  liveAddressOf?: RenameResult['liveAddressOf'];
  /** Every address a live resource answers to for ignore and protect (renames.ts); undefined when that is only its address. */
  formerAddressesOf?: (resource: Pick<LiveResource, 'kind' | 'uid' | 'address'>) => string[];
}

/**
 * The role references of a resource's `roleRef` fields (an identity provider's defaultRole):
 * the uid each is sent as — known, or filled from the create of a role this plan makes — or
 * the address of the first one that neither exists nor is created.
 */
function resolveRoleRefs(p: Planning, d: DesiredResource, fieldNames: readonly string[], creating: Set<string>): { refs: Record<string, UidReference>; dependsOn: string[] } | { missing: string } {
  const refs: Record<string, UidReference> = {};
  const dependsOn: string[] = [];
  const descriptor = descriptorOf(d.kind);
  for (const spec of descriptor.fields) {
    const field = spec.apiName ?? spec.name;
    if (spec.type !== 'roleRef' || !fieldNames.includes(field)) continue;
    const key = (d.fields as unknown as Record<string, RoleKey | undefined>)[spec.name];
    if (key === undefined) continue;
    const role = resolveReference(p, key, roleRefAddress(key), creating);
    if (role === 'missing') return { missing: roleRefAddress(key) };
    refs[field] = role.ref;
    if (role.dependsOn) dependsOn.push(role.dependsOn);
  }
  // The org's own uid where the API wants it (a group mapping's scope): known, or the org's create.
  if (descriptor.orgScopeField !== undefined) {
    refs[descriptor.orgScopeField] = p.live.org ? { address: ORG_ADDRESS, uid: p.live.org.uid } : { address: ORG_ADDRESS };
    if (!p.live.org) dependsOn.push(ORG_ADDRESS);
  }
  return { refs, dependsOn };
}

/** Puts the resolved role references into a step: `refs` for the reader, the uid into `after` when known. */
function applyRoleRefs(step: CreateStep | UpdateStep, refs: Record<string, UidReference>): void {
  if (Object.keys(refs).length === 0) return;
  step.refs = { ...step.refs, ...refs };
  for (const [field, ref] of Object.entries(refs)) {
    if (ref.uid !== undefined) step.after[field] = ref.uid;
    else delete step.after[field];
  }
}

/**
 * A step that takes a name a rename in the same plan frees waits for that rename: a create of
 * the old name (repo `legacy` renamed to `web`, a new `legacy` declared), or another rename onto
 * it (`web` renamed to `x2`, `app` renamed to `web`). The API refuses a second sibling of one name.
 */
function waitForFreedNames(p: Planning): void {
  for (const { step } of p.steps.values()) {
    if (step.action !== 'update' || step.previousAddress === undefined) continue;
    const taker = p.steps.get(step.previousAddress)?.step;
    if (taker === undefined || taker === step) continue;
    if (taker.action !== 'create' && !(taker.action === 'update' && taker.previousAddress !== undefined)) continue;
    taker.dependsOn = [...new Set([...(taker.dependsOn ?? []), step.address])].sort();
  }
}

/**
 * Whether a live resource that nothing declared is left alone: its address matches an ignore
 * glob, or it is a binding of an ignored identity (hand-granted access is never revoked).
 */
function isIgnoredLive(p: Planning, resource: LiveResource): boolean {
  if (isIgnoredResource(resource, p.ignore)) return true;
  if (p.formerAddressesOf === undefined || p.ignore.length === 0) return false;
  // Across renames (DESIGN.md §4): the live address before the plan's renames counts too, and
  // the address under each old name a `renamedFrom` line still gives it.
  if (p.formerAddressesOf(resource).some((a) => matchesAnyGlob(a, p.ignore))) return true;
  if (resource.kind !== 'roleBinding' || !('path' in resource.fields.identity)) return false;
  const identity = p.index.byAddress.get(`identity:${resource.fields.identity.path}`);
  return identity !== undefined && p.formerAddressesOf(identity).some((a) => matchesAnyGlob(a, p.ignore));
}

/**
 * Whether a declared resource is left alone: only its own address counts (validate refuses
 * that anyway). A declared binding of an ignored identity is managed like any other
 * (DESIGN.md §4): ignoring a person leaves alone only the bindings the manifests do not declare.
 */
function isIgnoredDeclared(p: Planning, resource: DesiredResource): boolean {
  return p.ignore.length > 0 && matchesAnyGlob(resource.address, p.ignore);
}

function addStep(p: Planning, step: PlanStep, groupPath: string): void {
  p.steps.set(step.address, { step, groupPath });
}

function formatSource(source: DesiredResource['source']): string {
  return `${source.file}:${source.line}:${source.column}`;
}

/**
 * Desired resources with bindings normalised. Input order is kept (it is the loader's,
 * deterministic); the steps are sorted at the end anyway. One resource declared twice is an
 * error (DESIGN.md §3); validation catches the literal repeats, but a binding written once by
 * name and once by `identityUid`/`roleUid` only shows up as one here, once the uid is known.
 * It is refused naming both places; the first is kept so the rest of the plan is still checked.
 */
function normaliseDesired(p: Planning): DesiredResource[] {
  const seen = new Map<string, DesiredResource>();
  const byUid = new Set<DesiredResource>();
  for (const raw of p.desired.resources) {
    const r = normaliseBinding(raw, p.index.lookup);
    if (r.kind === 'roleBinding' && findDanglingReference(p, r)) continue;
    if (r !== raw) byUid.add(r);
    const first = seen.get(r.address);
    if (first) {
      p.refusals.push({
        rule: 'declared-twice',
        message:
          `${r.address} is declared twice (${formatSource(first.source)} and ${formatSource(r.source)})` +
          `${byUid.has(first) !== byUid.has(r) ? ', once by name and once by uid' : ''}; declare it once`,
        addresses: [r.address],
      });
      continue;
    }
    seen.set(r.address, r);
  }
  return [...seen.values()];
}

/**
 * A binding's `identityUid`/`roleUid` that lies inside the org (under its root uid) but names
 * nothing the full read found: the API would refuse the create half-way through an apply, so the
 * plan is refused now, naming where the manifest wrote it. A uid outside the org is a person or
 * a role the org does not contain, and is taken as given. True when the binding is refused.
 */
function findDanglingReference(p: Planning, binding: DesiredResource & { kind: 'roleBinding' }): boolean {
  const orgUid = p.live.org?.uid;
  if (orgUid === undefined) return false;
  // Bindings name their identity and role by path; only one named by uid is looked at.
  const identity = binding.fields.identity;
  const role = binding.fields.role;
  if (!('uid' in identity) && !('uid' in role)) return false;
  let dangling = false;
  for (const [field, key, kind] of [
    [referenceUidField('identity'), identity, 'identity'],
    [referenceUidField('role'), role, 'role'],
  ] as const) {
    if (!('uid' in key) || !key.uid.startsWith(`${orgUid}/`)) continue;
    // Normalising turned every uid the read found into a path: this one was not found. An
    // incomplete listing of that kind may simply have missed it; that read is refused anyway.
    if (p.live.incomplete.some((i) => i.kind === kind)) continue;
    dangling = true;
    p.refusals.push({
      rule: 'dangling-reference',
      message:
        `${binding.address} (${formatSource(binding.source)}) names ${field} ${key.uid}, which lies inside org ${p.desired.org.name} ` +
        `but is no ${kind} there; fix the uid, or name the ${kind} by its path`,
      addresses: [binding.address],
    });
  }
  return dangling;
}

interface Matching {
  /** Objects, not [desired, live] tuples: a tuple is taken apart through an iterator, allocated per pair in cold code. */
  pairs: { desired: DesiredResource; live: LiveResource }[];
  /** Bindings whose only change is their role: desired, and the live binding it replaces. */
  roleChanges: [DesiredResource & { kind: 'roleBinding' }, LiveResource & { kind: 'roleBinding' }][];
  creates: DesiredResource[];
  /** Live resources nothing desired matched (ambiguous ones excluded). */
  unmatchedLive: LiveResource[];
}

function matchResources(p: Planning, desired: DesiredResource[]): Matching {
  const pairs: Matching['pairs'] = [];
  const unmatchedDesired: DesiredResource[] = [];
  const matched = new Set<LiveResource>();
  const checkAmbiguous = p.index.ambiguous.size > 0;
  for (const d of desired) {
    if (checkAmbiguous && p.index.ambiguous.has(d.address)) continue; // refused in safety
    const l = d.uid !== undefined ? p.index.byUid.get(d.uid) : p.index.byAddress.get(d.address);
    if (l && l.kind === d.kind && !matched.has(l)) {
      pairs.push({ desired: d, live: l });
      matched.add(l);
    } else {
      unmatchedDesired.push(d);
    }
  }
  const unmatchedLive: LiveResource[] = [];
  for (const l of p.index.byAddress.values()) if (!matched.has(l)) unmatchedLive.push(l);

  // A binding is keyed by (group, identity, role); when exactly one desired and one live
  // binding remain for a (group, identity) and neither is ignored, the role changed.
  type Binding<S> = S & { kind: 'roleBinding' };
  const bindingKey = (r: Binding<DesiredResource> | Binding<LiveResource>) =>
    `${r.groupPath}\u0000${identityRefAddress(r.fields.identity)}`;
  const desiredByKey = new Map<string, Binding<DesiredResource>[]>();
  const liveByKey = new Map<string, Binding<LiveResource>[]>();
  for (const d of unmatchedDesired) if (d.kind === 'roleBinding' && !isIgnoredDeclared(p, d)) pushTo(desiredByKey, bindingKey(d), d);
  for (const l of unmatchedLive) if (l.kind === 'roleBinding' && !isIgnoredLive(p, l)) pushTo(liveByKey, bindingKey(l), l);
  const roleChanges: Matching['roleChanges'] = [];
  const paired = new Set<string>();
  for (const [key, ds] of desiredByKey) {
    const ls = liveByKey.get(key);
    if (ds.length !== 1 || ls?.length !== 1) continue;
    roleChanges.push([ds[0]!, ls[0]!]);
    paired.add(ds[0]!.address);
    paired.add(ls[0]!.uid);
  }
  return {
    pairs,
    roleChanges,
    creates: unmatchedDesired.filter((d) => !paired.has(d.address)),
    unmatchedLive: unmatchedLive.filter((l) => !paired.has(l.uid)),
  };
}

/**
 * The uid a binding body field needs: known now when the target exists live (or is a
 * built-in), else the address of the create step that will make it. `missing` when neither.
 */
function resolveReference(
  p: Planning,
  key: IdentityKey | RoleKey,
  refAddress: string,
  creating: Set<string>,
): { ref: UidReference; dependsOn?: string } | 'missing' {
  if ('uid' in key) return { ref: { address: refAddress, uid: key.uid } };
  if ('builtin' in key) {
    const uid = p.live.builtinRoles[key.builtin];
    return uid === undefined ? 'missing' : { ref: { address: refAddress, uid } };
  }
  const existing = p.index.byAddress.get(refAddress);
  if (existing) return { ref: { address: refAddress, uid: existing.uid } };
  if (creating.has(refAddress)) return { ref: { address: refAddress }, dependsOn: refAddress };
  return 'missing';
}

/** The parent a create hangs under: live (uid known), being created (dependsOn), or missing. */
function resolveParent(p: Planning, parent: string, creating: Set<string>): { parentUid?: string; dependsOn?: string } | 'missing' {
  const existing = p.index.byAddress.get(parent);
  if (existing) return { parentUid: existing.uid };
  if (creating.has(parent)) return { dependsOn: parent };
  return 'missing';
}

function planCreates(p: Planning, creates: DesiredResource[]): void {
  const candidates: OrderedStep[] = creates
    .filter((d) => !isIgnoredDeclared(p, d))
    .map((d) => ({ step: { action: 'create', kind: d.kind, address: d.address, parent: d.parentAddress, after: {} }, groupPath: d.groupPath }));
  const byAddress = new Map(creates.map((d) => [d.address, d]));
  // In execution order a parent (and a referenced identity/role) is decided before what
  // needs it, so one pass knows whether each prerequisite will really be created.
  const creating = new Set<string>();
  for (const candidate of orderSteps(candidates)) {
    const d = byAddress.get(candidate.address)!;
    const dependsOn: string[] = [];
    const step: CreateStep = { action: 'create', kind: d.kind, address: d.address, parent: d.parentAddress, after: createFields(d) };
    if (d.parentAddress !== null) {
      const parent = resolveParent(p, d.parentAddress, creating);
      if (parent === 'missing') {
        p.warnings.push(`${d.address} is not created: its parent ${d.parentAddress} neither exists nor is created (ignored?)`);
        continue;
      }
      if (parent.parentUid !== undefined) step.parentUid = parent.parentUid;
      if (parent.dependsOn !== undefined) dependsOn.push(parent.dependsOn);
    }
    // What the kind references (a binding's identity and role) is sent as `<reference>Uid`.
    const references = descriptorOf(d.kind).references ?? [];
    if (references.length > 0) {
      const keys = d.fields as unknown as Record<string, IdentityKey | RoleKey>;
      const resolved = references.map((ref) => {
        const address = referenceAddress(ref, keys[ref]!);
        return { field: `${ref}Uid`, address, found: resolveReference(p, keys[ref]!, address, creating) };
      });
      const missing = resolved.find((r) => r.found === 'missing');
      if (missing) {
        p.warnings.push(`${d.address} is not created: ${missing.address} neither exists nor is created (ignored?)`);
        continue;
      }
      const refs: Record<string, UidReference> = {};
      for (const { field, found } of resolved) {
        if (found === 'missing') continue;
        refs[field] = found.ref;
        if (found.ref.uid !== undefined) step.after[field] = found.ref.uid;
        if (found.dependsOn) dependsOn.push(found.dependsOn);
      }
      step.refs = refs;
    }
    const roleRefs = resolveRoleRefs(p, d, [...Object.keys(step.after), ...(descriptorOf(d.kind).orgScopeField ? [descriptorOf(d.kind).orgScopeField!] : [])], creating);
    if ('missing' in roleRefs) {
      p.warnings.push(`${d.address} is not created: ${roleRefs.missing} neither exists nor is created (ignored?)`);
      continue;
    }
    applyRoleRefs(step, roleRefs.refs);
    dependsOn.push(...roleRefs.dependsOn);
    if (d.secrets) step.secrets = { ...d.secrets };
    if (dependsOn.length > 0) step.dependsOn = [...new Set(dependsOn)].sort();
    step.source = d.source;
    if (p.live.org === null && d.address === ORG_ADDRESS) step.reason = `bootstrap: no root group named ${p.desired.org.name} is visible to this token`;
    creating.add(d.address);
    addStep(p, step, d.groupPath);
  }
  p.creating = creating;
}

/** A change the update sends (a cleared one is shown, not sent). */
const isSent = (c: FieldChange): boolean => !c.cleared;
const NO_PATHS: readonly string[] = [];

function planUpdates(p: Planning, pairs: Matching['pairs']): void {
  for (const { desired: d, live: l } of pairs) {
    // A pair is declared: only the addresses count, not the ignored identity of a binding.
    if (isIgnoredDeclared(p, d) || matchesAnyGlob(l.address, p.ignore)) continue;
    const liveAddress = p.ignore.length > 0 ? p.liveAddressOf?.(l) : undefined;
    if (liveAddress !== undefined && liveAddress !== l.address && matchesAnyGlob(liveAddress, p.ignore)) {
      // Renames moved an ignored resource under a declared address: still left alone, and said.
      p.warnings.push(`${d.address} is declared, but the live resource it names is ${liveAddress}, which settings.ignore leaves alone: it is not changed`);
      continue;
    }
    const changes = diffManagedFields(d, l);
    const rotate = p.rotateSecrets && d.secrets !== undefined ? Object.keys(d.secrets) : NO_PATHS;
    if (rotate.length === 0 && !changes.some(isSent)) continue;
    const descriptor = descriptorOf(d.kind);
    if (!descriptor.hasUpdate) {
      // Immutable, and a replace would need two steps at one address.
      const what = changes.map((c) => `${c.field} ${String(c.before)} but the manifests say ${String(c.after)}`).join('; ');
      p.warnings.push(`${d.address} has ${what}; ${descriptor.label.many} cannot be changed, delete it to recreate`);
      continue;
    }
    const step: UpdateStep = {
      action: 'update',
      kind: d.kind,
      address: d.address,
      uid: l.uid,
      parent: l.parentAddress,
      updateMask: changes.filter(isSent).map((c) => c.field),
      before: Object.fromEntries(changes.map((c) => [c.field, c.before])),
      after: Object.fromEntries(changes.filter(isSent).map((c) => [c.field, c.after])),
      source: d.source,
    };
    const roleRefs = resolveRoleRefs(p, d, step.updateMask, p.creating);
    if ('missing' in roleRefs) {
      p.warnings.push(`${d.address} is not updated: ${roleRefs.missing} neither exists nor is created (ignored?)`);
      continue;
    }
    applyRoleRefs(step, roleRefs.refs);
    if (roleRefs.dependsOn.length > 0) step.dependsOn = [...new Set(roleRefs.dependsOn)].sort();
    if (rotate.length > 0) {
      // The secret path itself in the mask: the API keeps a stored secret unless the mask names it.
      step.updateMask.push(...rotate);
      step.secrets = Object.fromEntries(rotate.map((path) => [path, d.secrets![path]!]));
      step.reason ??= '--rotate-secrets: the secret is sent again';
    }
    const previous = p.previousAddress.get(d.address);
    if (previous !== undefined) {
      step.previousAddress = previous;
      step.reason = `renamedFrom "${d.renamedFrom}": same uid, everything beneath and every binding kept`;
    }
    if (l.parentUid !== null) step.parentUid = l.parentUid;
    addStep(p, step, d.groupPath);
  }
}

/** The uid a live binding's role has now (for `before.roleUid`). */
function liveRoleUid(p: Planning, role: RoleKey): string | undefined {
  if ('uid' in role) return role.uid;
  if ('builtin' in role) return p.live.builtinRoles[role.builtin];
  return p.index.byAddress.get(roleRefAddress(role))?.uid;
}

function planRoleChanges(p: Planning, roleChanges: Matching['roleChanges']): void {
  const creating = new Set([...p.steps.values()].filter((s) => s.step.action === 'create').map((s) => s.step.address));
  for (const [d, l] of roleChanges) {
    const role = resolveReference(p, d.fields.role, roleRefAddress(d.fields.role), creating);
    if (role === 'missing') {
      p.warnings.push(`${d.address} is not planned: ${roleRefAddress(d.fields.role)} neither exists nor is created (ignored?)`);
      continue;
    }
    const before: Record<string, unknown> = {};
    const beforeUid = liveRoleUid(p, l.fields.role);
    if (beforeUid !== undefined) before.roleUid = beforeUid;
    const after: Record<string, unknown> = {};
    if (role.ref.uid !== undefined) after.roleUid = role.ref.uid;
    const step: UpdateStep = {
      action: 'update',
      kind: 'roleBinding',
      address: d.address,
      uid: l.uid,
      parent: l.parentAddress,
      updateMask: ['roleUid'],
      before,
      after,
      refs: { roleUid: role.ref },
      source: d.source,
      reason: `role ${describeRoleKey(l.fields.role)} → ${describeRoleKey(d.fields.role)} (was ${l.address})`,
    };
    if (l.parentUid !== null) step.parentUid = l.parentUid;
    if (role.dependsOn) step.dependsOn = [role.dependsOn];
    addStep(p, step, d.groupPath);
  }
}

/**
 * Which unmatched live resources to delete: those of a pruned kind, not ignored, not the org.
 * Tags are not declared in manifests as a rule, so a live tag is pruned on its own only when
 * the manifests declare tags for its repo; the tags of a deleted repo go with it.
 */
function chooseDeletes(p: Planning, unmatchedLive: LiveResource[], desired: DesiredResource[]): Map<string, LiveResource> {
  const prune = p.desired.settings.prune;
  const reposWithDeclaredTags = new Set(desired.filter((d) => d.kind === 'tag').map((d) => d.parentAddress));
  const deletes = new Map<string, LiveResource>();
  const keptByKind = new Map<Kind, string[]>();
  const tags: LiveResource[] = [];
  for (const l of unmatchedLive) {
    if (l.address === ORG_ADDRESS || isIgnoredLive(p, l)) continue;
    if (l.kind === 'tag') tags.push(l);
    else if (descriptorOf(l.kind).permanent) {
      p.warnings.push(`${l.address} stays: ${descriptorOf(l.kind).label.many} are permanent, so leaving one out of the manifests changes nothing`);
    } else if (isPruned(prune, l.kind)) deletes.set(l.address, l);
    else pushTo(keptByKind, l.kind, l.address);
  }
  for (const t of tags) {
    const repoDeleted = t.parentAddress !== null && deletes.has(t.parentAddress);
    if (!isPruned(prune, 'tag')) {
      if (repoDeleted) pushTo(keptByKind, 'tag', t.address);
    } else if (repoDeleted || reposWithDeclaredTags.has(t.parentAddress)) {
      deletes.set(t.address, t);
    }
  }
  for (const [kind, addresses] of [...keptByKind].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const n = addresses.length;
    p.warnings.push(
      `${countLabel(kind, n)} not in the manifests ${n === 1 ? 'is' : 'are'} kept (${listNames(addresses.sort())}): ` +
        describePruneOff(prune, kind),
    );
  }
  return deletes;
}

function planDeletes(p: Planning, deletes: Map<string, LiveResource>, holders: Holders): void {
  // A binding PATCHed to another role, or an identity provider whose default role the plan
  // changes, stops referencing the old role, like a deleted binding: the delete waits for it.
  const updatedAway = new Map<string, string[]>();
  const rolesDeleted = [...deletes.keys()].some((a) => a.startsWith('role:'));
  for (const { step } of p.steps.values()) {
    // Only a role's delete waits for them; only kinds that reference a role can move off one.
    if (!rolesDeleted || step.action !== 'update' || !referencesRoles(step.kind)) continue;
    const l = p.index.byUid.get(step.uid);
    if (l === undefined) continue;
    for (const role of rolesUpdatedAway(step, l)) pushTo(updatedAway, roleRefAddress(role), step.address);
  }
  for (const l of deletes.values()) {
    const dependsOn: string[] = [];
    for (const child of holders.childrenOf.get(l.address) ?? []) if (deletes.get(child.address) === child) dependsOn.push(child.address);
    if (descriptorOf(l.kind).referenceable) {
      for (const b of holders.bindingsByRef.get(l.address) ?? []) if (deletes.get(b.address) === b) dependsOn.push(b.address);
      dependsOn.push(...(updatedAway.get(l.address) ?? []));
    }
    const step: DeleteStep = {
      action: 'delete',
      kind: l.kind,
      address: l.address,
      uid: l.uid,
      parent: l.parentAddress,
      before: displayFields(l),
    };
    if (l.parentUid !== null) step.parentUid = l.parentUid;
    if (dependsOn.length > 0) step.dependsOn = [...new Set(dependsOn)].sort();
    if (l.kind === 'tag' && l.parentAddress !== null && deletes.has(l.parentAddress)) step.reason = `tag of deleted ${l.parentAddress}`;
    addStep(p, step, l.groupPath);
  }
}


/** Addresses of the steps `address` waits for, transitively (what it takes down with it). */
function collectDependencies(p: Planning, address: string): Set<string> {
  const found = new Set<string>();
  const pending = [...(p.steps.get(address)?.step.dependsOn ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (found.has(next)) continue;
    found.add(next);
    pending.push(...(p.steps.get(next)?.step.dependsOn ?? []));
  }
  return found;
}

/** What a delete and a create of one kind may together be, and how to recognise the pair. */
interface Replacement {
  label: 'rename' | 'move';
  /** Steps that could pair share this key. */
  key: (step: PlanStep) => string;
  /** What matching keys on, for the warning. */
  matchedBy: string;
}

/** The name a create gives or a delete takes away (groups, identities, roles, repos). */
function nameOf(step: PlanStep): unknown {
  return (step.action === 'delete' ? step.before : step.after)?.name;
}

const REPLACEMENTS: readonly Replacement[] = [
  // Same name under another parent. Checked first: one name is stronger evidence than one parent.
  { label: 'move', key: (s) => `${s.kind}\u0000${String(nameOf(s))}`, matchedBy: 'group and name' },
  // Another name under the same parent.
  { label: 'rename', key: (s) => `${s.kind}\u0000${s.parent}`, matchedBy: 'name' },
];

/**
 * Resources are matched by address, so a rename or a move is planned as a delete and a create:
 * the new resource gets a new uid, and what the old one held (children, tags, bindings to it)
 * is deleted with it. When exactly one delete and one create of a kind share a parent (a
 * rename) or a name (a move), say so on both steps and in a warning, so a reader does not
 * take it for two unrelated changes. A child recreated because its parent group is replaced
 * is not called a move: the parent's own pair explains it.
 */
function explainReplacements(p: Planning): void {
  const candidates: PlanStep[] = [];
  for (const { step } of p.steps.values()) {
    if (descriptorOf(step.kind).renameable && step.action !== 'update' && step.parent != null) candidates.push(step);
  }
  const paired = new Set<PlanStep>();
  for (const replacement of REPLACEMENTS) {
    const byKey = new Map<string, { creates: PlanStep[]; deletes: PlanStep[] }>();
    for (const step of candidates) {
      if (paired.has(step)) continue;
      const key = replacement.key(step);
      const entry = byKey.get(key) ?? { creates: [], deletes: [] };
      (step.action === 'create' ? entry.creates : entry.deletes).push(step);
      byKey.set(key, entry);
    }
    for (const { creates, deletes } of byKey.values()) {
      if (creates.length !== 1 || deletes.length !== 1) continue;
      const [created, deleted] = [creates[0]!, deletes[0]!];
      if (replacement.label === 'move' && isReplacedParent(p, deleted, created)) continue;
      paired.add(created).add(deleted);
      const lost = collectDependencies(p, deleted.address).size;
      created.reason ??= `looks like a ${replacement.label} of ${deleted.address}`;
      deleted.reason ??= `looks like a ${replacement.label} to ${created.address}`;
      const oldName = String(deleted.action === 'delete' ? deleted.before?.name : undefined);
      const advice =
        replacement.label === 'rename'
          ? `; to rename it in place instead (same uid, everything beneath and every binding kept), add renamedFrom: ${JSON.stringify(oldName)} to ${created.address}`
          : '; a move to another group cannot be done in place: the uids of the moved resources will change';
      p.warnings.push(
        `${deleted.address} → ${created.address} looks like a ${replacement.label}: resources are matched by ${replacement.matchedBy}, ` +
          `so this is a delete and a create; the new one gets a new uid` +
          `${lost > 0 ? `, and ${lost} other delete${lost === 1 ? ' comes' : 's come'} with it` : ''}${advice}`,
      );
    }
  }
}

/** The old parent is deleted and the new one created: the child goes along with its group. */
function isReplacedParent(p: Planning, deleted: PlanStep, created: PlanStep): boolean {
  return p.steps.get(deleted.parent!)?.step.action === 'delete' && p.steps.get(created.parent!)?.step.action === 'create';
}

/**
 * A repo's tags are deleted with it and shown as steps; say how many in one note, since
 * --max-delete-ratio judges the repo and not its tags (see safety.ts).
 */
function noteTagsOfDeletedRepos(p: Planning): void {
  const repos = new Set<string>();
  let tags = 0;
  for (const { step } of p.steps.values()) {
    if (step.action !== 'delete' || step.kind !== 'tag' || step.parent == null) continue;
    if (p.steps.get(step.parent)?.step.action !== 'delete') continue;
    repos.add(step.parent);
    tags++;
  }
  if (tags === 0) return;
  p.warnings.push(
    `${countLabel('tag', tags)} ${tags === 1 ? 'goes' : 'go'} with ${repos.size === 1 ? 'its deleted repo' : `${repos.size} deleted repos`} ` +
      `(${listNames([...repos].sort())}): deleting a repo deletes its tags`,
  );
}

/**
 * Keeps the steps a target names and, transitively, every step they depend on. Returns how
 * many planned changes the targets left out.
 */
function selectTargets(p: Planning, targets: string[]): number {
  const globs = targets.map(compileAddressGlob);
  const keep = new Set<string>();
  const pending: string[] = [];
  for (const address of p.steps.keys()) if (matchesAnyGlob(address, globs)) pending.push(address);
  for (let i = 0; i < targets.length; i++) {
    const glob = globs[i]!;
    if ([...p.steps.keys()].some((a) => glob.test(a))) continue;
    // Say which: a target whose resources are as declared, or one that names nothing at all (a typo).
    const known = p.desired.resources.some((d) => glob.test(d.address)) || [...p.index.byAddress.keys()].some((a) => glob.test(a));
    p.warnings.push(
      known
        ? `--target ${targets[i]} matches no change: what it names is live as declared`
        : `--target ${targets[i]} matches nothing: no resource the manifests declare or the org holds has such an address (a typo?)`,
    );
  }
  while (pending.length > 0) {
    const address = pending.pop()!;
    if (keep.has(address)) continue;
    keep.add(address);
    for (const dep of p.steps.get(address)?.step.dependsOn ?? []) pending.push(dep);
  }
  const excluded = p.steps.size - keep.size;
  for (const address of [...p.steps.keys()]) if (!keep.has(address)) p.steps.delete(address);
  if (excluded > 0) {
    p.warnings.push(`${excluded} other change${excluded === 1 ? ' is' : 's are'} not in this plan because of --target`);
  }
  return excluded;
}

function summarise(steps: PlanStep[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, delete: 0 };
  for (const s of steps) summary[s.action]++;
  return summary;
}

/**
 * Plans the steps that take `live` to `desired`. A plan that would delete what it must not
 * (see safety.ts) is still returned, with every reason in `refusals`: views show it whole, and
 * {@link assertSafe} stops it before apply.
 */
export function plan(desired: DesiredState, live: LiveState, options: PlanOptions = {}): Plan {
  const targets = options.targets ?? [];
  checkTargets(targets);
  if (live.org === null && options.bootstrap !== true) return refuseInvisibleOrg(desired);
  const renamed = applyRenames(desired, live);
  // Only a plan with renames and with ignore or protect globs needs the addresses as read.
  const globbed = desired.settings.ignore.length > 0 || desired.settings.protect.length > 0;
  const liveAddressOf = renamed.live === live || !globbed ? undefined : renamed.liveAddressOf;
  live = renamed.live;
  const p: Planning = {
    desired,
    live,
    previousAddress: renamed.previousAddress,
    index: indexLive(live),
    ignore: desired.settings.ignore.map(compileAddressGlob),
    warnings: [],
    refusals: [...renamed.refusals],
    steps: new Map(),
    rotateSecrets: options.rotateSecrets === true,
    creating: new Set(),
  };
  if (liveAddressOf) p.liveAddressOf = liveAddressOf;
  const formerOf = globbed ? formerAddressesOf(desired, liveAddressOf) : undefined;
  if (formerOf) p.formerAddressesOf = formerOf;
  refusePinnedOrgOfAnotherName(p);
  const resources = normaliseDesired(p);
  const matching = matchResources(p, resources);
  planCreates(p, matching.creates);
  planUpdates(p, matching.pairs);
  waitForFreedNames(p);
  planRoleChanges(p, matching.roleChanges);
  const deletes = chooseDeletes(p, matching.unmatchedLive, resources);
  // What holds them: what each delete waits for, and (safety) what would keep one from happening.
  const holders = p.index.holdersOf(new Set(deletes.keys()));
  planDeletes(p, deletes, holders);
  // Before --target leaves some out: a declared reference holds what it names whether targeted or not.
  const plannedSteps = [...p.steps.values()].map((s) => s.step);
  const untargeted = targets.length > 0 ? selectTargets(p, targets) : undefined;
  explainReplacements(p);
  noteTagsOfDeletedRepos(p);

  const steps = orderSteps([...p.steps.values()]);
  const refusals: PlanRefusal[] = [...p.refusals, ...findRefusals({
    steps,
    plannedSteps,
    live,
    index: p.index,
    holders,
    desiredAddresses: p.index.ambiguous.size > 0 ? new Set(resources.map((r) => r.address)) : new Set(),
    prune: desired.settings.prune,
    protect: desired.settings.protect.map(compileAddressGlob),
    ...(formerOf ? { formerAddressesOf: formerOf } : {}),
    ignore: p.ignore,
    maxDeleteRatio: options.maxDeleteRatio ?? DEFAULT_MAX_DELETE_RATIO,
    allowMassDelete: options.allowMassDelete ?? false,
  })];

  const org: Plan['org'] = { name: desired.org.name };
  if (live.org) org.uid = live.org.uid;
  const result: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    org,
    summary: summarise(steps),
    steps,
    warnings: p.warnings,
    refusals,
    fingerprints: [],
  };
  if (untargeted !== undefined) result.untargeted = untargeted;
  return result;
}

/**
 * A pinned `org.uid` whose live root group has another name (DESIGN.md §4): a manifest cannot
 * take over another org by pinning its uid. Renaming the org needs `renamedFrom` on the org.
 */
function refusePinnedOrgOfAnotherName(p: Planning): void {
  const { org } = p.desired;
  const live = p.live.org;
  if (org.uid === undefined || live === null || live.name === org.name) return;
  const declared = p.desired.resources.find((r) => r.address === ORG_ADDRESS);
  if (declared?.renamedFrom === live.name) return;
  p.refusals.push({
    rule: 'org-name-mismatch',
    message:
      `org.uid ${org.uid} is pinned, but that root group is named ${JSON.stringify(live.name)} live, not ${JSON.stringify(org.name)}: ` +
      `a manifest may not take over another org by its uid; fix org.uid, or to rename the org write renamedFrom: ${JSON.stringify(live.name)} on it`,
    addresses: [ORG_ADDRESS],
  });
}

/** Whether a kind's resources name a role (a binding's role, a `roleRef` field). */
function referencesRoles(kind: Kind): boolean {
  return kind === 'roleBinding' || roleRefFields(kind).length > 0;
}

/** The plan for an org that is not visible, without `bootstrap`: no step, one refusal. */
function refuseInvisibleOrg(desired: DesiredState): Plan {
  return {
    formatVersion: PLAN_FORMAT_VERSION,
    org: { name: desired.org.name },
    summary: { create: 0, update: 0, delete: 0 },
    steps: [],
    warnings: [],
    refusals: [{
      rule: 'org-not-visible',
      message:
        `org ${desired.org.name} is not visible (no root group of that name): a wrong URL, a token of another tenant or a token scoped below the org ` +
        'look exactly like an org that does not exist; to create it, plan with bootstrap (--bootstrap)',
      addresses: [ORG_ADDRESS],
    }],
    fingerprints: [],
  };
}

/** Throws UnsafePlanError when the plan is refused: the gate before anything is applied. */
export function assertSafe(plan: Plan): void {
  if (plan.refusals.length > 0) throw new UnsafePlanError(plan.refusals);
}
