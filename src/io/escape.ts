/**
 * The escapes of the one door out (DESIGN.md §4, §8 rev 4), as primitives: the views compose
 * with them, and redaction (src/io/redact.ts) knows every form a secret can take through them.
 *
 * C0 controls (but tab and newline, which a view lays out itself), DEL, C1 controls, the
 * bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the
 * zero-width characters (U+200B–U+200D, U+2060, U+FEFF) are written as `\u{…}`, never raw: a
 * description cannot clear the screen, fake output, reorder what a reviewer reads or hide text.
 * {@link escapeValue} escapes tab and newline too: a name or an address is one line.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;
const UNSAFE_IN_VALUE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;
const UNSAFE_TEST = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** One value on one line: every control, newline and tab included, as `\u{…}`. */
export function escapeValue(text: string): string {
  return text.replace(UNSAFE_IN_VALUE, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** Whether a value holds any character {@link escapeValue} escapes (a name may not). */
export function hasControl(text: string): boolean {
  return UNSAFE_TEST.test(text);
}

/**
 * JSON text with every character {@link escapeControl} escapes written as a JSON `\uXXXX`
 * escape: the same value for a JSON reader, nothing raw for a person reading the log. Those
 * characters can only occur inside JSON strings, where the escape is valid.
 */
export function escapeJsonText(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Text that must read as itself in markdown rendered by GitHub: a live value such as
 * `</details>` or `<img …>` would otherwise become HTML and could break the report around it.
 */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A table cell: no HTML, no code spans, no links (`[text](url)`), no cell breaks (`|`), one line. */
export function markdownCell(text: string): string {
  return escapeHtml(
    text
      .replace(/\\/g, '\\\\')
      .replace(/[|`[\]]/g, (c) => `\\${c}`)
      .replace(/\n/g, ' '),
  );
}

/**
 * Text as it may reach a GitHub Actions job log (DESIGN.md §8 rev 6), where the runner reads its
 * process's output a line at a time and takes a line as a workflow command when, its leading white
 * space trimmed, it starts with `::`, or when it holds `##[`: every control but tab and LF written
 * as `\u{…}` (so CR cannot end a line), a line whose first characters would be `::` starting with
 * `\u{3a}:` instead, and `##[` written `#\u0023[` (a form that JSON reads back as `##[`, so a
 * `--format json` document redirected to a file keeps its values). No line of the result is a command, so
 * `stop-commands` is never needed. The Action's log and the CLI's streams under Actions use it.
 */
export function escapeWorkflowLog(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const escaped = escapeControl(line).replaceAll('##[', '#\\u0023[');
      return /^\s*::/.test(escaped) ? escaped.replace(/^(\s*):/, '$1\\u{3a}') : escaped;
    })
    .join('\n');
}
