/**
 * Phase 9, order and check: the steps ordered once, then the rules over the whole ordered plan,
 * every reason at once: the safety rules (src/plan/safety.ts), and what the plan changes in
 * effective access (shown first in every view), refused as `new-access` when
 * `--deny-new-access` forbids any gain, and the access rules on the state it leads to (`access-rule`). Pure (src/plan/index.ts runs the phases in order).
 */
import type { Planning } from './planning.js';
import type { Holders } from '../live-index.js';
import { DEFAULT_MAX_DELETE_RATIO, type PlanOptions } from '../options.js';
import { type OrderedStep, orderSteps } from '../order.js';
import { findRefusals } from '../safety.js';
import { accessOfPlan, newAccessRefusal } from '../../access/effective-access.js';
import type { AccessRuleResult } from '../../model/access-rules.js';
import { compileAddressGlob } from '../../model/address.js';
import type { AccessChange, PlanRefusal, PlanStep } from '../../model/plan.js';
import type { DesiredResource } from '../../model/resources.js';

export interface Checked {
  /** The steps in the order apply runs them. */
  steps: PlanStep[];
  /** What the earlier phases refused, then what the safety rules and the access check refuse. */
  refusals: PlanRefusal[];
  /** What the plan changes in effective access. */
  accessChanges: AccessChange[];
  /** How the state the plan leads to holds to the access rules (absent without rules). */
  accessRules?: AccessRuleResult[];
}

export function orderAndCheck(
  p: Pick<Planning, 'desired' | 'live' | 'index' | 'ignore' | 'formerAddressesOf'>,
  found: {
    /** The steps of the plan (after --target selection), in no order yet. */
    steps: readonly OrderedStep[];
    /** Every step planned, before --target selection: a declared reference holds what it names whether targeted or not. */
    plannedSteps: PlanStep[];
    holders: Holders;
    resources: DesiredResource[];
    /** What the earlier phases refused: reported first, with the rest. */
    refusals: readonly PlanRefusal[];
  },
  options: Pick<PlanOptions, 'maxDeleteRatio' | 'allowMassDelete' | 'denyNewAccess' | 'now'>,
): Checked {
  const steps = orderSteps(found.steps);
  const { settings } = p.desired;
  const refusals = [
    ...found.refusals,
    ...findRefusals({
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
    }),
  ];
  const access = accessOfPlan(p.live, { steps }, p.desired.accessRules ?? [], options.now, p.index);
  refusals.push(...access.refusals);
  if (options.denyNewAccess === true) refusals.push(...newAccessRefusal(access.changes));
  return { steps, refusals, accessChanges: access.changes, ...(access.rules ? { accessRules: access.rules } : {}) };
}
