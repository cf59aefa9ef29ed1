/**
 * The one escape every view uses (DESIGN.md §4, §8). Text from live data, servers and manifests is
 * untrusted when it reaches a terminal, a pull-request comment or a job summary: C0 controls
 * (but tab and newline, which the views lay out themselves), DEL, C1 controls, the bidirectional
 * controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the zero-width characters
 * (U+200B–U+200D, U+2060, U+FEFF) are written as `\u{…}`, never raw: a description cannot clear
 * the screen, fake output, reorder what a reviewer reads or hide text in a comment.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/**
 * JSON text with every character {@link escapeControl} escapes written as a JSON `\uXXXX`
 * escape: the same value for a JSON reader, nothing raw for a person reading the log. Those
 * characters can only occur inside JSON strings, where the escape is valid.
 */
function escapeJsonText(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON.stringify, then {@link escapeJsonText}. */
export function stringifyForOutput(value: unknown, indent?: number): string {
  return escapeJsonText(JSON.stringify(value, null, indent));
}
