/**
 * The Action's apply summary (src/action/apply-report.ts) names each field the service kept
 * otherwise than it was sent (`result.differs` of apply's `end` event), escaped, and says the next
 * plan shows them; a result without them says nothing of it.
 */
import { describe, expect, it } from 'vitest';
import { applyResultOf, applySummaryMarkdown } from '../../src/action/apply-report.js';

const end = (result: Record<string, unknown>) =>
  `${JSON.stringify({ type: 'end', result: { failed: [], skipped: [], ok: false, requests: 3, ms: 9, ...result } })}\n`;

describe('the apply summary when the service keeps other values', () => {
  it('lists each field with what the service holds and what was sent, escaped', () => {
    const lines = end({
      done: ['group:eng'],
      differs: [{ address: 'group:eng', field: 'description', wrote: 'Eng <b>and</b> ops', answered: 'Eng <b>' }],
    });
    expect(applyResultOf(lines)?.differs).toHaveLength(1);
    const md = applySummaryMarkdown(lines, '', 1);
    expect(md).toContain('**Apply incomplete: 1 of 1 steps done**.');
    expect(md).toContain(
      '- ! `group:eng` description: the service holds "Eng &lt;b&gt;", sent "Eng &lt;b&gt;and&lt;/b&gt; ops"',
    );
    expect(md).toContain('`platform-sync plan` shows them as changes');
  });

  it('says nothing of it when every answer held what was sent, and drops a malformed entry', () => {
    expect(applySummaryMarkdown(end({ done: ['group:eng'], ok: true }), '', 0)).not.toContain('the service holds');
    expect(applyResultOf(end({ done: [], differs: [{ field: 1 }, null, 'x'] }))?.differs).toEqual([]);
  });
});
