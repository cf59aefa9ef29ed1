/**
 * What the Action writes where the GitHub runner reads workflow commands (DESIGN.md §8 rev 6):
 * the job log, and — for the same guarantee everywhere — the job summary and the comments.
 *
 * The runner reads its process's output a line at a time (a line ends at LF, CR or CR LF); a
 * line is a command when, its leading white space trimmed, it starts with `::name…::`, or when it
 * holds `##[name…]` anywhere (the older form). Text from a pull request (a file name, a path, a
 * name in a manifest, a message quoting one) reaches those places only through {@link logText}:
 * every control but tab and LF is written as `\u{…}` (so CR cannot end a line), a line whose
 * first characters would be `::` starts with `\u{3a}:` instead, and `##[` is written `#\u0023[`.
 * No line the runner reads as a command can start from such text, so `stop-commands` is never
 * needed. The Action's own commands (`::add-mask::`, annotations, warnings) are built by
 * {@link workflowCommand}, whose message and properties are escaped by GitHub's rules.
 */
import { escapeWorkflowLog } from '../io/escape.js';

/** Text from elsewhere (lines separated by LF), escaped so that no line of it is a workflow command (the one escape, io/escape.ts). */
export const logText: (text: string) => string = escapeWorkflowLog;

/** Workflow-command data: `%`, CR and LF escaped (GitHub's rules). */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** A workflow-command property: as data, and `:` and `,` too. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

/** One workflow command of the Action's own, one line: `::name k=v,…::message` (`##[` in it written `#\u0023[` too). */
export function workflowCommand(
  name: 'error' | 'warning' | 'notice',
  message: string,
  properties: Record<string, string> = {},
): string {
  const props = Object.entries(properties).map(([k, v]) => `${k}=${escapeProperty(logText(v))}`);
  return `::${name}${props.length > 0 ? ` ${props.join(',')}` : ''}::${escapeData(logText(message))}\n`;
}

/** Printable ASCII without `%` (and so without CR or LF): what a server-chosen value may be to reach a workflow command. */
export const SAFE_FOR_WORKFLOW_COMMAND = /^[\x20-\x24\x26-\x7e]+$/;

/** `::error file=…,line=…,col=…::message` for each `file:line:col: message` a command printed (at most 50). */
export function annotationsOf(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^([^\s:][^:]*):(\d+):(\d+): (.+)$/.exec(line);
    if (!m || /^https?$/.test(m[1]!)) continue;
    out.push(workflowCommand('error', m[4]!, { file: m[1]!, line: m[2]!, col: m[3]! }));
    if (out.length === 50) break;
  }
  return out;
}
