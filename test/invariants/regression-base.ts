/** What every kept counterexample of the invariant suite starts from (regressions*.test.ts). */
import type { Case } from './check-case.js';

export const base: Omit<Case, 'initial'> = {
  edits: [],
  settings: { prune: {}, ignore: [], protect: [] },
  extras: { humans: [], tags: [] },
  hand: { op: 'none' },
  fault: { kind: 'none' },
  target: undefined,
  allowMassDelete: false,
};
export const emptyGroup = {
  identities: [],
  roles: [],
  bindings: [],
  repos: [],
  subscriptions: [],
  idps: [],
  groups: [],
};
