/** Drift's other answer (DESIGN.md §4 "Drift both ways (rev 6)"): the manifests rewritten to describe live. */
export {
  adoptDrift,
  ADOPT_FORMAT_VERSION,
  type AdoptItem,
  type AdoptOptions,
  type AdoptResult,
  type AdoptedFile,
} from './adopt.js';
