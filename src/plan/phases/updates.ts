/**
 * Phase 4, updates: a PATCH per matched pair whose managed fields differ (renames included), a binding's new role as one PATCH of roleUid, and (phase 6, freed names) the edges renames that free a name need. Pure (src/plan/index.ts runs the phases in order).
 */
import { applyRoleRefs, resolveReference, resolveRoleRefs } from './creates.js';
import type { Matching } from './match.js';
import { byAddress, type Made, type Planning, type StepsByAddress, isIgnoredDeclared } from './planning.js';
import { type FieldChange, diffManagedFields } from '../fields.js';
import { describeRoleKey, roleRefAddress } from '../references.js';
import { type RoleKey, matchesAnyGlob } from '../../model/address.js';
import { descriptorOf } from '../../model/kinds.js';
import type { UpdateStep } from '../../model/plan.js';
import type { OrderedStep } from '../order.js';
import { pushTo } from '../../util/multimap.js';

/**
 * The edges freed names need: a step that takes a name a rename in the same plan frees waits for
 * that rename — a create of the old name (repo `legacy` renamed to `web`, a new `legacy`
 * declared), or another rename onto it (`web` renamed to `x2`, `app` renamed to `web`). The API
 * refuses a second sibling of one name. Returns, per waiting step, the renames it waits for.
 */
function freedNameEdges(steps: StepsByAddress): Map<string, string[]> {
  const edges = new Map<string, string[]>();
  for (const { step } of steps.values()) {
    if (step.action !== 'update' || step.previousAddress === undefined) continue;
    const taker = steps.get(step.previousAddress)?.step;
    if (taker === undefined || taker === step) continue;
    if (taker.action !== 'create' && !(taker.action === 'update' && taker.previousAddress !== undefined)) continue;
    pushTo(edges, taker.address, step.address);
  }
  return edges;
}

/** The steps with the edges freed names need (new step objects for those that gain one; the rest as they were). */
export function waitForFreedNames(steps: readonly OrderedStep[]): OrderedStep[] {
  const edges = freedNameEdges(byAddress(steps));
  if (edges.size === 0) return [...steps];
  return steps.map((s) => {
    const more = edges.get(s.step.address);
    return more === undefined
      ? s
      : { ...s, step: { ...s.step, dependsOn: [...new Set([...(s.step.dependsOn ?? []), ...more])].sort() } };
  });
}

/** A change the update sends (a cleared one is shown, not sent). */
const isSent = (c: FieldChange): boolean => !c.cleared;

const NO_PATHS: readonly string[] = [];

export function planUpdates(
  p: Pick<Planning, 'live' | 'index' | 'ignore' | 'liveAddressOf' | 'previousAddress' | 'rotateSecrets'>,
  pairs: Matching['pairs'],
  creating: ReadonlySet<string>,
): Made {
  const made: Made = { steps: [], warnings: [] };
  // Indexed: per matched resource, mostly before V8 optimises it (a for…of allocates then).
  for (let i = 0; i < pairs.desired.length; i++) {
    const d = pairs.desired[i]!;
    const l = pairs.live[i]!;
    // A pair is declared: only the addresses count, not the ignored identity of a binding.
    if (isIgnoredDeclared(p, d) || matchesAnyGlob(l.address, p.ignore)) continue;
    const liveAddress = p.ignore.length > 0 ? p.liveAddressOf?.(l) : undefined;
    if (liveAddress !== undefined && liveAddress !== l.address && matchesAnyGlob(liveAddress, p.ignore)) {
      // Renames moved an ignored resource under a declared address: still left alone, and said.
      made.warnings.push(
        `${d.address} is declared, but the live resource it names is ${liveAddress}, which settings.ignore leaves alone: it is not changed`,
      );
      continue;
    }
    const changes = diffManagedFields(d, l);
    const rotate = p.rotateSecrets && d.secrets !== undefined ? Object.keys(d.secrets) : NO_PATHS;
    if (rotate.length === 0 && !changes.some(isSent)) continue;
    const descriptor = descriptorOf(d.kind);
    if (!descriptor.hasUpdate) {
      // Immutable, and a replace would need two steps at one address.
      const what = changes
        .map((c) => `${c.field} ${String(c.before)} but the manifests say ${String(c.after)}`)
        .join('; ');
      made.warnings.push(`${d.address} has ${what}; ${descriptor.label.many} cannot be changed, delete it to recreate`);
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
    const roleRefs = resolveRoleRefs(p, d, step.updateMask, creating);
    if ('missing' in roleRefs) {
      made.warnings.push(`${d.address} is not updated: ${roleRefs.missing} neither exists nor is created (ignored?)`);
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
    made.steps.push({ step, groupPath: d.groupPath });
  }
  return made;
}

/** The uid a live binding's role has now (for `before.roleUid`). */
function liveRoleUid(p: Pick<Planning, 'live' | 'index'>, role: RoleKey): string | undefined {
  if ('uid' in role) return role.uid;
  if ('builtin' in role) return p.live.builtinRoles[role.builtin];
  return p.index.at(roleRefAddress(role))?.uid;
}

export function planRoleChanges(
  p: Pick<Planning, 'live' | 'index'>,
  roleChanges: Matching['roleChanges'],
  creating: ReadonlySet<string>,
): Made {
  const made: Made = { steps: [], warnings: [] };
  for (const [d, l] of roleChanges) {
    const role = resolveReference(p, d.fields.role, roleRefAddress(d.fields.role), creating);
    if (role === 'missing') {
      made.warnings.push(
        `${d.address} is not planned: ${roleRefAddress(d.fields.role)} neither exists nor is created (ignored?)`,
      );
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
    made.steps.push({ step, groupPath: d.groupPath });
  }
  return made;
}
