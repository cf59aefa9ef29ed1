/**
 * Live and manifest text is untrusted when it reaches a terminal: control characters (C0, DEL,
 * C1) and bidirectional overrides are shown escaped (`\u001b`), never sent raw, so a description
 * cannot clear the screen, fake output or reorder what a reviewer reads.
 */
// C0 except tab and newline, DEL, C1, and the bidi embedding/override/isolate controls.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
