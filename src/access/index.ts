/**
 * Effective access (DESIGN.md §4 "Effective access"): the relation of who can act where, of live
 * and of the state a plan leads to, and its changes. Pure: the query that reads the manifests and
 * the org to answer `platform-sync access` stands above it, beside the pipeline (access-query.ts).
 */

export {
  accessChanges,
  answerAccess,
  newAccessRefusal,
  relationsOfPlan,
  type AccessChange,
  type AccessGrant,
  type AccessQuestion,
} from './effective-access.js';
export { stateOfLive, stateAfterSteps, type AccessRecord, type AccessStateRecords } from './state.js';
export { relationOf, holdingsOf, type AccessRelation, type Principal } from './relation.js';
export { diffRelations } from './access-diff.js';
export { canObtainAt, holdsOf, obtainableOf, type EscalationStep, type Obtainable } from './escalation.js';
export { accessRuleRefusals, judgeAccessRules, type AccessRuleResult } from './rules.js';
export { parseToken, tokenAccepted, type Token } from './tokens.js';
