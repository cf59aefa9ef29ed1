/**
 * The dependency graph the executor runs (DESIGN.md §1, §4). Pure: built from a plan's steps,
 * checked once before anything is sent to the API, so that a malformed (e.g. hand-edited) plan
 * is refused whole instead of failing half-way.
 */
import { UserError } from '../model/errors.js';
import type { PlanStep } from '../model/plan.js';

/** A plan's steps cannot be run: duplicate addresses or a dependency cycle. */
export class InvalidPlanError extends UserError {
  constructor(message: string) {
    super('PLAN_INVALID', `the plan cannot be applied: ${message}`);
  }
}

/**
 * Steps and the edges between them.
 * Invariants: every address in `waitsFor`/`dependents` is the address of a step in `steps`;
 * the graph is acyclic; `steps` keeps the plan's order (the order ready steps are started in).
 */
export interface StepGraph {
  steps: readonly PlanStep[];
  byAddress: ReadonlyMap<string, PlanStep>;
  /** address → addresses of steps in this plan that must be done before it starts. */
  waitsFor: ReadonlyMap<string, readonly string[]>;
  /** address → addresses of steps that wait for it (the reverse of `waitsFor`). */
  dependents: ReadonlyMap<string, readonly string[]>;
}

/**
 * Builds the graph from the plan's `dependsOn` edges and nothing else (order is decided once,
 * by the planner: STYLE.md §3). A plan that lacks an edge correctness needs is rejected, not
 * mended: a create or update must wait for the create of its parent and of every resource it
 * references (it needs their uids); a parent's delete must wait for the deletes of its children
 * (else the API answers RESOURCE_NOT_EMPTY). A `dependsOn` address with no step in the plan is
 * already satisfied — the resource exists (e.g. a plan narrowed with `--target`).
 */
export function buildStepGraph(steps: readonly PlanStep[]): StepGraph {
  const byAddress = new Map<string, PlanStep>();
  for (const step of steps) {
    if (byAddress.has(step.address)) throw new InvalidPlanError(`two steps have the address ${step.address}`);
    byAddress.set(step.address, step);
  }

  const waitsFor = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  for (const step of steps) {
    waitsFor.set(step.address, []);
    dependents.set(step.address, []);
  }
  for (const step of steps) {
    for (const dep of new Set(step.dependsOn ?? [])) {
      if (dep === step.address) throw new InvalidPlanError(`${step.address} depends on itself`);
      if (!byAddress.has(dep)) continue;
      waitsFor.get(step.address)!.push(dep);
      dependents.get(dep)!.push(step.address);
    }
  }
  const missing = findMissingEdges(steps, byAddress);
  if (missing.length > 0) {
    throw new InvalidPlanError(
      `it lacks ${missing.length === 1 ? 'an ordering edge' : `${missing.length} ordering edges`} that ${missing.length === 1 ? 'it needs' : 'they need'} ` +
        `(a bug in the planner, or an edited plan file): ${missing
          .slice(0, 5)
          .map(([from, to]) => `${from} must wait for ${to}`)
          .join('; ')}` +
        `${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`,
    );
  }

  const cycle = findCycle(steps, waitsFor);
  if (cycle) throw new InvalidPlanError(`its steps depend on each other in a cycle: ${cycle.join(' → ')}`);
  return { steps, byAddress, waitsFor, dependents };
}

/** `[step, what it must wait for]` for every edge correctness needs that `dependsOn` does not give. */
function findMissingEdges(steps: readonly PlanStep[], byAddress: ReadonlyMap<string, PlanStep>): [string, string][] {
  const missing: [string, string][] = [];
  const requires = (from: PlanStep, to: string): void => {
    if (!(from.dependsOn ?? []).includes(to)) missing.push([from.address, to]);
  };
  const isCreate = (address: string | null | undefined): address is string =>
    address != null && byAddress.get(address)?.action === 'create';
  for (const step of steps) {
    if (step.action === 'delete') {
      const parent = step.parent == null ? undefined : byAddress.get(step.parent);
      if (parent?.action === 'delete') requires(parent, step.address);
      continue;
    }
    if (isCreate(step.parent)) requires(step, step.parent);
    for (const ref of Object.values(step.refs ?? {})) if (ref && isCreate(ref.address)) requires(step, ref.address);
  }
  return missing;
}

/** One dependency cycle as a list of addresses (first = last), or null. Iterative DFS. */
function findCycle(steps: readonly PlanStep[], waitsFor: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'closed'>();
  for (const root of steps) {
    if (state.has(root.address)) continue;
    const stack: { address: string; next: number }[] = [{ address: root.address, next: 0 }];
    state.set(root.address, 'open');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const deps = waitsFor.get(top.address)!;
      if (top.next >= deps.length) {
        state.set(top.address, 'closed');
        stack.pop();
        continue;
      }
      const dep = deps[top.next++]!;
      const s = state.get(dep);
      if (s === 'open') {
        const from = stack.findIndex((f) => f.address === dep);
        return [...stack.slice(from).map((f) => f.address), dep];
      }
      if (s === undefined) {
        state.set(dep, 'open');
        stack.push({ address: dep, next: 0 });
      }
    }
  }
  return null;
}

/**
 * Length, in steps, of the longest dependency chain: the fewest sequential rounds any executor
 * needs, however high its concurrency (used to judge the benchmark's achievable rate).
 */
export function measureCriticalPath(graph: StepGraph): number {
  const depth = new Map<string, number>();
  // Plan order is not guaranteed topological for implicit edges, so resolve by memoised DFS.
  const depthOf = (address: string): number => {
    const known = depth.get(address);
    if (known !== undefined) return known;
    const stack: string[] = [address];
    while (stack.length > 0) {
      const a = stack[stack.length - 1]!;
      const pending = graph.waitsFor.get(a)!.filter((d) => !depth.has(d));
      if (pending.length > 0) {
        stack.push(...pending);
        continue;
      }
      stack.pop();
      depth.set(a, 1 + Math.max(0, ...graph.waitsFor.get(a)!.map((d) => depth.get(d)!)));
    }
    return depth.get(address)!;
  };
  return Math.max(0, ...graph.steps.map((s) => depthOf(s.address)));
}
