/**
 * The apply's result as the Action reports it (the job summary and the merged pull request's
 * comment): read from `apply --format json`'s events, never from the text a person reads — what
 * was done, what failed, what was not reached, and the access changes the plan makes (the log
 * points at them). A run that stopped before applying (a stale or refused plan, manifests that
 * differ from the reviewed plan's, invalid manifests, an old apply job re-run) says so and why.
 */
import { escapeControl, escapeHtml, markdownCode, markdownText } from '../io/escape.js';
import type { AccessChange } from '../model/plan.js';
import { accessChangesMarkdown } from '../views/plan-markdown.js';

export interface ApplyResult {
  done: string[];
  failed: { address: string; error: string }[];
  skipped: { address: string; because: string }[];
  /** Fields the service holds otherwise than they were sent (the steps are done; the org is not what the plan said). */
  differs: { address: string; field: string; wrote?: unknown; answered?: unknown }[];
}

/** Each JSON event of apply's output (lines that are not events are skipped). */
function eventsOf(jsonLines: string): { type?: unknown; result?: unknown; plan?: unknown }[] {
  const out: { type?: unknown; result?: unknown; plan?: unknown }[] = [];
  for (const line of jsonLines.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const event: unknown = JSON.parse(line);
      if (event !== null && typeof event === 'object' && !Array.isArray(event)) out.push(event as { type?: unknown });
    } catch {
      // not an event line
    }
  }
  return out;
}

const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const optionalString = (v: unknown): boolean => v === undefined || typeof v === 'string';

/** A value as the summary shows it: JSON, cut short. */
function shown(value: unknown): string {
  if (value === undefined) return 'unset';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/** What `apply --format json` ended with (its `end` event), or undefined when it did not get that far. */
export function applyResultOf(jsonLines: string): ApplyResult | undefined {
  const end = [...eventsOf(jsonLines)]
    .reverse()
    .find((e) => e.type === 'end' && e.result !== null && typeof e.result === 'object');
  if (!end) return undefined;
  const result = end.result as { done?: unknown; failed?: unknown; skipped?: unknown; differs?: unknown };
  const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
  const differs = list<{ address?: unknown; field?: unknown }>(result.differs).filter(
    (d): d is ApplyResult['differs'][number] =>
      d !== null && typeof d === 'object' && typeof d.address === 'string' && typeof d.field === 'string',
  );
  return { done: list(result.done), failed: list(result.failed), skipped: list(result.skipped), differs };
}

/** The access changes of the plan apply printed (its `plan` event), each checked for its shape; [] when none. */
export function accessChangesOf(jsonLines: string): AccessChange[] {
  const plan = eventsOf(jsonLines).find((e) => e.type === 'plan')?.plan as { accessChanges?: unknown } | undefined;
  if (!Array.isArray(plan?.accessChanges)) return [];
  return (plan.accessChanges as Partial<Record<keyof AccessChange, unknown>>[]).filter(
    (c): c is AccessChange =>
      c !== null &&
      typeof c === 'object' &&
      typeof c.principal === 'string' &&
      typeof c.scope === 'string' &&
      strings(c.gained) &&
      strings(c.lost) &&
      typeof c.groups === 'number' &&
      optionalString(c.note) &&
      optionalString(c.gainedRole) &&
      optionalString(c.lostRole),
  );
}

/**
 * The apply's result for the job summary and the comment: the outcome, the access changes, what
 * failed and what was done; when nothing was applied, why (`problem`, or the command's errors).
 */
export function applySummaryMarkdown(jsonLines: string, stderr: string, exitcode: number, problem?: string): string {
  const result = problem === undefined ? applyResultOf(jsonLines) : undefined;
  const access = accessChangesOf(jsonLines);
  const lines = ['### platform-sync apply', ''];
  if (!result && exitcode === 0) {
    // Nothing to apply: apply printed the empty plan and sent nothing (no events).
    lines.push('**No changes**: the org already matched the manifests.');
    return `${lines.join('\n')}\n`;
  }
  if (!result) {
    const when =
      problem !== undefined
        ? 'this apply was refused before anything was read or sent'
        : 'the run stopped before applying';
    lines.push(`**Nothing was applied**: ${when} (see the error below).`, '');
    if (access.length > 0)
      lines.push('The plan it refused would make these access changes:', '', ...accessChangesMarkdown(access));
    const why = problem !== undefined ? `Error: ${problem}` : stderr.trimEnd();
    if (why.trim() !== '') lines.push('<pre>', escapeHtml(why), '</pre>', '');
    return `${escapeControl(lines.join('\n').trimEnd())}\n`;
  }
  const total = result.done.length + result.failed.length + result.skipped.length;
  const failed = result.failed.length > 0 ? `, ${result.failed.length} failed` : '';
  const notRun = result.skipped.length > 0 ? `, ${result.skipped.length} not run` : '';
  const outcome = `**${exitcode === 0 ? 'Apply complete' : 'Apply incomplete'}: ${result.done.length} of ${total} steps done**${failed}${notRun}.`;
  lines.push(total === 0 ? '**No changes**: the org already matched the manifests.' : outcome, '');
  lines.push(...accessChangesMarkdown(access));
  for (const f of result.failed) lines.push(`- ✗ ${markdownCode(f.address)}: ${markdownText(f.error)}`);
  for (const d of result.differs.slice(0, 50))
    lines.push(
      `- ! ${markdownCode(d.address)} ${markdownText(d.field)}: the service holds ${markdownText(shown(d.answered))}, sent ${markdownText(shown(d.wrote))}`,
    );
  if (result.differs.length > 0)
    lines.push('', 'The service kept other values than it was sent: `platform-sync plan` shows them as changes.');
  if (result.failed.length > 0 || result.skipped.length > 0)
    lines.push('', 'Run the apply again (or `platform-sync plan`) to see and finish what is left.');
  if (result.done.length > 0) {
    lines.push(
      '',
      `<details><summary>${result.done.length} step${result.done.length === 1 ? '' : 's'} done</summary>`,
      '',
    );
    for (const a of result.done) lines.push(`- ${markdownCode(a)}`);
    lines.push('', '</details>');
  }
  return `${escapeControl(lines.join('\n'))}\n`;
}
