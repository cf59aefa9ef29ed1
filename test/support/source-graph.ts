/** The source of src/ as structure (scripts/source-graph.ts, shared with `npm run walk`). */
export * from '../../scripts/source-graph.js';
