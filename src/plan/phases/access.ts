/**
 * Phase 9, access: what the ordered plan changes in effective access (shown first in every
 * view), and the `new-access` refusal when `--deny-new-access` forbids any gain. Pure
 * (src/plan/index.ts runs the phases in order).
 */
import type { LiveIndex } from '../live-index.js';
import { type AccessChange, accessChanges } from '../../access/effective-access.js';
import type { PlanRefusal, PlanStep } from '../../model/plan.js';
import type { LiveState } from '../../model/resources.js';

export interface AccessPhaseInput {
  live: LiveState;
  index: LiveIndex;
  /** The plan's steps, ordered. */
  steps: PlanStep[];
  denyNewAccess: boolean;
}

export function planAccess(input: AccessPhaseInput): { changes: AccessChange[]; refusal?: PlanRefusal } {
  const changes = accessChanges(input.live, { steps: input.steps }, (address) => input.index.byAddress.get(address));
  const gained = changes.filter((c) => c.gained.length > 0);
  if (!input.denyNewAccess || gained.length === 0) return { changes };
  return {
    changes,
    refusal: {
      rule: 'new-access',
      message: `the plan gives new access (--deny-new-access): ${gained.map(describeGain).join('; ')}`,
      addresses: [...new Set(gained.flatMap((c) => c.steps))].sort(),
    },
  };
}

function describeGain(c: AccessChange): string {
  const below = c.groups > 1 ? ` and ${c.groups - 1} group${c.groups === 2 ? '' : 's'} below` : '';
  return `${c.identity} gains ${c.gained.join(', ')} on ${c.scope}${below}`;
}
