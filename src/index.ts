/** The library API: what tests and other programs embed (DESIGN.md §1). */
export * from './model/kinds.js';
export * from './model/address.js';
export * from './model/address-pattern.js';
export * from './model/resources.js';
export * from './model/plan.js';
export * from './model/errors.js';
export * from './api/errors.js';
export type * from './api/types.js';
export * from './manifest/index.js';

// Manifests → DesiredState
export { loadManifests, validateManifests, validateManifestTexts, MANIFEST_API_VERSION } from './manifest/index.js';
export type { LoadOptions, ValidationResult } from './manifest/index.js';
// The API client and how to connect
export { createClient } from './api/client.js';
export type { ClientOptions } from './api/client.js';
export { formatRequestEvent, type ClientRetryEvent } from './api/client.js';
export { resolveConnection } from './api/connection.js';
export type { Connection, ConnectionInput } from './api/connection.js';
// Live state
export { readLiveState } from './live/index.js';
export type { ReadLiveStateOptions } from './live/index.js';
// The planner (pure)
export { plan, assertSafe, liveReadFor, DEFAULT_MAX_DELETE_RATIO } from './plan/index.js';
export type { PlanOptions } from './plan/index.js';
export { checkFingerprints, fingerprintLive, type StaleEntry } from './saved-plan/fingerprint.js';
export { savePlan, loadSavedPlan, PlanFileError } from './saved-plan/saved-plan.js';
export { checkSavedPlan, findUnvouchedSteps, UnvouchedPlanError } from './saved-plan/check-saved-plan.js';
export {
  renderPlan,
  renderTextPlan,
  renderJsonPlan,
  toPlanDocument,
  renderMarkdownPlan,
  PLAN_FORMATS,
  MARKDOWN_MAX_CHARS,
} from './views/plan.js';
export type { PlanFormat, RenderOptions, JsonPlan, TextPlanOptions, MarkdownPlanOptions } from './views/plan.js';
// The executor
export { apply, DEFAULT_CONCURRENCY, InvalidPlanError, InviteCodesNeededError } from './apply/index.js';
export type { ApplyEvent, ApplyOptions, ApplyResult, InviteCodeRecord } from './apply/index.js';
export {
  createProgressView,
  formatApplySummary,
  serializeApplyEvent,
  type ProgressViewOptions,
} from './views/progress.js';
// Drift and export
export { detectDrift, describeDrift, DRIFT_FORMAT_VERSION } from './drift/index.js';
export {
  renderTextDrift,
  renderJsonDrift,
  renderMarkdownDrift,
  renderDrift,
  summarizeDrift,
  DRIFT_FORMATS,
  type DriftFormat,
} from './views/drift.js';
export type { DriftCategory, DriftField, DriftItem, DriftReport, DriftResult } from './drift/index.js';
export { exportManifests, exportOrg, readOrgForExport, writeExport, ORG_FILE } from './export/index.js';
export type { ExportedFile, ExportOptions } from './export/index.js';
// Access review
export {
  audit,
  auditFromManifests,
  failsAt,
  RULES,
  SEVERITIES,
  AUDIT_FORMAT_VERSION,
  DEFAULT_STALE_DAYS,
  DEFAULT_EXPIRY_DAYS,
} from './audit/index.js';
export type { AuditReport, AuditOptions, AuditRule, Finding, Severity } from './audit/index.js';
export {
  renderTextAudit,
  renderMarkdownAudit,
  renderJsonAudit,
  renderSarifAudit,
  renderAudit,
  AUDIT_FORMATS,
  type AuditFormat,
  type SarifOptions,
} from './views/audit.js';
// The uids of declared resources
export { showDeclared, SHOW_FORMAT_VERSION, type ShownResources } from './show.js';
// Effective access
export {
  accessChanges,
  answerAccess,
  relationsOfPlan,
  relationOf,
  diffRelations,
  stateOfLive,
  stateAfterSteps,
  parseToken,
} from './access/index.js';
export { accessFromManifests, ACCESS_FORMAT_VERSION, type AccessReport } from './access-query.js';
export type { AccessChange, AccessGrant, AccessQuestion, AccessRelation, Principal, Token } from './access/index.js';
export {
  renderTextAccess,
  renderJsonAccess,
  renderAccess,
  ACCESS_FORMATS,
  type AccessFormat,
} from './views/access-report.js';
export { renderShownText, renderShownJson } from './views/show.js';
// The emulator
export { startEmulator, SeedError, readTokensFile } from './emulator/index.js';
export type {
  Emulator,
  EmulatorOptions,
  EmulatorToken,
  FaultOptions,
  SeedDocument,
  SeedResult,
  RequestLogEntry,
} from './emulator/index.js';
// The "load manifests → read live → plan" sequence every command starts with
export { planFromManifests, managedSubResources, type PlanningOptions, type PlanningResult } from './pipeline.js';
