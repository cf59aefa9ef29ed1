/** The CLI's writers are the one door out: src/io/output.ts. */
export { createOutput, type Output, type OutputStream } from '../io/output.js';
