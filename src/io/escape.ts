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

/**
 * A zero-width space written as an HTML entity: GitHub shows it as nothing, and it breaks what
 * GitHub would otherwise link or notify. It is the entity, not the character, because every
 * markdown view ends with {@link escapeControl}, which writes a raw U+200B as `\u{200b}`.
 * Renovate breaks `@mentions` and `#123` in the release notes it copies into pull requests the
 * same way: GitHub renders `@&#8203;octocat` as "@octocat" without a link and without a ping.
 */
const ZWSP = '&#8203;';

/**
 * Untrusted text (live data, a manifest's value, a server's message) as markdown prose — a list
 * item, a table cell, a quote — that GitHub renders as the text itself (DESIGN.md §4, §8): no
 * HTML, no link or image, no code span, emphasis or strike-through, no table cell break, no
 * heading or list opened by the text's first characters, one line; and nothing GitHub would
 * autolink or turn into a notification: `@user` and `@org/team` (no ping), `http(s)://…` and
 * `www.…` (no link), e-mail addresses (no mailto) and `#123` (no cross-reference in another
 * repository's issue). Every markdown view puts every untrusted value through here or through
 * {@link markdownCode}.
 */
export function markdownText(text: string): string {
  const escaped = text
    .replace(/\n/g, ' ')
    // Backslash first: each escape below adds one. Markdown reads `\x` as x for any ASCII
    // punctuation, so the rendered text is the input's.
    .replace(/\\/g, '\\\\')
    .replace(/[`*[\]|~$]/g, (c) => `\\${c}`)
    // `_` emphasises only where it is not between two letters or digits (GFM's flanking rule):
    // `account_associations` is left as it is.
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
    // What opens a block at the start of a line: a heading, a list item, a rule (`- --`).
    .replace(/^[-+#]|^(\d{1,9})([.)])(?=\s|$)/, (marker: string, digits?: string, dot?: string) =>
      digits === undefined ? `\\${marker}` : `${digits}\\${dot}`,
    );
  // `#` before a digit first: the entity inserted holds one.
  return (
    escapeHtml(escaped)
      .replace(/#(?=\d)/g, `#${ZWSP}`)
      .replace(/@/g, `@${ZWSP}`)
      .replace(/:\/\//g, `:${ZWSP}//`)
      // Anywhere, not at a word's start alone: GFM links `_www.x` too.
      .replace(/(www)\./gi, `$1${ZWSP}.`)
      // Leading blanks would indent the line into a code block: the first one as an entity.
      .replace(/^[ \t]/, (c) => (c === ' ' ? '&#32;' : '&#9;'))
  );
}

/**
 * Untrusted text as an inline code span that nothing in it can end (CommonMark §6.1): its fence
 * is one backtick longer than the longest run of backticks inside, and it is padded with a space
 * on each side (which the renderer strips) when the text holds a backtick or starts and ends with
 * a space. HTML, links, `@mentions` and URLs are shown as they are, never rendered or linked:
 * GitHub neither links nor notifies inside code. One line ({@link escapeValue}). In a table, use
 * {@link markdownCodeCell}.
 */
export function markdownCode(text: string): string {
  const value = escapeValue(text);
  let longest = 0;
  for (const run of value.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(longest + 1);
  // Two backticks with nothing between are text, not an empty span: an empty value shows as a space.
  if (value === '') return '` `';
  const pad = value.includes('`') || (/^ /.test(value) && / $/.test(value) && /[^ ]/.test(value));
  return pad ? `${fence} ${value} ${fence}` : `${fence}${value}${fence}`;
}

/**
 * {@link markdownCode} for a table cell: a `|` would end the cell even inside the code span, so it
 * is written `\|`, which GFM tables (GitHub's cmark-gfm, markdown-it) read as a `|` of the cell,
 * whatever precedes it, and show without the backslash.
 */
export function markdownCodeCell(text: string): string {
  return markdownCode(text).replace(/\|/g, '\\|');
}

/**
 * What the runner's comparisons skip: it tests a line with .NET's culture-aware `StartsWith("::")`
 * and `IndexOf("##[")` (actions/runner, ActionCommand.TryParseV2 and TryParse; it does not run in
 * invariant-globalization mode), and with ICU those ignore default-ignorable and format
 * characters — `\u00AD::x` starts with `::` for them. The ones {@link escapeControl} leaves raw
 * (U+00AD, U+034F, variation selectors, tags, …) are counted as absent here. Today's parser then
 * cuts the command's name at a fixed offset, so such a line names no command it knows; the escape
 * does not lean on that detail.
 */
const IGNORED_BY_RUNNER = '[\\p{Default_Ignorable_Code_Point}\\p{Cf}]*';
const STARTS_COMMAND = new RegExp(`^(\\s*${IGNORED_BY_RUNNER}):(${IGNORED_BY_RUNNER}:)`, 'u');
const OLD_COMMAND = new RegExp(`#(${IGNORED_BY_RUNNER})#(${IGNORED_BY_RUNNER})\\[`, 'gu');

/**
 * Text as it may reach a GitHub Actions job log (DESIGN.md §8 rev 6), where the runner reads its
 * process's output a line at a time and takes a line as a workflow command when, its leading white
 * space trimmed, it starts with `::`, or when it holds `##[` — compared as .NET's culture-aware
 * comparison does, which skips the characters {@link IGNORED_BY_RUNNER} names: every control but
 * tab and LF written as `\u{…}` (so CR cannot end a line), a line whose first characters would be
 * `::` starting with `\u{3a}:` instead, and `##[` written `#\u0023[` (a form that JSON reads back
 * as `##[`, so a `--format json` document redirected to a file keeps its values), ignorable
 * characters between them or before them or not. No line of the result is a command, so
 * `stop-commands` is never needed. The Action's log and the CLI's streams under Actions use it.
 */
export function escapeWorkflowLog(text: string): string {
  return text
    .split('\n')
    .map((line) => escapeControl(line).replace(OLD_COMMAND, '#$1\\u0023$2[').replace(STARTS_COMMAND, '$1\\u{3a}$2'))
    .join('\n');
}
