/**
 * The one escape for a GitHub Actions log (src/io/escape.ts escapeWorkflowLog, the Action's
 * logText): a line the runner's culture-aware comparison reads as starting with `::`, or as
 * holding `##[`, once the characters it skips are skipped, is written so that it does not
 * (found by the review: `\u00AD::x` starts with `::` for .NET with ICU).
 */
import { describe, expect, it } from 'vitest';
import { logText } from '../../src/action/workflow-log.js';
import { runnerCommands } from '../support/action-step.js';

/** Characters .NET's culture-aware StartsWith and IndexOf skip, that the control escape leaves raw. */
const SKIPPED = ['\u00ad', '\u034f', '\ufe0f', '\u{e0001}', '\u2061', '\u180e', '\u115f'];

describe('logText and the characters the runner skips', () => {
  it('no line starts a command, whichever skipped characters come before, between or inside', () => {
    const lines = SKIPPED.flatMap((c) => [
      `${c}::warning title=INJECTED::x`,
      `  ${c}${c}::error::INJECTED`,
      `:${c}:warning::INJECTED`,
      `a #${c}#[warning]INJECTED`,
      `b ##${c}[warning]INJECTED`,
    ]);
    expect(runnerCommands(lines.join('\n')).length).toBe(lines.length);
    const escaped = logText(lines.join('\n'));
    expect(runnerCommands(escaped)).toEqual([]);
    expect(escaped.split('\n')).toHaveLength(lines.length);
  });

  it('leaves text the runner reads as text as it is', () => {
    const text = 'plain: a::b\n\u00ad x ::y\n#\u00ad#\nname: ##x';
    expect(logText(text)).toBe(text);
  });
});
