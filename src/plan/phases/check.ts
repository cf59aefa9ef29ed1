/**
 * Phase 8, order and check: the steps ordered once, then the safety rules over the whole plan
 * (src/plan/safety.ts), every reason at once. Pure (src/plan/index.ts runs the phases in order).
 */
import type { Planning } from './planning.js';
import type { Holders } from '../live-index.js';
import { DEFAULT_MAX_DELETE_RATIO, type PlanOptions } from '../options.js';
import { orderSteps } from '../order.js';
import { findRefusals } from '../safety.js';
import { compileAddressGlob } from '../../model/address.js';
import type { PlanRefusal, PlanStep } from '../../model/plan.js';
import type { DesiredResource } from '../../model/resources.js';

export interface Checked {
  /** The steps in the order apply runs them. */
  steps: PlanStep[];
  /** What the earlier phases refused, then what the safety rules refuse. */
  refusals: PlanRefusal[];
}

export function orderAndCheck(
  p: Pick<Planning, 'desired' | 'live' | 'index' | 'ignore' | 'formerAddressesOf' | 'steps' | 'refusals'>,
  found: {
    /** Every step planned, before --target selection: a declared reference holds what it names whether targeted or not. */
    plannedSteps: PlanStep[];
    holders: Holders;
    resources: DesiredResource[];
  },
  options: Pick<PlanOptions, 'maxDeleteRatio' | 'allowMassDelete'>,
): Checked {
  const steps = orderSteps([...p.steps.values()]);
  const { settings } = p.desired;
  const refusals = [...p.refusals, ...findRefusals({
    steps,
    plannedSteps: found.plannedSteps,
    live: p.live,
    index: p.index,
    holders: found.holders,
    desiredAddresses: p.index.ambiguous.size > 0 ? new Set(found.resources.map((r) => r.address)) : new Set(),
    prune: settings.prune,
    protect: settings.protect.map(compileAddressGlob),
    ...(p.formerAddressesOf ? { formerAddressesOf: p.formerAddressesOf } : {}),
    ignore: p.ignore,
    maxDeleteRatio: options.maxDeleteRatio ?? DEFAULT_MAX_DELETE_RATIO,
    allowMassDelete: options.allowMassDelete ?? false,
  })];
  return { steps, refusals };
}
