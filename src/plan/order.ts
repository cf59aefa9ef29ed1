/**
 * The one order steps are listed in (STYLE.md §3: order is decided once). Sorting by this key
 * is a valid topological order of every `dependsOn` edge the planner makes:
 * - creates before updates before deletes (a binding's role PATCH may need a new role, and a
 *   role may only be deleted once no binding uses it);
 * - creates by kind in CREATE_ORDER (groups, then what bindings reference, bindings, then tags
 *   after repos), groups shallowest first;
 * - deletes by kind in DELETE_ORDER (bindings, tags, the other leaves, roles, groups), groups
 *   deepest first;
 * - ties by address, so the order is deterministic.
 */
import { pathDepth } from '../model/address.js';
import { CREATE_ORDER, DELETE_ORDER } from '../model/kinds.js';
import type { Action, PlanStep } from '../model/plan.js';

const ACTION_RANK: Record<Action, number> = { create: 0, update: 1, delete: 2 };
const CREATE_RANK = new Map(CREATE_ORDER.map((k, i) => [k, i]));
const DELETE_RANK = new Map(DELETE_ORDER.map((k, i) => [k, i]));

/** A step with the group path it sits in, which the key's depth needs. */
export interface OrderedStep {
  step: PlanStep;
  groupPath: string;
}

interface Keyed {
  step: PlanStep;
  depth: number;
}

function compareKeys(a: Keyed, b: Keyed): number {
  const sa = a.step;
  const sb = b.step;
  const byAction = ACTION_RANK[sa.action] - ACTION_RANK[sb.action];
  if (byAction !== 0) return byAction;
  const ranks = sa.action === 'delete' ? DELETE_RANK : CREATE_RANK;
  const byKind = ranks.get(sa.kind)! - ranks.get(sb.kind)!;
  if (byKind !== 0) return byKind;
  const depth = a.depth - b.depth;
  if (depth !== 0) return sa.action === 'delete' ? -depth : depth;
  return sa.address < sb.address ? -1 : sa.address > sb.address ? 1 : 0;
}

/**
 * Steps in execution order: by the key above, and — where an edge goes against it (a create
 * that waits for the rename freeing its name) — each step after what it depends on, the key
 * deciding among the steps that are ready.
 */
export function orderSteps(steps: readonly OrderedStep[]): PlanStep[] {
  const sorted = steps
    .map((s): Keyed => ({ step: s.step, depth: pathDepth(s.groupPath) }))
    .sort(compareKeys)
    .map((s) => s.step);
  const position = new Map(sorted.map((s, i) => [s.address, i]));
  const against = sorted.some((s, i) => (s.dependsOn ?? []).some((d) => (position.get(d) ?? -1) > i));
  return against ? dependenciesFirst(sorted, position) : sorted;
}

/** A stable topological order: the sorted order, each step moved after the steps it waits for. */
function dependenciesFirst(sorted: readonly PlanStep[], position: ReadonlyMap<string, number>): PlanStep[] {
  const out: PlanStep[] = [];
  const placed = new Set<string>();
  const visiting = new Set<string>();
  const place = (step: PlanStep): void => {
    if (placed.has(step.address) || visiting.has(step.address)) return; // a cycle is the graph's to refuse
    visiting.add(step.address);
    for (const d of step.dependsOn ?? []) {
      const at = position.get(d);
      if (at !== undefined) place(sorted[at]!);
    }
    visiting.delete(step.address);
    placed.add(step.address);
    out.push(step);
  };
  for (const step of sorted) place(step);
  return out;
}
