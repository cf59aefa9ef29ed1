/** Drift: a plan read as the differences live state has from the manifests (DESIGN.md §5). */
export {
  assertDriftReadable,
  describeDrift,
  describeValue,
  describeLive,
  describeManifest,
  CATEGORY_HEADINGS,
  DRIFT_FORMAT_VERSION,
  DRIFT_REFUSAL_RULES,
} from './drift-report.js';
export type { DescribeDriftOptions, DriftCategory, DriftField, DriftItem, DriftReport } from './drift-report.js';
export { detectDrift, type DriftResult } from './detect-drift.js';
