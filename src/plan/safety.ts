/**
 * Why a plan is refused (DESIGN.md §4). Every rule is checked and every refusal returned, so
 * a user fixes them all in one round (like Terraform's diagnostics, octoDNS's
 * `raise_if_unsafe`). Pure.
 */
import { matchesAnyGlob, ORG_ADDRESS, type AddressGlob } from '../model/address.js';
import { deleteReliesOn, descriptorOf, KINDS, roleRefFields } from '../model/kinds.js';
import type { RoleKey } from '../model/address.js';
import { roleRefAddress } from './references.js';
import type { CreateStep, DeleteStep, PlanRefusal, PlanStep, UidReference, UpdateStep } from '../model/plan.js';
import { pushTo } from '../util/multimap.js';
import { writtenPaths } from '../model/step-effect.js';
import type { LiveResource, LiveState, PruneSetting } from '../model/resources.js';
import type { Holders, LiveIndex } from './live-index.js';
import {
  countLabel,
  describePruneOff,
  describePruneOn,
  isIgnoredResource,
  isPruned,
  kindLabel,
  listNames,
} from './settings.js';

export interface SafetyInput {
  /** The steps as planned (after --target selection). */
  steps: readonly PlanStep[];
  /** Every step planned, before --target selection (what the manifests declare references stays referenced). */
  plannedSteps?: readonly PlanStep[];
  live: LiveState;
  index: LiveIndex;
  /** What holds the resources the plan deletes (a superset of these steps' deletes: --target may drop some). */
  holders: Holders;
  desiredAddresses: ReadonlySet<string>;
  prune: PruneSetting;
  protect: AddressGlob[];
  ignore: AddressGlob[];
  maxDeleteRatio: number;
  allowMassDelete: boolean;
  /** Every address a live resource answers to: as read before the plan's renames, and under the manifests' old names (protect holds across renames). */
  formerAddressesOf?: (resource: Pick<LiveResource, 'kind' | 'uid' | 'address'>) => string[];
}

function findAmbiguities(input: SafetyInput): PlanRefusal[] {
  const refusals: PlanRefusal[] = [];
  for (const address of [...input.index.ambiguous].sort()) {
    if (!input.desiredAddresses.has(address) && !prunedIfDeclaredByNothing(input, address)) continue;
    const reported = input.live.ambiguities.find((a) => a.address === address)?.uids;
    const uids = reported ?? input.live.resources.filter((r) => r.address === address).map((r) => r.uid);
    refusals.push({
      rule: 'ambiguous-live',
      message: `${address} matches ${uids.length} live resources (${uids.join(', ')}); rename or remove the duplicates, the plan will not guess`,
      addresses: [address],
    });
  }
  return refusals;
}

/**
 * An ambiguous address nothing declares is refused too when prune would delete what is there
 * (found by the review: two invites made by hand for one e-mail and role made no step and no
 * refusal, so plan said "No changes" and drift "No drift"). Ignored or not pruned: left alone.
 */
function prunedIfDeclaredByNothing(input: SafetyInput, address: string): boolean {
  const live = input.live.resources.find((r) => r.address === address);
  if (live === undefined || address === ORG_ADDRESS || descriptorOf(live.kind).permanent) return false;
  if (!isPruned(input.prune, live.kind)) return false;
  const addresses = input.formerAddressesOf ? input.formerAddressesOf(live) : [address];
  return !isIgnoredResource(live, input.ignore) && !addresses.some((a) => matchesAnyGlob(a, input.ignore));
}

function findIncompleteReads(input: SafetyInput, deletes: readonly PlanStep[]): PlanRefusal[] {
  if (input.live.incomplete.length === 0) return [];
  const refusals: PlanRefusal[] = [];
  const reasons = (reads: readonly { reason: string }[]) => reads.map((r) => r.reason).join('; ');
  for (const kind of KINDS) {
    const reads = input.live.incomplete.filter((i) => deleteReliesOn(kind).includes(i.kind));
    if (reads.length === 0) continue;
    const ofKind = deletes.filter((s) => s.kind === kind).map((s) => s.address);
    if (ofKind.length === 0) continue;
    const kindsRead = [...new Set(reads.map((r) => r.kind))].join(', ');
    refusals.push({
      rule: 'incomplete-read',
      message:
        `cannot delete ${countLabel(kind, ofKind.length)} (${listNames(ofKind)}): the live read of ${kindsRead} was incomplete ` +
        `(${reasons(reads)}); run plan again`,
      addresses: ofKind,
    });
  }
  // A create on an incomplete read may duplicate: the resource may be live, in the part not read.
  for (const kind of KINDS) {
    const reads = input.live.incomplete.filter((i) => i.kind === kind);
    if (reads.length === 0) continue;
    const creates = input.steps.filter((s) => s.action === 'create' && s.kind === kind).map((s) => s.address);
    if (creates.length === 0) continue;
    refusals.push({
      rule: 'incomplete-read',
      message:
        `cannot create ${countLabel(kind, creates.length)} (${listNames(creates)}): the live read of ${kind} was incomplete ` +
        `(${reasons(reads)}), so ${creates.length === 1 ? 'it' : 'they'} may exist already in the part not read and a create could duplicate; run plan again`,
      addresses: creates,
    });
  }
  return refusals;
}

function findProtected(input: SafetyInput, deletes: readonly DeleteStep[]): PlanRefusal[] {
  const refusals: PlanRefusal[] = [];
  for (const s of deletes) {
    // By its address now, or as it reads before the plan's renames (a renamed parent never unprotects).
    // (Found by kind and uid: a delete step holds both.)
    const former = input.formerAddressesOf ? input.formerAddressesOf(s) : [s.address];
    const hit = former.find((a) => matchesAnyGlob(a, input.protect));
    if (hit === undefined) continue;
    refusals.push({
      rule: 'protected',
      message: `${s.address}${hit !== s.address ? ` (as ${hit})` : ''} is protected (settings.protect) and may not be deleted${s.reason ? ` (${s.reason})` : ''}`,
      addresses: [s.address],
    });
  }
  return refusals;
}

function whyKept(input: SafetyInput, r: LiveResource): string {
  if (isIgnoredResource(r, input.ignore)) return 'ignored';
  if (input.index.ambiguous.has(r.address)) return 'ambiguous';
  if (!isPruned(input.prune, r.kind)) return describePruneOff(input.prune, r.kind);
  return 'not deleted by this plan';
}

/**
 * The role references a live resource holds that an update step changes: a binding's role
 * (`roleUid` in the mask), an identity provider's `defaultRole` — any field of type `roleRef`.
 * After the step the resource no longer references them.
 */
export function rolesUpdatedAway(step: UpdateStep, live: LiveResource): RoleKey[] {
  if (step.kind !== live.kind) return [];
  const fields = live.fields as unknown as Record<string, unknown>;
  const roles: RoleKey[] = [];
  const written = writtenPaths(step);
  // A reference to a role (a binding's `role`), PATCHed as `roleUid`.
  for (const ref of descriptorOf(live.kind).references ?? []) {
    if (ref === 'role' && written.includes(`${ref}Uid`) && fields[ref] !== undefined)
      roles.push(fields[ref] as RoleKey);
  }
  for (const spec of roleRefFields(live.kind)) {
    if (!written.includes(spec.apiName ?? spec.name)) continue;
    const key = fields[spec.name] as RoleKey | undefined;
    if (key !== undefined) roles.push(key);
  }
  return roles;
}

/**
 * A delete the server would answer with RESOURCE_NOT_EMPTY: a group or repo that keeps a
 * child, an identity or role that a kept binding still references. Judged on the plan's
 * result, not on live state alone: a holder the same plan moves to another role no longer
 * holds the old one, and a kept holder is named at the address the plan leaves it at.
 */
function findNotEmpty(input: SafetyInput, deletes: readonly DeleteStep[]): PlanRefusal[] {
  const deletedUids = new Set(deletes.map((s) => s.uid));
  const updates = new Map<string, UpdateStep>();
  for (const s of input.steps) if (s.action === 'update') updates.set(s.uid, s);
  const referencedBySteps = new Map<string, (CreateStep | UpdateStep)[]>();
  for (const step of input.plannedSteps ?? input.steps) {
    if (step.action === 'delete' || !step.refs) continue;
    for (const ref of Object.values(step.refs) as (UidReference | undefined)[])
      if (ref) pushTo(referencedBySteps, ref.address, step);
  }
  const refusals: PlanRefusal[] = [];
  const { holders } = input;
  for (const s of deletes) {
    const blockers = (holders.childrenOf.get(s.address) ?? []).filter((c) => !deletedUids.has(c.uid));
    const referenceable = descriptorOf(s.kind).referenceable;
    if (referenceable) {
      for (const b of holders.bindingsByRef.get(s.address) ?? []) {
        if (deletedUids.has(b.uid)) continue;
        // A binding PATCHed to another role, or an identity provider given another default
        // role, no longer references this role (a binding keeps its identity).
        const update = updates.get(b.uid);
        if (update && rolesUpdatedAway(update, b).some((k) => roleRefAddress(k) === s.address)) continue;
        blockers.push(b);
      }
    }
    // What this plan creates or updates to reference it holds it too (a declared binding to an
    // identity the manifests leave out): the create would fail, or the delete would.
    const declaredHolders = referenceable ? (referencedBySteps.get(s.address) ?? []) : [];
    if (blockers.length === 0 && declaredHolders.length === 0) continue;
    const names = blockers.map((b) => {
      const update = updates.get(b.uid);
      return update && update.address !== b.address
        ? `${update.address} (updated by this plan from ${b.address})`
        : `${b.address} (${whyKept(input, b)})`;
    });
    for (const step of declaredHolders)
      names.push(
        `${step.address} (declared${step.source ? ` at ${step.source.file}:${step.source.line}:${step.source.column}` : ''}, ${step.action}d by this plan)`,
      );
    const verb = referenceable ? 'is still referenced by' : 'still holds';
    refusals.push({
      rule: 'not-empty',
      message: `cannot delete ${s.address}: it ${verb} ${listNames(names)}; the API would refuse with RESOURCE_NOT_EMPTY${pruneOffFix(input, blockers)}${keepOrUnreferenceFix(s, declaredHolders)}`,
      addresses: [s.address, ...blockers.map((b) => b.address), ...declaredHolders.map((d) => d.address)],
    });
  }
  return refusals;
}

/**
 * How to unblock the delete of an identity (a person whose members line is gone, say) that the
 * manifests still name by its uid (issue 50): keep it, or stop naming it.
 */
function keepOrUnreferenceFix(s: DeleteStep, declaredHolders: readonly (CreateStep | UpdateStep)[]): string {
  if (declaredHolders.length === 0 || descriptorOf(s.kind).access?.is !== 'principal') return '';
  const holders = listNames(declaredHolders.map((d) => d.address));
  return `. To fix: keep ${s.address} — declare it in its group's identities, or keep the members line that brought it — or remove ${holders}, which name${declaredHolders.length === 1 ? 's' : ''} it by uid`;
}

/**
 * How to unblock a delete held up by resources kept only because pruning of their kind is off
 * (a moved identity whose bindings stay, say): turn pruning on, or remove them by hand.
 */
function pruneOffFix(input: SafetyInput, blockers: readonly LiveResource[]): string {
  const kinds = KINDS.filter((k) =>
    blockers.some((b) => b.kind === k && whyKept(input, b) === describePruneOff(input.prune, k)),
  );
  if (kinds.length === 0) return '';
  const on = kinds.map((k) => describePruneOn(input.prune, k));
  const what = kinds.map((k) => kindLabel(k, 2)).join(' and ');
  return `. To fix: turn pruning of ${what} on (${[...new Set(on)].join(', ')}) so this plan deletes them too, or delete them by hand first`;
}

/**
 * Tags are left out: they are never managed on their own (a repo's tags go with it), so a
 * repo delete is judged as one repo, not as all of its tags.
 */
function findMassDeletes(input: SafetyInput, deletes: readonly PlanStep[]): PlanRefusal[] {
  if (input.allowMassDelete) return [];
  if (deletes.length === 0) return [];
  // What is managed: every live resource but the org root, less the ignored ones.
  let managed = input.index.countByKind;
  if (input.ignore.length > 0) {
    managed = new Map();
    for (const r of input.live.resources) {
      if (r.address === ORG_ADDRESS || isIgnoredResource(r, input.ignore)) continue;
      managed.set(r.kind, (managed.get(r.kind) ?? 0) + 1);
    }
  }
  const refusals: PlanRefusal[] = [];
  for (const kind of KINDS) {
    // A kind the manifests do not declare on its own (a repo's tags) is judged with its parent.
    if (descriptorOf(kind).manifest === null) continue;
    const total = managed.get(kind) ?? 0;
    const ofKind = deletes.filter((s) => s.kind === kind);
    if (total < 10 || ofKind.length / total <= input.maxDeleteRatio) continue;
    refusals.push({
      rule: 'mass-delete',
      message:
        `the plan deletes ${ofKind.length} of ${countLabel(kind, total)} (${Math.round((100 * ofKind.length) / total)}%), ` +
        `more than --max-delete-ratio ${input.maxDeleteRatio}; pass --allow-mass-delete if that is intended`,
      addresses: ofKind.map((s) => s.address),
    });
  }
  return refusals;
}

/** Every reason to refuse the plan, grouped by rule in a fixed order. */
export function findRefusals(input: SafetyInput): PlanRefusal[] {
  const deletes = input.steps.filter((s): s is DeleteStep => s.action === 'delete');
  return [
    ...findAmbiguities(input),
    ...findIncompleteReads(input, deletes),
    ...findProtected(input, deletes),
    ...findNotEmpty(input, deletes),
    ...findMassDeletes(input, deletes),
  ];
}
