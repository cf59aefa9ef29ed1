/**
 * Where each mapping and list of a file read fast (fast-yaml.ts) starts, as js-yaml reads it:
 * js-yaml tells a listener (its documented `listener` option) when it opens a node and when it
 * closes it, with the value built; a mapping's or a list's start is where it was opened, past the
 * spaces, line breaks and comments before it. A resource's source location is the start of its
 * mapping, so every resource of a file is located from the one reading that built its value:
 * no line table of our own, no second reader. Keys and scalars are not recorded here (a value
 * such as `viewer` occurs many times); parse-documents.ts asks the `yaml` package for those, on
 * first use, as it does for anything this does not know. The differential test
 * (test/unit/fast-yaml.test.ts) holds every answer to the `yaml` package's, for every node and key
 * of every fixture and of thousands of generated manifests. Pure.
 */
import type { State } from 'js-yaml';
import type { Pointer } from './diagnostics.js';

/** A character a node's content may not start with here: an anchor, a tag, an alias, an explicit key. */
const PROPERTY_OR_ALIAS = new Set(['&', '!', '*', '?']);

export class CollectionStarts {
  /** The offset each mapping and list of the file starts at, by the value js-yaml built for it. */
  private readonly starts = new Map<object, number>();
  /** Where each node still open was opened (js-yaml opens and closes them as a stack). */
  private readonly opened: number[] = [];

  constructor(private readonly text: string) {}

  /** js-yaml's `listener`: records the start of each mapping and list as it is closed. */
  readonly listener = (event: 'open' | 'close', state: State): void => {
    if (event === 'open') {
      this.opened.push(state.position);
      return;
    }
    const opened = this.opened.pop()!;
    const value: unknown = state.result;
    if (value === null || typeof value !== 'object') return;
    const start = contentStart(this.text, opened);
    // A node is closed twice where js-yaml tried it as a block mapping's first key and kept it,
    // from the same start. Where a property or an alias starts is not where `yaml` puts the node
    // (and an alias's value stands elsewhere): left to `yaml`, as the shape check leaves them.
    this.starts.set(value, PROPERTY_OR_ALIAS.has(this.text[start]!) ? -1 : start);
  };

  /**
   * The offset of the node at `pointer` in a document whose value is `root`, as the `yaml` package
   * finds it (yaml-positions.ts `findOffset`): of the deepest node that exists on the way when
   * the pointer goes past what exists. Undefined when that node is a key asked for, a scalar, or
   * a node not recorded: the `yaml` package's to find.
   */
  offsetOf(root: unknown, pointer: Pointer, target: 'key' | 'value'): number | undefined {
    let node = root;
    let viaKey = false;
    for (const segment of pointer) {
      let next: unknown;
      if (Array.isArray(node)) {
        next = node[Number(segment)];
        viaKey = false;
      } else if (node !== null && typeof node === 'object') {
        const key = String(segment);
        next = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
        viaKey = true;
      }
      // Past what exists: the deepest node reached.
      if (next === undefined) return this.startOf(node);
      node = next;
    }
    return target === 'key' && viaKey ? undefined : this.startOf(node);
  }

  private startOf(node: unknown): number | undefined {
    if (node === null || typeof node !== 'object') return undefined;
    const start = this.starts.get(node);
    return start === undefined || start < 0 ? undefined : start;
  }
}

/** The offset of the first character at or after `at` that is no space, line break or comment. */
function contentStart(text: string, at: number): number {
  let p = at;
  for (;;) {
    const c = text.charCodeAt(p);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) p++;
    else if (c === 0x23) {
      const end = text.indexOf('\n', p);
      if (end < 0) return text.length;
      p = end + 1;
    } else return p;
  }
}
