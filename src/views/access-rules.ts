/**
 * How the state a plan leads to (or live) holds to `org.accessRules` (DESIGN.md §4 rev 6), for
 * the terminal and for markdown (the pull-request comment): each rule passed or broken, and for a
 * broken one every principal with the grants or the escalation path that cause it. Shown above
 * the steps. Text from manifests and live is escaped.
 */
import type { AccessRuleResult } from '../model/access-rules.js';
import { describeViolation } from '../access/rules.js';
import { escapeValue } from './escape.js';
import { markdownCode, markdownCodeCell, markdownText } from '../io/escape.js';

const SHOWN = 20;

/** Plain lines (the caller paints): the heading, then a line per rule and one per violation. */
export function accessRulesLines(
  results: readonly AccessRuleResult[],
): { tone: 'header' | 'add' | 'remove' | 'context'; text: string }[] {
  if (results.length === 0) return [];
  const out: { tone: 'header' | 'add' | 'remove' | 'context'; text: string }[] = [
    { tone: 'header', text: 'Access rules:' },
  ];
  for (const r of results) {
    out.push({
      tone: r.passed ? 'add' : 'remove',
      text: `  ${r.passed ? '✓' : '✗'} ${escapeValue(`${r.rule}: ${r.passed ? 'holds' : 'BROKEN'} — ${r.summary}`)}`,
    });
    for (const v of r.violations.slice(0, SHOWN))
      out.push({ tone: 'context', text: `      ${escapeValue(describeViolation(v, r.test))}` });
    if (r.violations.length > SHOWN)
      out.push({
        tone: 'context',
        text: `      … and ${r.violations.length - SHOWN} more (plan --format json has them all)`,
      });
  }
  out.push({ tone: 'context', text: '' });
  return out;
}

/** The rules as a markdown table with the violations below it, or nothing without rules. */
export function accessRulesMarkdown(results: readonly AccessRuleResult[]): string[] {
  if (results.length === 0) return [];
  const out = ['#### Access rules', '', '| Rule | Scope | Result |', '|---|---|---|'];
  for (const r of results)
    out.push(
      `| ${markdownCodeCell(r.rule)} | ${markdownCodeCell(r.scope)} | ${r.passed ? '✅ holds' : '❌ **broken**'}: ${markdownText(r.summary)} |`,
    );
  const broken = results.filter((r) => !r.passed);
  if (broken.length > 0) out.push('');
  for (const r of broken) {
    for (const v of r.violations.slice(0, SHOWN))
      out.push(`- ${markdownCode(r.rule)}: ${markdownText(describeViolation(v, r.test))}`);
    if (r.violations.length > SHOWN)
      out.push(
        `- ${markdownCode(r.rule)}: _… and ${r.violations.length - SHOWN} more: \`plan --format json\` has them all._`,
      );
  }
  out.push('');
  return out;
}
