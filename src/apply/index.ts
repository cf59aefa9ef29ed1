/**
 * The executor (DESIGN.md §1, §4): runs a plan's steps against the API as a dependency graph
 * with bounded concurrency. It emits events (STYLE.md §7) and returns a result; it never prints
 * and never throws because a step failed — a failure is data in the result.
 */
import { assertSafe } from '../plan/index.js';
import pLimit from 'p-limit';
import type { ApiClient } from '../api/types.js';
import type { Plan, PlanStep } from '../model/plan.js';
import { executeStep, InviteCodesNeededError, type InviteCodeRecord, type StepOutcome } from './execute-step.js';
import type { AnswerDifference } from './answer-check.js';
export type { AnswerDifference } from './answer-check.js';
export { InviteCodesNeededError, type InviteCodeRecord } from './execute-step.js';
import { buildStepGraph } from './graph.js';

export { buildStepGraph, measureCriticalPath, InvalidPlanError, type StepGraph } from './graph.js';
export { UnresolvedUidError } from './execute-step.js';
export { readPlanSecrets, secretReader, SecretUnavailableError, type SecretReader } from './secrets.js';
import { readSecretsOnce, secretReader, type SecretReader } from './secrets.js';
import { INVITE_KIND } from '../model/kinds.js';

export const DEFAULT_CONCURRENCY = 8;

/** `because` of a step skipped since the apply was aborted (not a failed dependency). */
export const ABORTED = 'aborted';
/**
 * `because` of a step never started since the API refused the token (PERMISSION_DENIED,
 * UNAUTHENTICATED): every other write would be refused the same way, so none is sent.
 */
export const TOKEN_REFUSED = 'token-refused';

/** Failure codes that say the token cannot do this at all, not that this one step went wrong. */
const TOKEN_FAILURES = new Set(['API_PERMISSION_DENIED', 'API_UNAUTHENTICATED']);

/**
 * What the executor reports while it runs, in order for each step:
 * `step-start` then `step-done` | `step-failed`; or only `step-skipped` for a step that never
 * started. `start` comes first and `end` last, exactly once each.
 */
export type ApplyEvent =
  | { type: 'start'; total: number }
  | { type: 'step-start'; step: PlanStep }
  | { type: 'step-done'; step: PlanStep; uid?: string; ms: number }
  | { type: 'step-failed'; step: PlanStep; error: Error }
  /**
   * After `step-done` of a create or update whose answer does not hold what it wrote: the service
   * keeps something else (it normalized, cut or ignored a value). The step is done — the resource
   * exists, its dependents run — but the org is not what the plan said it would be.
   */
  | { type: 'step-differs'; step: PlanStep; differences: AnswerDifference[] }
  /** `because`: address of the failed step it (transitively) depends on, {@link ABORTED} or {@link TOKEN_REFUSED}. */
  | { type: 'step-skipped'; step: PlanStep; because: string }
  | { type: 'end'; result: ApplyResult };

export interface ApplyOptions {
  /** Steps in flight at most (default 8); a positive integer. */
  concurrency?: number;
  onEvent?: (e: ApplyEvent) => void;
  /** When aborted, steps in flight finish; no new step starts; the rest are skipped. */
  signal?: AbortSignal;
  /** Reads the secrets steps send (default: this process's environment and files). */
  readSecret?: SecretReader;
  /**
   * Keeps the code of each invite the apply creates (`apply --invite-codes FILE`, DESIGN.md §4):
   * the only place a code goes. A plan that creates invites is refused before any request without it.
   * A promise it returns is awaited (the code is encrypted to a key first) before the step is done;
   * when it throws or rejects, the invite is deleted again (a code nobody keeps is a dead invite).
   */
  onInviteCode?: (record: InviteCodeRecord) => unknown;
}

/**
 * The outcome of an apply. Invariant: every step of the plan is in exactly one of done, failed
 * and skipped; `ok` is true exactly when failed and skipped are both empty and no answer
 * differed from what was written (`differs`): only then is the org what the plan said.
 */
export interface ApplyResult {
  /** Addresses, in the order they finished. */
  done: string[];
  /**
   * With the API's reason (the error message) and, for errors platform-sync knows, their
   * stable code (`API_PERMISSION_DENIED`, `API_UNAVAILABLE`, `APPLY_UNRESOLVED_UID`, …).
   */
  failed: { address: string; error: string; code?: string }[];
  skipped: { address: string; because: string }[];
  /**
   * Present when the service's answer to some create or update did not hold what it wrote (each
   * path, both values; never a secret, which is never compared): those steps are done, but the org
   * now holds the answered values, which the next plan shows as changes.
   */
  differs?: ({ address: string } & AnswerDifference)[];
  ok: boolean;
  /** HTTP requests the apply sent, retries included. */
  requests: number;
  ms: number;
}

/**
 * Applies `plan` through `client`. A step starts as soon as every step it depends on is done,
 * never before; ready steps start in plan order. A failed step's transitive dependents are
 * skipped and every independent step still runs. Throws only for a plan that cannot be run at
 * all (UnsafePlanError for a refused plan, InvalidPlanError; before any request) or an invalid
 * `concurrency`.
 */
export async function apply(plan: Plan, client: ApiClient, options: ApplyOptions = {}): Promise<ApplyResult> {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  assertSafe(plan); // a refused plan is shown, never run
  const graph = buildStepGraph(plan.steps);
  // Every secret the plan sends must be readable before the first request.
  const secrets = readSecretsOnce(plan, options.readSecret ?? secretReader());
  if (secrets.error) throw secrets.error;
  // A code nobody keeps is a dead invite: refused before the first request.
  const invites = plan.steps.filter((st) => st.action === 'create' && st.kind === INVITE_KIND).map((st) => st.address);
  if (invites.length > 0 && options.onInviteCode === undefined) throw new InviteCodesNeededError(invites);
  // Each value read once, here: a step that sends it takes it from what was read.
  const readSecret = secrets.read;
  const limit = pLimit(concurrency);
  const startedAt = performance.now();
  const requestsBefore = client.requestCount;

  const result: ApplyResult = { done: [], failed: [], skipped: [], ok: true, requests: 0, ms: 0 };
  const created = new Map<string, string>();
  const unmet = new Map<string, number>();
  const settled = new Set<string>();
  for (const [address, deps] of graph.waitsFor) unmet.set(address, deps.length);

  // A listener that throws is a bug in the caller: it must not turn a good step into a failed
  // one, so it is caught here and rethrown once everything has settled.
  let listenerError: unknown;
  const emit = (e: ApplyEvent): void => {
    if (!options.onEvent) return;
    try {
      options.onEvent(e);
    } catch (err) {
      listenerError ??= err;
    }
  };

  let internalError: unknown;
  let finish!: () => void;
  const allSettled = new Promise<void>((resolve) => (finish = resolve));
  const settle = (address: string): void => {
    settled.add(address);
    if (settled.size === graph.steps.length) finish();
  };

  const skipDependents = (root: string, because: string): void => {
    const queue = [...graph.dependents.get(root)!];
    while (queue.length > 0) {
      const address = queue.shift()!;
      if (settled.has(address)) continue;
      result.skipped.push({ address, because });
      emit({ type: 'step-skipped', step: graph.byAddress.get(address)!, because });
      settle(address);
      queue.push(...graph.dependents.get(address)!);
    }
  };

  // Ready steps wait in plan order (a sorted list of plan indexes); each free slot of the
  // limiter takes the earliest, so the planner's order is kept wherever the graph allows.
  const indexOf = new Map(graph.steps.map((s, i) => [s.address, i]));
  const ready: number[] = [];
  const schedule = (step: PlanStep): void => {
    const index = indexOf.get(step.address)!;
    let lo = 0;
    let hi = ready.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ready[mid]! < index) lo = mid + 1;
      else hi = mid;
    }
    ready.splice(lo, 0, index);
    limit(() => runStep(graph.steps[ready.shift()!]!)).catch((err: unknown) => {
      // Step failures are caught in runStep; anything reaching here is a bug in the scheduler.
      // Stop waiting rather than hang, and report it.
      internalError ??= err;
      finish();
    });
  };

  let tokenRefused = false;
  const runStep = async (step: PlanStep): Promise<void> => {
    if (settled.has(step.address)) return;
    const stop = options.signal?.aborted ? ABORTED : tokenRefused ? TOKEN_REFUSED : undefined;
    if (stop !== undefined) {
      result.skipped.push({ address: step.address, because: stop });
      emit({ type: 'step-skipped', step, because: stop });
      settle(step.address);
      skipDependents(step.address, stop);
      return;
    }
    emit({ type: 'step-start', step });
    const t0 = performance.now();
    let outcome: StepOutcome;
    try {
      outcome = await executeStep(step, client, created, readSecret, options.onInviteCode);
    } catch (err) {
      const error = explainFailure(step, err instanceof Error ? err : new Error(String(err)));
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && TOKEN_FAILURES.has(code)) tokenRefused = true;
      result.failed.push({
        address: step.address,
        error: error.message,
        ...(typeof code === 'string' ? { code } : {}),
      });
      emit({ type: 'step-failed', step, error });
      settle(step.address);
      skipDependents(step.address, step.address);
      return;
    }
    const { uid, differences } = outcome;
    if (step.action === 'create') created.set(step.address, uid);
    result.done.push(step.address);
    emit({ type: 'step-done', step, uid, ms: Math.round(performance.now() - t0) });
    if (differences.length > 0) {
      // The service's answer is the truth from here on: recorded as answered, said once per resource.
      (result.differs ??= []).push(...differences.map((d) => ({ address: step.address, ...d })));
      emit({ type: 'step-differs', step, differences });
    }
    settle(step.address);
    for (const dependent of graph.dependents.get(step.address)!) {
      const left = unmet.get(dependent)! - 1;
      unmet.set(dependent, left);
      if (left === 0 && !settled.has(dependent)) schedule(graph.byAddress.get(dependent)!);
    }
  };

  emit({ type: 'start', total: graph.steps.length });
  if (graph.steps.length === 0) finish();
  for (const step of graph.steps) if (unmet.get(step.address) === 0) schedule(step);
  await allSettled;
  if (internalError !== undefined) throw internalError;

  result.ok = result.failed.length === 0 && result.skipped.length === 0 && result.differs === undefined;
  result.requests = client.requestCount - requestsBefore;
  result.ms = Math.round(performance.now() - startedAt);
  emit({ type: 'end', result });
  if (listenerError !== undefined) throw listenerError;
  return result;
}

/** Codes of a create that met a resource of its key which the plan's read did not see. */
const CONCURRENT_CREATE = 'API_ALREADY_EXISTS';

/**
 * A create planned because the read did not see its key, answered ALREADY_EXISTS: someone else
 * created it since — another apply or a person. The API has no lock; the message says so, and
 * what to do, instead of leaving "409" to be read as a bug in the manifests.
 */
function explainFailure(step: PlanStep, error: Error): Error {
  const code = (error as { code?: unknown }).code;
  if (step.action !== 'create' || code !== CONCURRENT_CREATE) return error;
  const explained = new Error(
    `${error.message} — it was not there when this plan read the org, so another apply (or a person) is changing the org at the same time; ` +
      'the API has no lock. Run `platform-sync plan` once the other change is done: it shows what is left.',
    { cause: error },
  );
  return Object.assign(explained, { code });
}
