/**
 * The plan for a terminal, like Terraform's: `+ create`, `~ update`, `- delete`, changed
 * fields as `old → new`, multi-line fields as a unified diff, and a summary line. Colours are
 * the caller's choice (`color`: a TTY and no NO_COLOR), never guessed here. Text from live
 * state and manifests is escaped (escape.ts) before it is painted.
 */
import type { Plan } from '../model/plan.js';
import { renderStepLines, summaryLine, type LineTone } from './step-lines.js';
import { escapeControl, escapeValue } from './escape.js';
import { ACCESS_SHOWN, admitsText, capabilitiesText, reachText } from './access.js';
import { paintFor, type Style } from './paint.js';
import { accessRulesLines } from './access-rules.js';

export interface TextPlanOptions {
  color: boolean;
}

const TONE_STYLE: Record<LineTone, Style | null> = {
  add: 'green',
  remove: 'red',
  change: 'yellow',
  context: null,
  header: 'bold',
};

export function renderTextPlan(plan: Plan, options: TextPlanOptions = { color: false }): string {
  const painter = paintFor(options.color);
  const paint = (tone: LineTone, text: string): string => {
    const style = TONE_STYLE[tone];
    return style ? painter(style, text) : text;
  };
  const out: string[] = [];
  const rules = accessRulesLines(plan.accessRules ?? []).map((l) => paint(l.tone, l.text));
  if (plan.steps.length === 0) out.push(...rules);
  if (plan.steps.length > 0) {
    const org = plan.org.uid ? `${plan.org.name} (${plan.org.uid})` : `${plan.org.name} (to be created)`;
    const intro =
      plan.refusals.length > 0
        ? 'platform-sync would make these changes to org'
        : 'platform-sync will make these changes to org';
    out.push(paint('header', escapeControl(`${intro} ${org}:`)), '', ...rules);
    const access = plan.accessChanges ?? [];
    if (access.length > 0) {
      out.push(paint('header', 'Access changes:'));
      for (const c of access.slice(0, ACCESS_SHOWN)) {
        if (c.gained.length > 0)
          out.push(
            `  ${paint('add', '+')} ${escapeValue(`${c.principal} gains ${capabilitiesText(c.gained, c.gainedRole)} on ${c.scope}${reachText(c)}`)}`,
          );
        if (c.note !== undefined) out.push(`      ${escapeValue(c.note)}`);
        if (c.obtains !== undefined) out.push(`      ${escapeValue(c.obtains)}`);
        if (c.lost.length > 0)
          out.push(
            `  ${paint('remove', '-')} ${escapeValue(`${c.principal} loses ${capabilitiesText(c.lost, c.lostRole)} on ${c.scope}${reachText(c)}`)}`,
          );
        const admits = c.note === undefined ? admitsText(c) : undefined;
        if (admits !== undefined) out.push(`      ${escapeValue(admits)}`);
      }
      if (access.length > ACCESS_SHOWN)
        out.push(`  … and ${access.length - ACCESS_SHOWN} more (plan --format json has them all)`);
      out.push('');
    }
    for (const step of plan.steps) {
      for (const line of renderStepLines(step)) out.push(`  ${paint(line.tone, escapeControl(line.text))}`);
      out.push('');
    }
  }
  const members = (plan.members ?? []).filter((m) => m.state !== 'present');
  if (members.length > 0) {
    out.push(paint('header', 'Members:'));
    for (const m of members.slice(0, ACCESS_SHOWN))
      out.push(
        `  ${paint(m.state === 'invited' ? 'add' : 'change', m.state === 'invited' ? '+' : '~')} ${escapeControl(describeMember(m))}`,
      );
    if (members.length > ACCESS_SHOWN)
      out.push(`  … and ${members.length - ACCESS_SHOWN} more (plan --format json has them all)`);
    out.push('');
  }
  if (plan.warnings.length > 0) {
    out.push(paint('header', 'Warnings:'));
    for (const w of plan.warnings) out.push(`  ${paint('change', '!')} ${escapeControl(w)}`);
    out.push('');
  }
  if (plan.refusals.length > 0) {
    out.push(paint('remove', 'Refused: apply will not run this plan:'));
    for (const r of plan.refusals) out.push(`  ${paint('remove', 'x')} ${escapeValue(r.message)}`);
    out.push('');
  }
  out.push(paint('header', summaryLine(plan.summary, plan.untargeted, plan.refusals.length > 0)));
  return `${out.join('\n')}\n`;
}

/** One member line as a reviewer reads it: who, what, where, and where it stands. */
export function describeMember(m: NonNullable<Plan['members']>[number]): string {
  const who = `${m.email} (${m.role} on ${m.group})`;
  if (m.state === 'pending') return `${who}: pending, the invite expires ${m.expirationTime ?? '?'}`;
  if (m.state === 'present') return `${who}: present as ${m.identity ?? '?'}`;
  return `${who}: invited, the invite expires ${m.expirationTime ?? '?'}${m.replaces ? ` (replaces the ${m.reinvited ? 'open invite, by --reinvite,' : 'expired'} ${m.replaces})` : ''}`;
}
