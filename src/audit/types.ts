/**
 * An access review's findings (DESIGN.md §7): data, as plans are. A rule is one module under
 * `rules/` exporting `rule`; the registry is generated from that directory at build time
 * (scripts/generate-audit-registry.mjs), so adding a rule touches no other file.
 */
import type { SourceLocation } from '../model/resources.js';
import type { AuditFacts } from './facts.js';

export const SEVERITIES = ['low', 'medium', 'high'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** One day in milliseconds: the unit of `--stale-days` and `--expiry-days`. */
export const DAY_MS = 86_400_000;

/** How severe, as a number: low 0, medium 1, high 2 (`--fail-on` compares these). */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

export interface Finding {
  /** A rule id of DESIGN.md §7 (part of the contract). */
  rule: string;
  severity: Severity;
  /** The resource the finding is about (`identity:engineering/ci-bot`). */
  address: string;
  message: string;
  /** Where the resource is declared, when the manifests declare it. */
  location?: SourceLocation;
}

export interface AuditOptions {
  /** The time findings are judged at (ms since the epoch). */
  now: number;
  /** An identity not seen for longer is stale (default 90). */
  staleDays: number;
  /** Static keys that expire within this many days are reported (default 30). */
  expiryDays: number;
}

export interface AuditRule {
  readonly id: string;
  /** One line: what the rule looks for. */
  readonly title: string;
  /** How to fix what it finds (shown by the text, markdown and SARIF renderers). */
  readonly help: string;
  /** The severity it reports at most. */
  readonly severity: Severity;
  check(facts: AuditFacts, options: AuditOptions): Finding[];
}

/** `1 day`, `3 days`: a whole number of days, said as English says it. */
export function daysText(n: number): string {
  return `${n} day${n === 1 ? '' : 's'}`;
}
