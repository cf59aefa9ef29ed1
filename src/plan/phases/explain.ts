/**
 * Phase 8, explain: notes for the reader — a delete and a create that replace one resource, the tags deleted with their repo. Pure (src/plan/index.ts runs the phases in order).
 */
import { byAddress, type StepsByAddress } from './planning.js';
import type { OrderedStep } from '../order.js';
import { collectDependencies } from './targets.js';
import { countLabel, listNames } from '../settings.js';
import { descriptorOf, type Kind } from '../../model/kinds.js';
import type { KindDescriptor } from '../../model/kind-descriptor.js';
import type { PlanStep } from '../../model/plan.js';

/**
 * The explain phase: the kept steps with the reasons it gives them (new step objects for those),
 * and its notes — replacements that look like renames or moves, what goes with its parent.
 */
export function explain(kept: readonly OrderedStep[]): { steps: OrderedStep[]; warnings: string[] } {
  const steps = byAddress(kept);
  const explained = explainReplacements(steps);
  return {
    steps: withReasons(kept, explained.reasons),
    warnings: [...explained.warnings, ...noteWhatGoesWithParents(steps)],
  };
}

/** What explaining replacements makes: a reason for steps that have none (address → reason), and warnings. */
interface Explained {
  reasons: Map<string, string>;
  warnings: string[];
}

/** The steps with the reasons explaining gave them (new step objects for those; the rest as they were). */
function withReasons<S extends { step: PlanStep }>(steps: readonly S[], reasons: ReadonlyMap<string, string>): S[] {
  if (reasons.size === 0) return [...steps];
  return steps.map((s) => {
    const reason = reasons.get(s.step.address);
    return reason === undefined ? s : { ...s, step: { ...s.step, reason } };
  });
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
function explainReplacements(steps: StepsByAddress): Explained {
  const explained: Explained = { reasons: new Map(), warnings: [] };
  const reason = (step: PlanStep, text: string) => {
    if (step.reason === undefined && !explained.reasons.has(step.address)) explained.reasons.set(step.address, text);
  };
  const candidates: PlanStep[] = [];
  for (const { step } of steps.values()) {
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
      if (replacement.label === 'move' && isReplacedParent(steps, deleted, created)) continue;
      paired.add(created).add(deleted);
      const lost = collectDependencies(steps, deleted.address).size;
      reason(created, `looks like a ${replacement.label} of ${deleted.address}`);
      reason(deleted, `looks like a ${replacement.label} to ${created.address}`);
      const oldName = String(deleted.action === 'delete' ? deleted.before?.name : undefined);
      const advice =
        replacement.label === 'rename'
          ? `; to rename it in place instead (same uid, everything beneath and every binding kept), add renamedFrom: ${JSON.stringify(oldName)} to ${created.address}`
          : '; a move to another group cannot be done in place: the uids of the moved resources will change';
      explained.warnings.push(
        `${deleted.address} → ${created.address} looks like a ${replacement.label}: resources are matched by ${replacement.matchedBy}, ` +
          `so this is a delete and a create; the new one gets a new uid` +
          `${lost > 0 ? `, and ${lost} other delete${lost === 1 ? ' comes' : 's come'} with it` : ''}${advice}`,
      );
    }
  }
  return explained;
}

/** The old parent is deleted and the new one created: the child goes along with its group. */
function isReplacedParent(steps: StepsByAddress, deleted: PlanStep, created: PlanStep): boolean {
  return steps.get(deleted.parent!)?.step.action === 'delete' && steps.get(created.parent!)?.step.action === 'create';
}

/**
 * What goes with its parent (a repo's tags) is deleted with it and shown as steps; say how many
 * in one note per kind, since --max-delete-ratio judges the parent and not what goes with it
 * (see safety.ts).
 */
function noteWhatGoesWithParents(steps: StepsByAddress): string[] {
  const warnings: string[] = [];
  // Per kind that goes with its parent (KindDescriptor `goesWithParent`: a repo's tags).
  const byKind = new Map<Kind, { parents: Set<string>; n: number }>();
  for (const { step } of steps.values()) {
    if (
      step.action !== 'delete' ||
      step.parent == null ||
      (descriptorOf(step.kind) as KindDescriptor).goesWithParent !== true
    )
      continue;
    if (steps.get(step.parent)?.step.action !== 'delete') continue;
    const entry = byKind.get(step.kind) ?? { parents: new Set<string>(), n: 0 };
    entry.parents.add(step.parent);
    entry.n++;
    byKind.set(step.kind, entry);
  }
  for (const [kind, { parents, n }] of byKind) {
    const descriptor = descriptorOf(kind);
    const parent = descriptorOf(descriptor.parentKind as Kind).label;
    warnings.push(
      `${countLabel(kind, n)} ${n === 1 ? 'goes' : 'go'} with ${parents.size === 1 ? `its deleted ${parent.one}` : `${parents.size} deleted ${parent.many}`} ` +
        `(${listNames([...parents].sort())}): deleting a ${parent.one} deletes its ${descriptor.label.many}`,
    );
  }
  return warnings;
}
