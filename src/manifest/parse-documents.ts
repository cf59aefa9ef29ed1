/**
 * The YAML layer: text → documents with source positions, or diagnostics. Everything here is
 * about YAML itself (syntax, tabs, duplicate keys, aliases, dangerous keys, empty documents);
 * what the documents mean is checked later by the schema and the resolver. Pure.
 */
import type { Document, Pair } from 'yaml';
import { readPlainYaml } from './fast-yaml.js';
import { CollectionStarts } from './collection-starts.js';
import { findOffset, yaml } from './yaml-positions.js';
import type { Diagnostic } from '../model/errors.js';
import type { SourceLocation } from '../model/resources.js';
import { countNoun, fileDiagnostic, formatPointer, type Pointer } from './diagnostics.js';
import { describeYamlProblem, keepOnePerLocation, MAX_NESTING_DEPTH, TOO_DEEP } from './yaml-problems.js';

export { MAX_NESTING_DEPTH } from './yaml-problems.js';

/** Default limit on one manifest file (1 MiB): manifests are small, a huge file is a mistake or an attack. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/**
 * Alias expansions allowed while building one document's value. Honest manifests rarely use
 * aliases at all; a "billion laughs" document needs thousands.
 */
export const MAX_ALIAS_COUNT = 100;
/** Keys that could alter object prototypes in programs that read the manifest as plain objects. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const EXPECTED_DOCUMENT = 'expected a manifest document with "apiVersion: platform-sync/v1" and "org"';

/**
 * One YAML document of a manifest file, parsed.
 * Invariant: `value` is the plain data of a document that had no YAML error (duplicate keys aside,
 * which are reported and resolved last-wins); it is never null.
 */
export interface ManifestDocument {
  /** File name as shown to the user. */
  file: string;
  /** 0-based position of the document in its file. */
  index: number;
  value: unknown;
  /**
   * Source position of the node at `pointer`: of its key when `target` is 'key' (a misspelt
   * field name), else of its value. A pointer that goes past what exists stops at the deepest
   * node that does, so a "missing field" points at the mapping that lacks it.
   */
  locate(pointer: Pointer, target?: 'key' | 'value'): SourceLocation;
}

export interface ParsedFile {
  documents: ManifestDocument[];
  diagnostics: Diagnostic[];
  /**
   * False when some content could not be read (too large, syntax error, alias failure): what it
   * declares is unknown, so references into it cannot be judged.
   */
  complete: boolean;
}

/** "file is 1.5 MiB (1572864 bytes), over the limit of 1 MiB (1048576 bytes)…" */
export function formatOversizeMessage(bytes: number, limit: number): string {
  const exact = (n: number) => (n < 1024 ? formatBytes(n) : `${formatBytes(n)} (${n} bytes)`);
  return `file is ${exact(bytes)}, over the limit of ${exact(limit)}; split it into several manifest files`;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${+(n / (1024 * 1024)).toFixed(2)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(2)} KiB`;
  return `${n} bytes`;
}

/**
 * 'fast': the fast reader first, the `yaml` package for what it does not take; 'yaml': the `yaml`
 * package for every file (slower, same results: for comparing the two).
 */
export type YamlReader = 'fast' | 'yaml';

/** Parses one file's text into documents; every YAML problem becomes a diagnostic. */
export function parseManifestText(
  file: string,
  text: string,
  maxFileBytes = DEFAULT_MAX_FILE_BYTES,
  reader: YamlReader = 'fast',
): ParsedFile {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxFileBytes)
    return {
      documents: [],
      diagnostics: [fileDiagnostic(file, formatOversizeMessage(bytes, maxFileBytes))],
      complete: false,
    };

  const at = locator(file, text);
  const starts = reader === 'fast' ? new CollectionStarts(text) : undefined;
  const values = starts && readPlainYaml(text, FORBIDDEN_KEYS, MAX_NESTING_DEPTH, starts);
  if (starts !== undefined && values !== undefined) {
    // A mapping or a list is located where js-yaml opened it (collection-starts.ts), as a plain
    // location made at once; a key or a scalar is the `yaml` reader's, read when first asked for
    // (a location found when first read keeps the file's text alive as long as it lives: +11 MiB
    // of peak RSS at 100,000 resources if every resource's were, docs/performance.md).
    const positions = new DeferredPositions(file, text, at);
    const documents = values.map(
      (value, index): ManifestDocument => ({
        file,
        index,
        value,
        locate: (pointer, target = 'value') => {
          const offset = starts.offsetOf(value, pointer, target);
          return offset === undefined ? deferredLocation(positions, index, pointer, target) : at(offset);
        },
      }),
    );
    return { documents, diagnostics: [], complete: true };
  }
  return readWithYaml(file, text, at);
}

/**
 * The positions of a file read fast that its lines do not settle: the `yaml` package's syntax
 * tree of it, parsed on first use for positions only — js-yaml's values stay the file's values
 * (`yaml` neither builds values from it nor checks its keys).
 */
class DeferredPositions {
  private documents: Document[] | undefined;

  constructor(
    readonly file: string,
    private readonly text: string,
    private readonly at: (offset: number) => SourceLocation,
  ) {}

  locate(index: number, pointer: Pointer, target: 'key' | 'value'): SourceLocation {
    this.documents ??= yaml().parseAllDocuments(this.text, { prettyErrors: false, uniqueKeys: false }) as Document[];
    // The fast reader takes only what `yaml` reads alike (the differential test holds it): the same documents.
    const doc = this.documents[index];
    return doc === undefined ? this.at(0) : this.at(findOffset(doc, pointer, target));
  }
}

/** Where a deferred location is to be found, kept on it out of sight (not enumerable). */
const DEFERRED = Symbol('deferred location');

interface Deferred {
  positions: DeferredPositions;
  index: number;
  pointer: Pointer;
  target: 'key' | 'value';
  found?: SourceLocation;
}

function foundLocation(location: object): SourceLocation {
  const deferred = (location as { [DEFERRED]: Deferred })[DEFERRED];
  return (deferred.found ??= deferred.positions.locate(deferred.index, deferred.pointer, deferred.target));
}

/**
 * Line and column of a deferred location: the same two getters on every one (an object literal
 * with getters makes two closures per location, ≈50 MiB more at 100,000 resources), each defined
 * by an `Object.defineProperty` of its own: `Object.defineProperties` reads a map of descriptors
 * and costs ≈0.6 µs more per location (docs/performance.md, issue 61: resolve).
 */
const LINE: PropertyDescriptor = {
  enumerable: true,
  get(this: object) {
    return foundLocation(this).line;
  },
};
const COLUMN: PropertyDescriptor = {
  enumerable: true,
  get(this: object) {
    return foundLocation(this).column;
  },
};

/**
 * A source location in a file read fast, whose line and column are found on first use: a plain
 * object whose `line` and `column` are getters, so it reads, spreads, compares and serializes as
 * a plain location.
 */
function deferredLocation(
  positions: DeferredPositions,
  index: number,
  pointer: Pointer,
  target: 'key' | 'value',
): SourceLocation {
  const location = { file: positions.file };
  Object.defineProperty(location, DEFERRED, { value: { positions, index, pointer, target } satisfies Deferred });
  Object.defineProperty(location, 'line', LINE);
  Object.defineProperty(location, 'column', COLUMN);
  return location as SourceLocation;
}

/** Reads a file with the `yaml` package: its documents with positions, or its diagnostics. */
function readWithYaml(file: string, text: string, at: (offset: number) => SourceLocation): ParsedFile {
  // Duplicate keys are found by checkMappings (it can name the first occurrence), so yaml's own check is off.
  const yamlDocs = yaml().parseAllDocuments(text, { prettyErrors: false, uniqueKeys: false });
  if (yamlDocs.length === 0) {
    return {
      documents: [],
      diagnostics: [fileDiagnostic(file, `empty file (no YAML document); ${EXPECTED_DOCUMENT}`)],
      complete: true,
    };
  }

  const documents: ManifestDocument[] = [];
  const diagnostics: Diagnostic[] = [];
  let complete = true;
  yamlDocs.forEach((doc, index) => {
    const problems = [...doc.errors, ...doc.warnings];
    // A tab in indentation derails the parser: the errors that follow it are its echoes.
    const tabs = problems.filter((p) => p.code === 'TAB_AS_INDENT');
    diagnostics.push(
      ...keepOnePerLocation(
        (tabs.length > 0 ? tabs : problems).map((problem) => describeYamlProblem(problem, text, at)),
      ),
    );
    if (problems.length > 0) {
      // The document is unreadable; key checks on its half-parsed tree would only add noise.
      complete = false;
      return;
    }
    const keyProblems = checkMappings(doc, at);
    diagnostics.push(...keyProblems);
    if (keyProblems.some((d) => d.message.startsWith('a mapping key must be a plain name'))) {
      complete = false;
      return;
    }

    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      diagnostics.push(describeAliasFailure(doc, err, at));
      complete = false;
      return;
    }
    const tooDeep = pointerPastDepth(value, MAX_NESTING_DEPTH);
    if (tooDeep !== undefined) {
      diagnostics.push({
        location: at(findOffset(doc, tooDeep, 'value')),
        path: formatPointer(tooDeep),
        message: TOO_DEEP,
      });
      complete = false;
      return;
    }
    if (value === null || value === undefined) {
      const what =
        yamlDocs.length === 1
          ? 'empty file (its only document is empty)'
          : `empty document (document ${index + 1} of ${yamlDocs.length})`;
      diagnostics.push({ location: at(doc.range[0]), path: '', message: `${what}; ${EXPECTED_DOCUMENT}` });
      return;
    }
    documents.push({ file, index, value, locate: (pointer, target = 'value') => at(findOffset(doc, pointer, target)) });
  });
  return { documents, diagnostics, complete };
}

/**
 * The path to the first mapping or list nested deeper than `limit` levels (the document's own
 * mapping is level 1), found without recursion; undefined when there is none.
 */
function pointerPastDepth(value: unknown, limit: number): Pointer | undefined {
  const stack: { node: unknown; pointer: Pointer }[] = [{ node: value, pointer: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { node, pointer } = next;
    if (node === null || typeof node !== 'object') continue;
    if (pointer.length >= limit) return pointer;
    if (Array.isArray(node)) node.forEach((item, i) => stack.push({ node: item, pointer: [...pointer, i] }));
    else for (const [key, item] of Object.entries(node)) stack.push({ node: item, pointer: [...pointer, key] });
  }
  return undefined;
}

/**
 * Offset → line and column for both readers (the `yaml` package's LineCounter counts the same
 * way): a line starts at offset 0 and after every "\n"; both 1-based. Lines are found on first use.
 */
function locator(file: string, text: string): (offset: number) => SourceLocation {
  let lineStarts: number[] | undefined;
  return (offset) => {
    if (lineStarts === undefined) {
      lineStarts = [0];
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', nl + 1)) lineStarts.push(nl + 1);
    }
    let low = 0;
    let high = lineStarts.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (lineStarts[mid]! < offset) low = mid + 1;
      else high = mid;
    }
    if (lineStarts[low] === offset) return { file, line: low + 1, column: 1 };
    return { file, line: low, column: offset - lineStarts[low - 1]! + 1 };
  };
}

/** Duplicate keys (naming the first) and prototype-altering keys, anywhere in the document. */
function checkMappings(doc: Document, at: (offset: number) => SourceLocation): Diagnostic[] {
  const { isMap, isSeq } = yaml();
  const diagnostics: Diagnostic[] = [];
  // A plain walk over collections: yaml's visit() builds a path for every node, which costs more
  // than the check itself on a large manifest. Aliases are not followed (their target is walked where it stands).
  const walk = (node: unknown): void => {
    if (isSeq(node)) {
      for (const item of node.items) walk(item);
    } else if (isMap(node)) {
      checkMapKeys(node.items, at, diagnostics);
      for (const pair of node.items) {
        walk(pair.key);
        walk(pair.value);
      }
    }
  };
  walk(doc.contents);
  return diagnostics;
}

function checkMapKeys(pairs: readonly Pair[], at: (offset: number) => SourceLocation, diagnostics: Diagnostic[]): void {
  const { isScalar } = yaml();
  const seen = new Map<string, number>();
  for (const pair of pairs) {
    if (!isScalar(pair.key)) {
      // A complex key (`? [a, b]`, `? {a: 1}`): no manifest field is one, and JavaScript objects
      // cannot hold it (yaml would stringify it, with a warning on stderr). A diagnostic instead.
      const range = (pair.key as { range?: [number, number, number] } | null)?.range;
      if (range)
        diagnostics.push({
          location: at(range[0]),
          path: '',
          message:
            'a mapping key must be a plain name, not a list or mapping (a complex key `? …`); write the field name as a plain key',
        });
      continue;
    }
    if (!pair.key.range) continue;
    const key = String(pair.key.value);
    const offset = pair.key.range[0];
    if (FORBIDDEN_KEYS.has(key)) {
      diagnostics.push({
        location: at(offset),
        path: '',
        message: `key ${JSON.stringify(key)} is not allowed (it could alter object prototypes in programs that read the manifest); remove it`,
      });
    }
    const first = seen.get(key);
    if (first !== undefined) {
      const f = at(first);
      diagnostics.push({
        location: at(offset),
        path: '',
        message: `duplicate key ${JSON.stringify(key)} in one mapping (first at line ${f.line}, column ${f.column}); each key may appear only once`,
      });
    } else seen.set(key, offset);
  }
}

/** toJS threw: an alias bomb or an alias without its anchor. Points at the first alias. */
function describeAliasFailure(doc: Document, err: unknown, at: (offset: number) => SourceLocation): Diagnostic {
  const { visit } = yaml();
  let firstAlias: number | undefined;
  let aliasCount = 0;
  visit(doc, {
    Alias(_, alias) {
      aliasCount++;
      firstAlias ??= alias.range?.[0];
    },
  });
  const location = at(firstAlias ?? doc.contents?.range?.[0] ?? 0);
  const text = err instanceof Error ? err.message : String(err);
  if (/excessive alias count/i.test(text)) {
    return {
      location,
      path: '',
      message: `YAML aliases expand too much: the document's ${countNoun(aliasCount, 'alias', 'aliases')} expand past the limit of ${MAX_ALIAS_COUNT} alias expansions (an "alias bomb"); write the values out instead of using aliases`,
    };
  }
  const unresolved = /Unresolved alias.*?: (.*)$/.exec(text);
  if (unresolved) {
    return {
      location,
      path: '',
      message: `alias *${unresolved[1]} has no anchor &${unresolved[1]} before it; define the anchor first or write the value out`,
    };
  }
  return { location, path: '', message: `YAML error: ${text}` };
}
