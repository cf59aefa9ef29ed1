/**
 * An audit report for people and for code scanning (DESIGN.md §7): text (one finding a line),
 * markdown (a job summary, an issue body), JSON (`formatVersion`), and SARIF 2.1.0 for GitHub
 * code scanning. Every text a finding carries comes from manifests or live data: each renderer
 * goes through the one escape (escape.ts).
 */
import { escapeValue } from '../io/escape.js';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { styleText } from 'node:util';
import { RULES, type AuditReport, type AuditRule, type Finding, type Severity } from '../audit/index.js';
import type { SourceLocation } from '../model/resources.js';
import { escapeControl, stringifyForOutput } from './escape.js';
import { MARKDOWN_MAX_CHARS } from './plan-markdown.js';
import { markdownCode, markdownCodeCell, markdownText } from '../io/escape.js';

/** A manifest location, its path escaped like a name (a file name holding a newline is one line). */
const where = (l: SourceLocation | undefined): string => (l ? `${escapeValue(l.file)}:${l.line}:${l.column}` : '');
const ruleById = (rules: readonly AuditRule[]) => new Map(rules.map((r) => [r.id, r]));

function countLine(report: AuditReport): string {
  const { high, medium, low } = report.summary;
  const total = high + medium + low;
  return total === 0
    ? 'No findings.'
    : `${total} finding${total === 1 ? '' : 's'}: ${high} high, ${medium} medium, ${low} low.`;
}

/** One finding a line: severity, rule, address, message, location; then how to fix each rule that fired. */
export function renderTextAudit(
  report: AuditReport,
  options: { color?: boolean; rules?: readonly AuditRule[] } = {},
): string {
  const paint = (style: Parameters<typeof styleText>[0], text: string) =>
    options.color ? styleText(style, text, { validateStream: false }) : text;
  const colour: Record<Severity, Parameters<typeof styleText>[0]> = { high: 'red', medium: 'yellow', low: 'cyan' };
  const lines = [`Access review of org ${report.org.name}${report.org.uid ? ` (${report.org.uid})` : ''}`, ''];
  for (const f of report.findings) {
    const at = where(f.location);
    lines.push(
      `${paint(colour[f.severity], f.severity.toUpperCase().padEnd(6))} ${f.rule}  ${f.address}: ${f.message}${at ? `  (${at})` : ''}`,
    );
  }
  if (report.findings.length > 0) lines.push('');
  lines.push(countLine(report));
  const byId = ruleById(options.rules ?? RULES);
  const fired = [...new Set(report.findings.map((f) => f.rule))];
  if (fired.length > 0) {
    lines.push('', 'How to fix:');
    for (const id of fired) lines.push(`  ${id}: ${byId.get(id)?.help ?? ''}`);
  }
  return escapeControl(lines.join('\n') + '\n');
}

/** Markdown: a heading, the counts, a table of findings, how to fix each rule that fired. */
export function renderMarkdownAudit(
  report: AuditReport,
  options: { rules?: readonly AuditRule[]; maxChars?: number } = {},
): string {
  const maxChars = options.maxChars ?? MARKDOWN_MAX_CHARS;
  const lines = [
    `### platform-sync access review of ${markdownCode(report.org.name)}`,
    '',
    `**${countLine(report)}**`,
    '',
  ];
  if (report.findings.length > 0) {
    const byId = ruleById(options.rules ?? RULES);
    const help = [
      '',
      '#### How to fix',
      '',
      ...[...new Set(report.findings.map((f) => f.rule))].map(
        (id) => `- ${markdownCode(id)}: ${markdownText(byId.get(id)?.help ?? '')}`,
      ),
    ];
    const reserve = help.join('\n').length + 400;
    lines.push('| Severity | Rule | Resource | Finding | Declared at |', '|---|---|---|---|---|');
    // Bounded like the plan (a job summary holds 1 MiB, a PR comment 65,536 characters): the
    // most severe findings first (the report's order), then how many were left out.
    let length = lines.join('\n').length;
    let shown = 0;
    for (const f of report.findings) {
      const row = `| ${f.severity} | ${markdownCodeCell(f.rule)} | ${markdownCodeCell(f.address)} | ${markdownText(f.message)} | ${f.location ? markdownCodeCell(where(f.location)) : 'live only'} |`;
      if (length + row.length + 1 > maxChars - reserve) break;
      lines.push(row);
      length += row.length + 1;
      shown++;
    }
    if (shown < report.findings.length) {
      lines.push(
        '',
        `_${(report.findings.length - shown).toLocaleString('en-US')} more findings are not shown: this summary is cut at ${maxChars.toLocaleString('en-US')} characters. Run \`platform-sync audit\` to see them all._`,
      );
    }
    lines.push(...help);
  }
  return escapeControl(lines.join('\n') + '\n');
}

export function renderJsonAudit(report: AuditReport): string {
  return stringifyForOutput(report, 2) + '\n';
}

const SARIF_LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { high: 'error', medium: 'warning', low: 'note' };
/** GitHub code scanning ranks security results by this property (0–10). */
const SECURITY_SEVERITY: Record<Severity, string> = { high: '8.0', medium: '5.0', low: '2.0' };

export interface SarifOptions {
  /** The tool's version (package.json). */
  version: string;
  /** Manifest paths are written relative to this directory: the repository root ({@link findRepositoryRoot}). */
  baseDir: string;
  /** The directory the manifest paths of locations are relative to (default: baseDir). */
  cwd?: string;
  /** Where a finding on a resource the manifests do not declare points: the org's declaration. */
  orgLocation?: SourceLocation;
  rules?: readonly AuditRule[];
}

/**
 * A manifest path as a SARIF artifact URI: relative to the repository root, `/`-separated,
 * percent-encoded; a file outside the repository is named by an absolute `file:` URI (DESIGN.md
 * §7), never `../`, and carries no `uriBaseId`.
 */
function artifactLocation(file: string, baseDir: string, cwd: string): { uri: string; uriBaseId?: string } {
  const absolute = resolve(cwd, file);
  const rel = relative(resolve(baseDir), absolute);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    return { uri: pathToFileURL(absolute).href };
  return { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

/**
 * The repository root for SARIF URIs: `GITHUB_WORKSPACE` when set, else the nearest directory
 * from `cwd` up that holds `.git`, else `cwd` (audit run from a subdirectory still writes paths
 * code scanning resolves).
 */
export function findRepositoryRoot(
  cwd: string,
  env: Record<string, string | undefined>,
  hasGit: (dir: string) => boolean,
): string {
  if (env.GITHUB_WORKSPACE) return resolve(env.GITHUB_WORKSPACE);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (hasGit(dir)) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

/**
 * SARIF 2.1.0: one run, a rule per audit rule (help text, default level, security severity), a
 * result per finding at its manifest location. GitHub code scanning wants a location on every
 * result: a finding on a live-only resource points at the org's declaration, and says so.
 */
export function renderSarifAudit(report: AuditReport, options: SarifOptions): string {
  const rules = options.rules ?? RULES;
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const locationOf = (f: Finding) => {
    const l = f.location ?? options.orgLocation;
    if (!l) return [];
    return [
      {
        physicalLocation: {
          artifactLocation: artifactLocation(l.file, options.baseDir, options.cwd ?? options.baseDir),
          region: { startLine: l.line, startColumn: l.column },
        },
      },
    ];
  };
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'platform-sync',
            semanticVersion: options.version,
            rules: rules.map((r) => ({
              id: r.id,
              name: r.id.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase()),
              shortDescription: { text: r.title },
              fullDescription: { text: r.title },
              help: { text: r.help, markdown: r.help },
              defaultConfiguration: { level: SARIF_LEVEL[r.severity] },
              properties: {
                tags: ['security', 'iam'],
                'security-severity': SECURITY_SEVERITY[r.severity],
                precision: 'high',
              },
            })),
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { description: { text: 'The repository root (where audit ran).' } } },
        results: report.findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: index.get(f.rule) ?? 0,
          level: SARIF_LEVEL[f.severity],
          message: {
            text: `${f.address}: ${f.message}${f.location ? '' : ' (not declared in the manifests: shown at the org)'}`,
          },
          locations: locationOf(f),
          partialFingerprints: { 'platformSyncFinding/v1': `${f.rule}:${f.address}` },
          properties: { address: f.address, severity: f.severity, 'security-severity': SECURITY_SEVERITY[f.severity] },
        })),
      },
    ],
  };
  return stringifyForOutput(sarif, 2) + '\n';
}

/** What an audit renderer may be told: colour (text), and where SARIF points (sarif). */
export interface AuditRenderOptions {
  color?: boolean;
  sarif: SarifOptions;
}

/** Audit renderers, a small registry by format name, as plans have (views/plan.ts): `--format` picks one. */
const AUDIT_RENDERERS = {
  text: (report: AuditReport, options: AuditRenderOptions) =>
    renderTextAudit(report, { color: options.color ?? false }),
  json: (report: AuditReport) => renderJsonAudit(report),
  markdown: (report: AuditReport) => renderMarkdownAudit(report),
  sarif: (report: AuditReport, options: AuditRenderOptions) => renderSarifAudit(report, options.sarif),
} as const;

export type AuditFormat = keyof typeof AUDIT_RENDERERS;
export const AUDIT_FORMATS = Object.keys(AUDIT_RENDERERS) as AuditFormat[];

/** The audit report in one of the formats. */
export function renderAudit(report: AuditReport, format: AuditFormat, options: AuditRenderOptions): string {
  return AUDIT_RENDERERS[format](report, options);
}
