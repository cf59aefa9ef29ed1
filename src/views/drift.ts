/**
 * Views of a drift report (STYLE.md: views chosen per output format): text for a terminal or
 * a CI log, JSON for programs, markdown for a job summary or an issue. Pure string builders.
 */
import { formatLocation as formatSourceLocation } from '../manifest/diagnostics.js';
import {
  CATEGORY_HEADINGS,
  describeLive,
  describeManifest,
  type DriftCategory,
  type DriftField,
  type DriftItem,
  type DriftReport,
} from '../drift/drift-report.js';
import { diffLines } from './step-lines.js';
import { escapeHtml, markdownCode, markdownCodeCell, markdownText } from '../io/escape.js';
import { escapeControl, escapeValue, stringifyForOutput } from './escape.js';
import { paintFor, type Style } from './paint.js';
import { admitsText, capabilitiesText, reachText } from './access.js';
import { accessRulesLines } from './access-rules.js';

const CATEGORIES: readonly DriftCategory[] = ['changed', 'unmanaged', 'missing'];
const MARKERS: Readonly<Record<DriftCategory, string>> = { changed: '~', unmanaged: '?', missing: '!' };
const COLORS: Readonly<Record<DriftCategory, Style>> = { changed: 'yellow', unmanaged: 'magenta', missing: 'red' };

/** One line that sums a report up: "in sync", or counts per category. */
export function summarizeDrift(report: DriftReport): string {
  const org = `org ${report.org.name}`;
  if (report.inSync) return `No drift: ${org} matches the manifests.`;
  const n = report.items.length;
  const parts = [
    report.summary.changed
      ? `${report.summary.changed} differ${report.summary.changed === 1 ? 's' : ''} from the manifests`
      : '',
    report.summary.unmanaged ? `${report.summary.unmanaged} only live` : '',
    report.summary.missing ? `${report.summary.missing} missing live` : '',
  ].filter(Boolean);
  return `Drift in ${org}: live differs from the manifests — changed by hand, or not applied yet: ${n} finding${n === 1 ? '' : 's'} (${parts.join(', ')}).`;
}

export interface TextDriftOptions {
  /** ANSI colors (the CLI turns them off with --no-color or when stdout is not a TTY). */
  color?: boolean;
}

export function renderTextDrift(report: DriftReport, options: TextDriftOptions = {}): string {
  const paint = paintFor(options.color);
  // Live and manifest text is escaped before it is painted or printed: no control character
  // from the API (or a manifest) reaches the terminal raw.
  const e = escapeControl;
  const lines: string[] = [paint('bold', e(summarizeDrift(report)))];
  for (const category of CATEGORIES) {
    const items = report.items.filter((i) => i.category === category);
    if (items.length === 0) continue;
    lines.push('', paint('bold', `${CATEGORY_HEADINGS[category]} (${items.length}):`));
    for (const item of items) {
      const where = [
        item.source ? `declared at ${formatSourceLocation(item.source)}` : '',
        item.uid && category === 'unmanaged' ? `uid ${item.uid}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      lines.push(
        `  ${paint(COLORS[category], e(`${MARKERS[category]} ${item.address}`))}${where ? `  (${e(where)})` : ''}`,
      );
      if (item.detail) lines.push(`      ${e(item.detail)}`);
      for (const f of item.fields ?? []) {
        lines.push(e(`      ${f.field}: live ${describeLive(f)}, manifests ${describeManifest(f)}`));
        for (const l of textDiff(f)) lines.push(e(`        ${l}`));
      }
      if (item.beneath?.length)
        lines.push(e(`      and ${countOf(item.beneath.length, 'resource')} beneath it: ${listSome(item.beneath)}`));
    }
  }
  const broken = (report.accessRules ?? []).filter((r) => !r.passed);
  if (broken.length > 0) {
    lines.push('', paint('bold', 'Live breaks access rules of the manifests:'));
    for (const l of accessRulesLines(broken).slice(1)) if (l.text !== '') lines.push(l.text);
  }
  if (report.access && report.access.length > 0) {
    lines.push('', paint('bold', 'Access differs from the manifests (changed by hand, or not applied yet):'));
    for (const a of report.access) {
      const where = `${a.scope}${reachText(a)}`;
      const line = (text: string): void => void lines.push(`  ${escapeValue(text)}`);
      if (a.added.length > 0)
        line(
          `+ ${a.principal} holds ${capabilitiesText(a.added, a.addedRole)} on ${where}, which the manifests do not grant`,
        );
      if (a.removed.length > 0)
        line(
          `- ${a.principal} lost ${capabilitiesText(a.removed, a.removedRole)} on ${where}, which the manifests grant`,
        );
      if (a.notApplied)
        line(
          `~ ${a.principal} would hold ${capabilitiesText(a.notApplied, a.removedRole)} on ${where}: the member line is not applied yet`,
        );
      const admits = admitsText(a);
      if (admits !== undefined) lines.push(`      ${escapeValue(admits)}`);
    }
  }
  if (report.notes.length > 0) {
    lines.push('', 'Notes:');
    for (const note of report.notes) lines.push(`  - ${e(note)}`);
  }
  if (report.refused) {
    lines.push(
      '',
      'Plan and apply refuse until these are resolved: declare them in the manifests, list them in settings.ignore, or delete them by hand (a protected one may instead be dropped from settings.protect). Then run `platform-sync drift` again.',
    );
  } else if (!report.inSync) {
    lines.push(
      '',
      'Run `platform-sync plan` to see the steps that would restore the manifests, `platform-sync apply` to run them.',
    );
  }
  return lines.join('\n') + '\n';
}

/** Lines of a text diff shown under a changed field before "… N more lines". */
const DIFF_LINES_SHOWN = 20;

/**
 * A multi-line text (markdown, a long description) that changed, as the unified diff from live to manifests: its
 * first line and line count alone do not tell a reviewer what was edited.
 */
function textDiff(f: DriftField): string[] {
  const isText = (v: unknown): boolean => typeof v === 'string' || v === undefined;
  const multiline = [f.live, f.manifest].some((v) => typeof v === 'string' && v.includes('\n'));
  if (!multiline || !isText(f.live) || !isText(f.manifest)) return [];
  const lines = [
    '--- live',
    '+++ manifests',
    ...diffLines((f.live as string | undefined) ?? '', (f.manifest as string | undefined) ?? '').map((l) => l.text),
  ];
  if (lines.length <= DIFF_LINES_SHOWN) return lines;
  return [...lines.slice(0, DIFF_LINES_SHOWN), `… ${lines.length - DIFF_LINES_SHOWN} more lines`];
}

export function renderJsonDrift(report: DriftReport): string {
  return stringifyForOutput(report, 2) + '\n';
}

export interface MarkdownDriftOptions {
  /** The plan that would restore the manifests, already rendered as markdown; shown folded. */
  planMarkdown?: string;
}

/** Markdown for `$GITHUB_STEP_SUMMARY` or an issue: a heading, one section per category. */
export function renderMarkdownDrift(report: DriftReport, options: MarkdownDriftOptions = {}): string {
  const lines: string[] = [
    `### platform-sync drift: org ${markdownCode(report.org.name)}`,
    '',
    markdownText(summarizeDrift(report)),
  ];
  const changed = report.items.filter((i) => i.category === 'changed');
  if (changed.length > 0) {
    lines.push(
      '',
      `#### ${CATEGORY_HEADINGS.changed} (${changed.length})`,
      '',
      '| Resource | Field | Live | Manifests |',
      '|---|---|---|---|',
    );
    for (const item of changed) {
      for (const f of item.fields ?? []) {
        lines.push(
          `| ${markdownCodeCell(item.address)} | ${markdownText(f.field)} | ${markdownText(describeLive(f))} | ${markdownText(describeManifest(f))} |`,
        );
      }
    }
  }
  for (const category of ['unmanaged', 'missing'] as const) {
    const items = report.items.filter((i) => i.category === category);
    if (items.length === 0) continue;
    lines.push('', `#### ${CATEGORY_HEADINGS[category]} (${items.length})`, '');
    for (const item of items) lines.push(`- ${describeItemMarkdown(item)}`);
  }
  if (report.access && report.access.length > 0) {
    lines.push(
      '',
      '#### Access differs from the manifests — changed by hand, or not applied yet',
      '',
      '| Principal | Scope | Reach | Held live, not granted by the manifests | Granted by the manifests, not held live |',
      '|---|---|---|---|---|',
    );
    for (const a of report.access) {
      const admits = admitsText(a);
      const principal = `${markdownCodeCell(a.principal)}${admits !== undefined ? ` — **${markdownText(admits)}**` : ''}`;
      const added = a.added.length > 0 ? `➕ ${markdownText(capabilitiesText(a.added, a.addedRole))}` : '';
      const notApplied = a.notApplied
        ? `⏳ not applied yet: ${markdownText(capabilitiesText(a.notApplied, a.removedRole))}`
        : '';
      const removed =
        a.removed.length > 0 ? `➖ ${markdownText(capabilitiesText(a.removed, a.removedRole))}` : notApplied;
      lines.push(
        `| ${principal} | ${markdownCodeCell(a.scope)} | ${a.groups} group${a.groups === 1 ? '' : 's'} | ${added} | ${removed} |`,
      );
    }
  }
  if (report.notes.length > 0) {
    lines.push('', '#### Notes', '');
    for (const note of report.notes) lines.push(`- ${markdownText(note)}`);
  }
  if (options.planMarkdown && !report.inSync) {
    lines.push(
      '',
      '<details><summary>The plan that would restore the manifests</summary>',
      '',
      options.planMarkdown.trimEnd(),
      '',
      '</details>',
    );
  }
  return escapeControl(lines.join('\n') + '\n');
}

/**
 * Markdown for a drift check that could not run (bad token, API down, invalid manifests): the
 * reason's first line, then the rest of it whole (every problem of the manifests, say) in a
 * preformatted block, HTML escaped.
 */
export function renderMarkdownDriftFailure(reason: string): string {
  const [first = '', ...rest] = reason.split('\n');
  const detail = rest.join('\n').replace(/\s+$/, '');
  const block = detail.trim() === '' ? '' : `\n<pre>\n${escapeHtml(detail)}\n</pre>\n`;
  return escapeControl(`### platform-sync drift check failed\n\ndrift check failed: ${markdownText(first)}\n${block}`);
}

function describeItemMarkdown(item: DriftItem): string {
  const parts = [markdownCode(item.address)];
  if (item.uid && item.category === 'unmanaged') parts.push(`(uid ${markdownCode(item.uid)})`);
  if (item.source) parts.push(`— declared at ${markdownCode(formatSourceLocation(item.source))}`);
  if (item.beneath?.length) parts.push(`and ${countOf(item.beneath.length, 'resource')} beneath it`);
  if (item.detail) parts.push(`— ${markdownText(item.detail)}`);
  return parts.join(' ');
}

/** Names in a "beneath it" line before "and N more": enough to recognise, short enough to read. */
const BENEATH_NAMED = 5;

function listSome(addresses: readonly string[]): string {
  const shown = addresses.slice(0, BENEATH_NAMED).join(', ');
  return addresses.length > BENEATH_NAMED ? `${shown}, and ${addresses.length - BENEATH_NAMED} more` : shown;
}

function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** What a drift renderer may be told: colour (text), and the plan's markdown to fold in (markdown). */
export interface DriftRenderOptions {
  color?: boolean;
  planMarkdown?: string;
}

/** Drift renderers, a small registry by format name, as plans have (views/plan.ts): `--format` picks one. */
const DRIFT_RENDERERS = {
  text: (report: DriftReport, options: DriftRenderOptions) =>
    renderTextDrift(report, { color: options.color ?? false }),
  json: (report: DriftReport) => renderJsonDrift(report),
  markdown: (report: DriftReport, options: DriftRenderOptions) =>
    renderMarkdownDrift(report, options.planMarkdown !== undefined ? { planMarkdown: options.planMarkdown } : {}),
} as const;

export type DriftFormat = keyof typeof DRIFT_RENDERERS;
export const DRIFT_FORMATS = Object.keys(DRIFT_RENDERERS) as DriftFormat[];

/** The drift report in one of the formats. */
export function renderDrift(report: DriftReport, format: DriftFormat, options: DriftRenderOptions = {}): string {
  return DRIFT_RENDERERS[format](report, options);
}
