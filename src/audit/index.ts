/**
 * `platform-sync audit` as a library (DESIGN.md §7): every rule of the registry over the
 * manifests and the live org. `audit()` is pure; `auditFromManifests()` reads (lists only: an
 * audit never writes).
 */
import { planMembers } from '../plan/phases/members.js';
import type { ApiClient } from '../api/types.js';
import { loadManifestsKnowingLive, readLiveState } from '../live/index.js';

import { liveReadFor, plan } from '../plan/index.js';
import { relationsOfPlan } from '../access/effective-access.js';
import type { DesiredState, LiveState, SourceLocation } from '../model/resources.js';
import { gatherFacts } from './facts.js';
import { RULES } from './rules/registry.generated.js';
import { severityRank, type AuditOptions, type AuditRule, type Finding, type Severity } from './types.js';

export { RULES } from './rules/registry.generated.js';
export { SEVERITIES, severityRank, type AuditOptions, type AuditRule, type Finding, type Severity } from './types.js';

/** Version of the JSON (and SARIF) report's shape; bumped on incompatible change. */
export const AUDIT_FORMAT_VERSION = 1;
export const DEFAULT_STALE_DAYS = 90;
export const DEFAULT_EXPIRY_DAYS = 30;

export interface AuditReport {
  formatVersion: number;
  org: { name: string; uid: string | null };
  summary: Record<Severity, number>;
  /** Most severe first, then by rule and address. */
  findings: Finding[];
}

/** Every rule over the manifests and live state; findings sorted, counted by severity. */
export function audit(
  desired: DesiredState,
  live: LiveState,
  options: AuditOptions,
  rules: readonly AuditRule[] = RULES,
): AuditReport {
  // Members as the plan reads them: a present member's binding and identity are declared by its line.
  const withMembers = planMembers(desired, live, options.now).desired;
  const facts = gatherFacts(withMembers, live);
  // Who can act, as the manifests would make the org: the relation every access view reads (DESIGN.md §4).
  const relations = relationsOfPlan(live, plan(desired, live, { now: options.now }), options.now);
  facts.access = relations.planned;
  // Access rules judge live (DESIGN.md §7 rev 6: `access-rule`).
  facts.liveAccess = relations.live;
  // Every finding about a declared resource carries its manifest line (§7) — a member line's invite
  // and binding, an IdP's group mapping too: "not declared" only for what no manifest line describes.
  const declaredAt = new Map(withMembers.resources.map((r) => [r.address, r.source]));
  const findings = rules
    .flatMap((rule) => rule.check(facts, options))
    .map((f) => {
      const location = f.location ?? declaredAt.get(f.address);
      return location !== undefined && f.location === undefined ? { ...f, location } : f;
    });
  findings.sort(
    (a, b) =>
      severityRank(b.severity) - severityRank(a.severity) ||
      (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0) ||
      (a.address < b.address ? -1 : a.address > b.address ? 1 : 0),
  );
  const summary: Record<Severity, number> = { high: 0, medium: 0, low: 0 };
  for (const f of findings) summary[f.severity]++;
  return { formatVersion: AUDIT_FORMAT_VERSION, org: facts.org, summary, findings };
}

/** Whether a report has a finding at or above `failOn` (what makes `audit` exit 2). */
export function failsAt(report: AuditReport, failOn: Severity): boolean {
  return report.findings.some((f) => severityRank(f.severity) >= severityRank(failOn));
}

/** Reads the manifests and the live org (no writes), then audits them; with where the org is declared (SARIF points there for live-only findings). */
export async function auditFromManifests(
  paths: string[],
  client: ApiClient,
  options: AuditOptions & { maxManifestBytes?: number },
): Promise<{ report: AuditReport; orgLocation?: SourceLocation }> {
  const desired = await loadManifestsKnowingLive(
    paths,
    client,
    options.maxManifestBytes !== undefined ? { maxTotalBytes: options.maxManifestBytes } : {},
  );
  const live = await readLiveState(client, liveReadFor(desired, { subResources: false }));
  const orgLocation = desired.resources.find((r) => r.address === 'org')?.source;
  return { report: audit(desired, live, options), ...(orgLocation ? { orgLocation } : {}) };
}
