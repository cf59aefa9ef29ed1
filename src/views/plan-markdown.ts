/**
 * The plan as a pull-request comment (like octoDNS's PlanMarkdown): the summary first, every
 * delete called out by name, then the steps in `<details>` blocks grouped by kind as ```diff
 * code. Cut to fit a comment (60,000 characters; GitHub's limit is 65,536) with a note that
 * says what was left out.
 */
import { accessRulesMarkdown } from './access-rules.js';
import { escapeControl } from './escape.js';
import { countLabel, KINDS, type Kind } from '../model/kinds.js';
import type { AccessChange, Plan, PlanStep } from '../model/plan.js';
import { renderStepLines, summaryLine, type LineTone } from './step-lines.js';

export const MARKDOWN_MAX_CHARS = 60_000;
/** Deletes named in the call-out before "and N more". */
const DELETES_NAMED = 50;
/** Room kept for closing a block and for the note about what was cut. */
const RESERVE = 600;

export interface MarkdownPlanOptions {
  /** Largest output, in characters (default 60,000). */
  maxChars?: number;
}

/** A code fence longer than any run of backticks inside, so a shown text cannot break out of it. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * The first column of a line in a ```diff block is what GitHub colours by: `+` green, `-` red,
 * `!` orange (Terraform's `~` would stay grey, so an update reads `! update`, as Atlantis does).
 */
const DIFF_MARKER: Readonly<Record<LineTone, string>> = {
  add: '+',
  remove: '-',
  change: '!',
  context: ' ',
  header: ' ',
};

function stepBlock(step: PlanStep): string {
  return renderStepLines(step)
    .map((l, i) => (i === 0 ? l.text.replace(/^~/, '!') : `${DIFF_MARKER[l.tone]}${l.text.slice(1)}`))
    .join('\n');
}

function kindSummary(steps: readonly PlanStep[]): string {
  const counts = { create: 0, update: 0, delete: 0 };
  for (const s of steps) counts[s.action]++;
  return (['create', 'update', 'delete'] as const)
    .filter((a) => counts[a] > 0)
    .map((a) => `${counts[a]} to ${a}`)
    .join(', ');
}

// Every untrusted value goes into the comment as code (addresses, names) or as escaped text
// (messages, live values): nothing from live or a manifest is rendered as markdown or HTML.
import { markdownCode, markdownCodeCell, markdownText } from '../io/escape.js';
import { ACCESS_SHOWN, admitsText, capabilitiesText } from './access.js';

/**
 * The plan's access changes as a markdown table (its heading, rows, a note of what is not shown
 * and a blank line after), or nothing when there are none: the plan comment and the apply's
 * result (the Action's job summary) show them alike.
 */
export function accessChangesMarkdown(access: readonly AccessChange[]): string[] {
  if (access.length === 0) return [];
  const out = ['#### Access changes', '', '| Principal | Scope | Reach | Gained | Lost |', '|---|---|---|---|---|'];
  for (const c of access.slice(0, ACCESS_SHOWN)) {
    const admits = admitsText(c);
    const principal = `${markdownCodeCell(c.principal)}${admits !== undefined ? ` — **${markdownText(admits)}**` : ''}`;
    const gained =
      c.gained.length > 0
        ? `➕ ${markdownText(capabilitiesText(c.gained, c.gainedRole))}${c.obtains !== undefined ? ` — **${markdownText(c.obtains)}**` : ''}`
        : '';
    const lost = c.lost.length > 0 ? `➖ ${markdownText(capabilitiesText(c.lost, c.lostRole))}` : '';
    out.push(
      `| ${principal} | ${markdownCodeCell(c.scope)} | ${c.groups} group${c.groups === 1 ? '' : 's'} | ${gained} | ${lost} |`,
    );
  }
  if (access.length > ACCESS_SHOWN)
    out.push('', `_… and ${access.length - ACCESS_SHOWN} more access changes: \`plan --format json\` has them all._`);
  out.push('');
  return out;
}

export function renderMarkdownPlan(plan: Plan, options: MarkdownPlanOptions = {}): string {
  const maxChars = options.maxChars ?? MARKDOWN_MAX_CHARS;
  const head: string[] = [
    `### platform-sync plan for ${markdownCode(plan.org.name)}`,
    '',
    `**${summaryLine(plan.summary, plan.untargeted, plan.refusals.length > 0)}**`,
    '',
  ];
  if (plan.refusals.length > 0) {
    head.push('> [!CAUTION]', '> **This plan is refused: apply will not run it.**', '>');
    for (const r of plan.refusals) head.push(`> - ${markdownText(r.message)}`);
    head.push('');
  }
  head.push(...accessRulesMarkdown(plan.accessRules ?? []));
  head.push(...accessChangesMarkdown(plan.accessChanges ?? []));
  const members = (plan.members ?? []).filter((m) => m.state !== 'present');
  if (members.length > 0) {
    head.push('#### Members', '', '| E-mail | Role | Group | State |', '|---|---|---|---|');
    for (const m of members.slice(0, ACCESS_SHOWN)) {
      const state =
        m.state === 'pending'
          ? `pending until ${m.expirationTime ?? '?'}`
          : `➕ invited until ${m.expirationTime ?? '?'}${m.replaces ? ` (replaces ${m.reinvited ? 'the open invite: --reinvite' : 'an expired invite'})` : ''}`;
      head.push(
        `| ${markdownCodeCell(m.email)} | ${markdownCodeCell(m.role)} | ${markdownCodeCell(m.group)} | ${markdownText(state)} |`,
      );
    }
    if (members.length > ACCESS_SHOWN)
      head.push('', `_… and ${members.length - ACCESS_SHOWN} more members: \`plan --format json\` has them all._`);
    head.push('');
  }
  const renames = plan.steps.flatMap((s) => (s.action === 'update' && s.previousAddress !== undefined ? [s] : []));
  if (renames.length > 0) {
    head.push(
      '> [!NOTE]',
      `> **This plan renames ${renames.length} resource${renames.length === 1 ? '' : 's'} in place** (same uid; everything beneath and every binding kept):`,
      '>',
    );
    for (const s of renames) head.push(`> - ${markdownCode(s.previousAddress!)} → ${markdownCode(s.address)}`);
    head.push('');
  }
  const deletes = plan.steps.filter((s) => s.action === 'delete');
  if (deletes.length > 0) {
    // A list, one per line: a reviewer scans deletes, and a comma-joined paragraph of long
    // addresses is where one slips by.
    const verb = plan.refusals.length > 0 ? 'would delete' : 'deletes';
    head.push(
      `> [!WARNING]`,
      `> **This plan ${verb} ${deletes.length} resource${deletes.length === 1 ? '' : 's'}:**`,
      '>',
    );
    for (const s of deletes.slice(0, DELETES_NAMED))
      head.push(`> - ${markdownCode(s.address)}${s.reason ? ` (${markdownText(s.reason)})` : ''}`);
    if (deletes.length > DELETES_NAMED)
      head.push(`> - … and ${deletes.length - DELETES_NAMED} more (in the details below)`);
    head.push('');
  }
  if (plan.warnings.length > 0) {
    head.push('**Warnings**', '', ...plan.warnings.map((w) => `- ${markdownText(w)}`), '');
  }
  let out = `${head.join('\n')}\n`;
  let shown = 0;
  const cutKinds = new Set<Kind>();
  for (const kind of KINDS) {
    const steps = plan.steps.filter((s) => s.kind === kind);
    if (steps.length === 0) continue;
    const blocks = steps.map(stepBlock);
    const fence = fenceFor(blocks.join('\n'));
    const open = `<details><summary>${countLabel(kind, steps.length)}: ${kindSummary(steps)}</summary>\n\n${fence}diff\n`;
    const close = `${fence}\n\n</details>\n\n`;
    let section = '';
    let fitted = 0;
    for (const block of blocks) {
      if (out.length + open.length + section.length + block.length + 1 + close.length > maxChars - RESERVE) break;
      section += `${block}\n`;
      fitted++;
    }
    shown += fitted;
    if (fitted > 0) out += open + section + close;
    if (fitted < blocks.length) {
      // Whatever did not fit of this kind, and every later kind, is cut.
      for (const later of KINDS.slice(KINDS.indexOf(kind)))
        if (plan.steps.some((s) => s.kind === later)) cutKinds.add(later);
      break;
    }
  }
  if (shown < plan.steps.length) {
    const cut = plan.steps.length - shown;
    out +=
      `> ✂️ **${cut} of ${plan.steps.length} steps are not shown** (${[...cutKinds].join(', ')}): this report is cut to fit ` +
      `${maxChars.toLocaleString('en-US')} characters. Run \`platform-sync plan\` to see the whole plan.\n`;
  }
  // One escape over everything (DESIGN.md §4): no raw control, bidi or zero-width character from
  // live data or manifests reaches a pull-request comment.
  return escapeControl(`${out.replace(/\n+$/, '')}\n`);
}
