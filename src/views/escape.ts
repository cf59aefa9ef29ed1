/**
 * The one escape every view uses (its primitives: src/io/escape.ts) (DESIGN.md §4, §8). Text from live data, servers and manifests is
 * untrusted when it reaches a terminal, a pull-request comment or a job summary: C0 controls
 * (but tab and newline, which the views lay out themselves), DEL, C1 controls, the bidirectional
 * controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and the zero-width characters
 * (U+200B–U+200D, U+2060, U+FEFF) are written as `\u{…}`, never raw: a description cannot clear
 * the screen, fake output, reorder what a reviewer reads or hide text in a comment.
 */
import { escapeJsonText } from '../io/escape.js';

export { escapeControl, escapeValue } from '../io/escape.js';

/** JSON.stringify, then {@link escapeJsonText}. */
export function stringifyForOutput(value: unknown, indent?: number): string {
  return escapeJsonText(JSON.stringify(value, null, indent));
}
