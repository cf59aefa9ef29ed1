/** The library API: what tests and other programs embed (DESIGN.md §1). */
export * from './model/kinds.js';
export * from './model/address.js';
export * from './model/resources.js';
export * from './model/plan.js';
export * from './model/errors.js';
export * from './api/errors.js';
export type * from './api/types.js';
export * from './manifest/index.js';
