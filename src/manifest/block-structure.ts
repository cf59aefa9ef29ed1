/**
 * Whether the lines of a file in the plain shape (plain-shape.ts `PlainLines`) nest as YAML block
 * structure: every list item where a list can be, every key in a mapping at its column. js-yaml
 * reads some lines otherwise than `yaml`: a list item at a mapping's column after a nested
 * mapping (an error to `yaml`), and an item after an empty item (`-` alone), left of that item's
 * list (js-yaml puts it into that list; `yaml` ends the list there, review of issue 61): such a
 * file is `yaml`'s to read, which reads it right or says what is wrong.
 * This decides no value (js-yaml reads them all); it only sends a file to the reader that reports
 * it. A list on its item's line (`- - x`) is left to `yaml` too. Pure.
 */
import { keyEndAt, lineEnd, startsItem, type PlainLines } from './plain-shape.js';

/** A mapping or a sequence being read, the column of its keys or items, and whether its last entry's value is still to come below. */
interface Frame {
  column: number;
  seq: boolean;
  open: boolean;
}

/** Whether every document of `lines` is block structure (see above). */
export function isBlockStructure(text: string, lines: PlainLines): boolean {
  for (let d = 0; d < lines.docFirst.length; d++) {
    if (!documentNests(text, lines, lines.docFirst[d]!, lines.docFirst[d + 1] ?? lines.content.length)) return false;
  }
  return true;
}

function documentNests(text: string, lines: PlainLines, from: number, to: number): boolean {
  const { content, indent } = lines;
  const stack: Frame[] = [{ column: indent[from]!, seq: false, open: false }];
  for (let j = from; j < to; j++) {
    const column = indent[j]!;
    let p = content[j]!;
    const end = lineEnd(text, p);
    const item = startsItem(text, p);
    // Back to the frame this line's column belongs to (a key at a list's column ends the list).
    for (
      let top = stack[stack.length - 1]!;
      top.column > column || (!item && top.column === column && top.seq);
      top = stack[stack.length - 1]!
    ) {
      // An empty item (`-` alone) then an item left of its list: js-yaml takes that item into the
      // list of the empty one, whatever its column (`yaml` ends the list there): `yaml`'s to read.
      if (item && top.seq && top.open) return false;
      stack.pop();
      if (stack.length === 0) return false;
    }
    let top = stack[stack.length - 1]!;
    if (top.column !== column || top.seq !== item) {
      // A new list or mapping: only as the value left open above it (deeper, or a list at its key's column).
      if (!top.open || !(column > top.column || (item && !top.seq && column === top.column))) return false;
      top.open = false;
      top = { column, seq: item, open: false };
      stack.push(top);
    }
    if (item) {
      p++;
      while (p < end && text.charCodeAt(p) === 0x20) p++;
      top.open = p === end || text.charCodeAt(p) === 0x23;
      if (top.open) continue;
      if (startsItem(text, p)) return false;
      const keyEnd = keyEndAt(text, p, end);
      if (keyEnd === -1) return false;
      if (keyEnd === p) continue; // a scalar or flow collection item
      top = { column: p - (content[j]! - column), seq: false, open: false };
      stack.push(top);
      top.open = valueBelow(text, keyEnd, end);
      continue;
    }
    const keyEnd = keyEndAt(text, p, end);
    if (keyEnd <= p) return false;
    top.open = valueBelow(text, keyEnd, end);
  }
  return true;
}

/** Whether nothing but spaces and a comment follows the ":" after the key ending at `keyEnd`: its value is below (or empty). */
function valueBelow(text: string, keyEnd: number, end: number): boolean {
  let v = text.indexOf(':', keyEnd) + 1;
  while (v < end && text.charCodeAt(v) === 0x20) v++;
  return v === end || text.charCodeAt(v) === 0x23;
}
