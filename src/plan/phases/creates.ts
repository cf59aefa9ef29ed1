/**
 * Phase 3, creates: a step per declared resource with no live counterpart, parent first, with the references it needs. Pure (src/plan/index.ts runs the phases in order).
 */
import { type Made, type Planning, isIgnoredDeclared } from './planning.js';
import { createFields } from '../fields.js';
import { type OrderedStep, orderSteps } from '../order.js';
import { referenceAddress, roleRefAddress } from '../references.js';
import { type IdentityKey, ORG_ADDRESS, type RoleKey } from '../../model/address.js';
import { descriptorOf } from '../../model/kinds.js';
import type { CreateStep, UidReference, UpdateStep } from '../../model/plan.js';
import type { DesiredResource } from '../../model/resources.js';

/**
 * The role references of a resource's `roleRef` fields (an identity provider's defaultRole):
 * the uid each is sent as — known, or filled from the create of a role this plan makes — or
 * the address of the first one that neither exists nor is created.
 */
export function resolveRoleRefs(
  p: Pick<Planning, 'live' | 'index'>,
  d: DesiredResource,
  fieldNames: readonly string[],
  creating: ReadonlySet<string>,
): { refs: Record<string, UidReference>; dependsOn: string[] } | { missing: string } {
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
    refs[descriptor.orgScopeField] = p.live.org
      ? { address: ORG_ADDRESS, uid: p.live.org.uid }
      : { address: ORG_ADDRESS };
    if (!p.live.org) dependsOn.push(ORG_ADDRESS);
  }
  return { refs, dependsOn };
}

/** Puts the resolved role references into a step: `refs` for the reader, the uid into `after` when known. */
export function applyRoleRefs(step: CreateStep | UpdateStep, refs: Record<string, UidReference>): void {
  if (Object.keys(refs).length === 0) return;
  step.refs = { ...step.refs, ...refs };
  for (const [field, ref] of Object.entries(refs)) {
    if (ref.uid !== undefined) step.after[field] = ref.uid;
    else delete step.after[field];
  }
}

/**
 * The uid a binding body field needs: known now when the target exists live (or is a
 * built-in), else the address of the create step that will make it. `missing` when neither.
 */
export function resolveReference(
  p: Pick<Planning, 'live' | 'index'>,
  key: IdentityKey | RoleKey,
  refAddress: string,
  creating: ReadonlySet<string>,
): { ref: UidReference; dependsOn?: string } | 'missing' {
  if ('uid' in key) return { ref: { address: refAddress, uid: key.uid } };
  if ('builtin' in key) {
    const uid = p.live.builtinRoles[key.builtin];
    return uid === undefined ? 'missing' : { ref: { address: refAddress, uid } };
  }
  const existing = p.index.at(refAddress);
  if (existing) return { ref: { address: refAddress, uid: existing.uid } };
  if (creating.has(refAddress)) return { ref: { address: refAddress }, dependsOn: refAddress };
  return 'missing';
}

/** The parent a create hangs under: live (uid known), being created (dependsOn), or missing. */
function resolveParent(
  p: Pick<Planning, 'index'>,
  parent: string,
  creating: ReadonlySet<string>,
): { parentUid?: string; dependsOn?: string } | 'missing' {
  const existing = p.index.at(parent);
  if (existing) return { parentUid: existing.uid };
  if (creating.has(parent)) return { dependsOn: parent };
  return 'missing';
}

/** What the creates phase makes: its steps and warnings, and the addresses it creates (what later phases may wait for). */
export interface Creates extends Made {
  creating: ReadonlySet<string>;
}

export function planCreates(
  p: Pick<Planning, 'desired' | 'live' | 'index' | 'ignore'>,
  creates: DesiredResource[],
): Creates {
  const made: Made = { steps: [], warnings: [] };
  const candidates: OrderedStep[] = creates
    .filter((d) => !isIgnoredDeclared(p, d))
    .map((d) => ({
      step: { action: 'create', kind: d.kind, address: d.address, parent: d.parentAddress, after: {} },
      groupPath: d.groupPath,
    }));
  const byAddress = new Map(creates.map((d) => [d.address, d]));
  // In execution order a parent (and a referenced identity/role) is decided before what
  // needs it, so one pass knows whether each prerequisite will really be created.
  const creating = new Set<string>();
  for (const candidate of orderSteps(candidates)) {
    const d = byAddress.get(candidate.address)!;
    const dependsOn: string[] = [];
    const step: CreateStep = {
      action: 'create',
      kind: d.kind,
      address: d.address,
      parent: d.parentAddress,
      after: createFields(d),
    };
    if (d.parentAddress !== null) {
      const parent = resolveParent(p, d.parentAddress, creating);
      if (parent === 'missing') {
        made.warnings.push(
          `${d.address} is not created: its parent ${d.parentAddress} neither exists nor is created (ignored?)`,
        );
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
        made.warnings.push(`${d.address} is not created: ${missing.address} neither exists nor is created (ignored?)`);
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
    const roleRefs = resolveRoleRefs(
      p,
      d,
      [
        ...Object.keys(step.after),
        ...(descriptorOf(d.kind).orgScopeField ? [descriptorOf(d.kind).orgScopeField!] : []),
      ],
      creating,
    );
    if ('missing' in roleRefs) {
      made.warnings.push(`${d.address} is not created: ${roleRefs.missing} neither exists nor is created (ignored?)`);
      continue;
    }
    applyRoleRefs(step, roleRefs.refs);
    dependsOn.push(...roleRefs.dependsOn);
    if (d.secrets) step.secrets = { ...d.secrets };
    if (dependsOn.length > 0) step.dependsOn = [...new Set(dependsOn)].sort();
    step.source = d.source;
    if (p.live.org === null && d.address === ORG_ADDRESS)
      step.reason = `bootstrap: no root group named ${p.desired.org.name} is visible to this token`;
    creating.add(d.address);
    made.steps.push({ step, groupPath: d.groupPath });
  }
  return { ...made, creating };
}
