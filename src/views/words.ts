/** Wording the views share: how a reader is told what an internal reference address means (defined with the references, plan/references.ts). */
export { describeRefAddress } from '../plan/references.js';
