/**
 * Phase 5, deletes: which unmatched live resources to delete (pruned, not ignored) and what each waits for (children first). Pure (src/plan/index.ts runs the phases in order).
 */
import { type Made, type Planning, isIgnoredLive, referencesRoles } from './planning.js';
import type { OrderedStep } from '../order.js';
import { displayFields } from '../fields.js';
import type { Holders } from '../live-index.js';
import { roleRefAddress } from '../references.js';
import { rolesUpdatedAway } from '../safety.js';
import { countLabel, describePruneOff, isPruned, listNames } from '../settings.js';
import { ORG_ADDRESS } from '../../model/address.js';
import { type Kind, descriptorOf } from '../../model/kinds.js';
import type { KindDescriptor } from '../../model/kind-descriptor.js';
import type { DeleteStep } from '../../model/plan.js';
import type { DesiredResource, LiveResource } from '../../model/resources.js';
import { pushTo } from '../../util/multimap.js';

/** Whether a kind goes with its parent (KindDescriptor `goesWithParent`). */
function goesWithParent(kind: Kind): boolean {
  return (descriptorOf(kind) as KindDescriptor).goesWithParent === true;
}

/**
 * Which unmatched live resources to delete: those of a pruned kind (or replaced by a declaration:
 * a member's expired invite), not ignored, not the org.
 * A kind that goes with its parent (a repo's tags: not declared in manifests as a rule) is
 * pruned on its own only where the manifests declare some for its parent; those of a deleted
 * parent go with it.
 */
function chooseDeletes(
  p: Pick<Planning, 'desired' | 'index' | 'ignore' | 'formerAddressesOf' | 'replaced'>,
  unmatchedLive: LiveResource[],
  desired: DesiredResource[],
  warnings: string[],
): Map<string, LiveResource> {
  const prune = p.desired.settings.prune;
  const deletes = new Map<string, LiveResource>();
  const keptByKind = new Map<Kind, string[]>();
  const followers: LiveResource[] = [];
  for (const l of unmatchedLive) {
    if (l.address === ORG_ADDRESS || isIgnoredLive(p, l)) continue;
    if (goesWithParent(l.kind)) followers.push(l);
    else if (descriptorOf(l.kind).permanent) {
      warnings.push(
        `${l.address} stays: ${descriptorOf(l.kind).label.many} are permanent, so leaving one out of the manifests changes nothing`,
      );
    } else if (isPruned(prune, l.kind) || p.replaced.has(l.address)) deletes.set(l.address, l);
    else pushTo(keptByKind, l.kind, l.address);
  }
  // Read only when a live resource goes with its parent: one pass over every declared resource.
  const parentsWithDeclared =
    followers.length === 0
      ? new Set<string>()
      : new Set(desired.filter((d) => goesWithParent(d.kind)).map((d) => `${d.kind}\u0000${d.parentAddress}`));
  for (const t of followers) {
    const repoDeleted = t.parentAddress !== null && deletes.has(t.parentAddress);
    if (!isPruned(prune, t.kind)) {
      if (repoDeleted) pushTo(keptByKind, t.kind, t.address);
    } else if (repoDeleted || parentsWithDeclared.has(`${t.kind}\u0000${t.parentAddress}`)) {
      deletes.set(t.address, t);
    }
  }
  for (const [kind, addresses] of [...keptByKind].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const n = addresses.length;
    warnings.push(
      `${countLabel(kind, n)} not in the manifests ${n === 1 ? 'is' : 'are'} kept (${listNames(addresses.sort())}): ` +
        describePruneOff(prune, kind),
    );
  }
  return deletes;
}

/** What the deletes phase makes: its steps and warnings, and what holds the deleted (the safety rules read it). */
export interface Deletes extends Made {
  holders: Holders;
}

/**
 * The deletes the plan makes: chosen among the live resources nothing declared, each a step that
 * waits for what holds it — and for the `updates` that move a reference off a deleted role.
 */
export function planDeletes(
  p: Pick<Planning, 'desired' | 'index' | 'ignore' | 'formerAddressesOf' | 'replaced'>,
  unmatchedLive: LiveResource[],
  desired: DesiredResource[],
  updates: readonly OrderedStep[],
): Deletes {
  const warnings: string[] = [];
  const deletes = chooseDeletes(p, unmatchedLive, desired, warnings);
  const holders = p.index.holdersOf(new Set(deletes.keys()));
  return { steps: deleteSteps(p, deletes, holders, updates), warnings, holders };
}

function deleteSteps(
  p: Pick<Planning, 'index'>,
  deletes: Map<string, LiveResource>,
  holders: Holders,
  updates: readonly OrderedStep[],
): OrderedStep[] {
  const steps: OrderedStep[] = [];
  // A binding PATCHed to another role, or an identity provider whose default role the plan
  // changes, stops referencing the old role, like a deleted binding: the delete waits for it.
  const updatedAway = new Map<string, string[]>();
  const rolesDeleted = [...deletes.keys()].some((a) => a.startsWith('role:'));
  for (const { step } of updates) {
    // Only a role's delete waits for them; only kinds that reference a role can move off one.
    if (!rolesDeleted || step.action !== 'update' || !referencesRoles(step.kind)) continue;
    const l = p.index.byUid.get(step.uid);
    if (l === undefined) continue;
    for (const role of rolesUpdatedAway(step, l)) pushTo(updatedAway, roleRefAddress(role), step.address);
  }
  for (const l of deletes.values()) {
    const dependsOn: string[] = [];
    for (const child of holders.childrenOf.get(l.address) ?? [])
      if (deletes.get(child.address) === child) dependsOn.push(child.address);
    if (descriptorOf(l.kind).referenceable) {
      for (const b of holders.bindingsByRef.get(l.address) ?? [])
        if (deletes.get(b.address) === b) dependsOn.push(b.address);
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
    if (goesWithParent(l.kind) && l.parentAddress !== null && deletes.has(l.parentAddress))
      step.reason = `${descriptorOf(l.kind).label.one} of deleted ${l.parentAddress}`;
    else {
      // A person is named by the e-mail they signed in with, not only by the resources their
      // members line brought (issue 50): the reviewer sees who loses access.
      const person = personOf(p, l);
      if (person !== undefined) step.reason = person;
    }
    steps.push({ step, groupPath: l.groupPath });
  }
  return steps;
}

/**
 * Who a delete takes access from, when it is a person (an identity with the e-mail the service
 * reports, or a binding of one): "member alice@acme.dev", for the reader. Read from what the
 * kinds are to access (their descriptors), not from kind names.
 */
function personOf(p: Pick<Planning, 'index'>, l: LiveResource): string | undefined {
  const part = descriptorOf(l.kind).access;
  if (part?.is === 'principal')
    return l.email !== undefined
      ? `the person ${l.email}: no members line or declaration names them any more`
      : undefined;
  if (part?.is !== 'grant' || part.to !== 'identity') return undefined;
  const ref = (l.fields as unknown as Record<string, unknown>).identity as { path?: string } | undefined;
  const identity = ref?.path === undefined ? undefined : p.index.at(`identity:${ref.path}`);
  return identity?.email !== undefined ? `member ${identity.email}: their members line is gone` : undefined;
}
