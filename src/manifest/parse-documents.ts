/**
 * The YAML layer: text → documents with source positions, or diagnostics. Everything here is
 * about YAML itself (syntax, tabs, duplicate keys, aliases, dangerous keys, empty documents);
 * what the documents mean is checked later by the schema and the resolver. Pure.
 */
import type { Document, Pair, YAMLError } from 'yaml';
import { readPlainYaml } from './fast-yaml.js';
import type { PlainLines } from './plain-shape.js';
import { PlainPositions } from './plain-positions.js';
import { findOffset, yaml } from './yaml-positions.js';
import type { Diagnostic } from '../model/errors.js';
import type { SourceLocation } from '../model/resources.js';
import { countNoun, fileDiagnostic, formatPointer, type Pointer } from './diagnostics.js';

/** Default limit on one manifest file (1 MiB): manifests are small, a huge file is a mistake or an attack. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
/**
 * Alias expansions allowed while building one document's value. Honest manifests rarely use
 * aliases at all; a "billion laughs" document needs thousands.
 */
export const MAX_ALIAS_COUNT = 100;
/**
 * Mappings and lists one inside another that a document may hold. A group nested in another
 * takes two levels (its parent's `groups` list and its own mapping), so this allows groups some
 * 45 deep; a deeper document is an error, not a stack overflow in the checks that walk it.
 */
export const MAX_NESTING_DEPTH = 100;
const TOO_DEEP = `nested too deeply: more than ${MAX_NESTING_DEPTH} mappings and lists one inside another (a group inside another takes two); expected a shallower tree of groups`;
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
export function parseManifestText(file: string, text: string, maxFileBytes = DEFAULT_MAX_FILE_BYTES, reader: YamlReader = 'fast'): ParsedFile {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxFileBytes) return { documents: [], diagnostics: [fileDiagnostic(file, formatOversizeMessage(bytes, maxFileBytes))], complete: false };

  const at = locator(file, text);
  const lines: PlainLines = { content: [], indent: [], number: [], docFirst: [] };
  const values = reader === 'fast' ? readPlainYaml(text, FORBIDDEN_KEYS, MAX_NESTING_DEPTH, lines) : undefined;
  if (values !== undefined) {
    // Positions are found from the lines (plain-positions.ts) where that is certain, else they
    // are the `yaml` reader's, read when the first such one is asked for.
    const plain = new PlainPositions(file, text, lines);
    const positions = new DeferredPositions(file, text, at);
    const documents = values.map((value, index): ManifestDocument => ({
      file,
      index,
      value,
      locate: (pointer, target = 'value') => plain.locate(index, pointer, target) ?? deferredLocation(positions, index, pointer, target),
    }));
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
 * with getters makes two closures per location, ≈50 MiB more at 100,000 resources).
 */
const DEFERRED_ACCESSORS: PropertyDescriptorMap = {
  line: {
    enumerable: true,
    get(this: object) {
      return foundLocation(this).line;
    },
  },
  column: {
    enumerable: true,
    get(this: object) {
      return foundLocation(this).column;
    },
  },
};

/**
 * A source location in a file read fast, whose line and column are found on first use: a plain
 * object whose `line` and `column` are getters, so it reads, spreads, compares and serializes as
 * a plain location.
 */
function deferredLocation(positions: DeferredPositions, index: number, pointer: Pointer, target: 'key' | 'value'): SourceLocation {
  const location = { file: positions.file };
  Object.defineProperty(location, DEFERRED, { value: { positions, index, pointer, target } satisfies Deferred });
  return Object.defineProperties(location, DEFERRED_ACCESSORS) as SourceLocation;
}

/** Reads a file with the `yaml` package: its documents with positions, or its diagnostics. */
function readWithYaml(file: string, text: string, at: (offset: number) => SourceLocation): ParsedFile {
  // Duplicate keys are found by checkMappings (it can name the first occurrence), so yaml's own check is off.
  const yamlDocs = yaml().parseAllDocuments(text, { prettyErrors: false, uniqueKeys: false });
  if (yamlDocs.length === 0) {
    return { documents: [], diagnostics: [fileDiagnostic(file, `empty file (no YAML document); ${EXPECTED_DOCUMENT}`)], complete: true };
  }

  const documents: ManifestDocument[] = [];
  const diagnostics: Diagnostic[] = [];
  let complete = true;
  yamlDocs.forEach((doc, index) => {
    const problems = [...doc.errors, ...doc.warnings];
    // A tab in indentation derails the parser: the errors that follow it are its echoes.
    const tabs = problems.filter((p) => p.code === 'TAB_AS_INDENT');
    diagnostics.push(...keepOnePerLocation((tabs.length > 0 ? tabs : problems).map((problem) => describeYamlProblem(problem, text, at))));
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
      const what = yamlDocs.length === 1 ? 'empty file (its only document is empty)' : `empty document (document ${index + 1} of ${yamlDocs.length})`;
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

/** Rewrites yaml's problem codes as messages that say what was expected. */
function describeYamlProblem(problem: YAMLError, text: string, at: (offset: number) => SourceLocation): Diagnostic {
  const location = at(problem.pos[0]);
  switch (problem.code) {
    case 'TAB_AS_INDENT':
      return { location, path: '', message: 'tab character in indentation; YAML indentation must use spaces only' };
    case 'MULTILINE_IMPLICIT_KEY': {
      const line = text.split(/\r?\n/)[location.line - 1] ?? '';
      if (!line.includes(':')) {
        return { location, path: '', message: 'YAML syntax error: expected "key: value", but this line has no ":" (a key needs ": " before its value)' };
      }
      return describeIndentation(problem, text, at) ?? describeYamlSyntax(problem, location);
    }
    case 'BAD_INDENT':
    case 'BLOCK_AS_IMPLICIT_KEY':
      return describeIndentation(problem, text, at) ?? describeYamlSyntax(problem, location);
    case 'MISSING_CHAR': {
      if (/without - indicator/.test(problem.message)) return describeIndentation(problem, text, at) ?? describeYamlSyntax(problem, location);
      // yaml reports an unclosed quote where the file ends; the mistake is where the string opens.
      const quote = /Missing closing (["'])quote/.exec(problem.message)?.[1];
      const opening = quote === undefined ? -1 : text.lastIndexOf(quote, problem.pos[0] - 1);
      if (opening >= 0) {
        return { location: at(opening), path: '', message: `YAML syntax error: the quoted string that starts here has no closing ${quote}; close it on the line where it ends` };
      }
      return describeYamlSyntax(problem, location);
    }
    case 'TAG_RESOLVE_FAILED':
      return { location, path: '', message: `unknown YAML tag ${JSON.stringify(text.slice(problem.pos[0], problem.pos[1]))}; manifests use plain strings, numbers, booleans, lists and mappings` };
    default:
      return describeYamlSyntax(problem, location);
  }
}

/**
 * One indentation mistake trips several of yaml's checks at one place ("implicit keys…",
 * "nested mappings…"): where a message names the indentation, it is the only one kept for that
 * place. Other messages at one place (an unclosed "{" and an unclosed "[") all stay.
 */
function keepOnePerLocation(diagnostics: Diagnostic[]): Diagnostic[] {
  const place = (d: Diagnostic) => `${d.location.line}:${d.location.column}`;
  const indentation = new Map<string, Diagnostic>();
  for (const d of diagnostics) if (d.message.startsWith(BAD_INDENTATION) && !indentation.has(place(d))) indentation.set(place(d), d);
  return diagnostics.filter((d) => (indentation.get(place(d)) ?? d) === d);
}

const BAD_INDENTATION = 'bad indentation:';

/** yaml's own sentence: with prettyErrors off, it is one plain sentence that says what was expected. */
function yamlSentence(problem: YAMLError): string {
  return problem.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
}

function describeYamlSyntax(problem: YAMLError, location: SourceLocation): Diagnostic {
  // Nesting so deep that the parser itself ran out of stack (`[[[[…` thousands of times).
  if (problem.message.includes('Maximum call stack size exceeded')) return { location, path: '', message: TOO_DEEP };
  return { location, path: '', message: `YAML syntax error: ${yamlSentence(problem)}` };
}

/**
 * A line indented more or less than the key above it derails yaml into messages about implicit
 * keys and missing "-" indicators, reported at the key above or at column 1. Points instead at
 * the first character of the misindented line and says which column the key above starts at;
 * undefined when the lines do not show an indentation mistake.
 */
function describeIndentation(problem: YAMLError, text: string, at: (offset: number) => SourceLocation): Diagnostic | undefined {
  const lines = text.split(/\r?\n/);
  const reported = at(problem.pos[0]);
  const isContent = (i: number) => lines[i] !== undefined && !/^\s*(#.*)?$/.test(lines[i]!);
  const indentOf = (i: number) => lines[i]!.search(/\S/) + 1;
  // Reported inside a line (at the value after "key: "), the mistake is on the next line: it is
  // indented so that yaml reads it as a continuation of that value. Else it is the line itself.
  let line = reported.line - 1;
  if (reported.column > indentOf(line)) line++;
  while (line < lines.length && !isContent(line)) line++;
  let above = line - 1;
  while (above >= 0 && !isContent(above)) above--;
  if (!isContent(line) || above < 0) return undefined;

  const column = indentOf(line);
  const location = { file: reported.file, line: line + 1, column };
  const yaml = ` (YAML: ${yamlSentence(problem)})`;
  const itemAbove = /^[ ]*-[ ]/.test(lines[above]!);
  if (lines[line]!.trimStart().startsWith('- ') && itemAbove && column !== indentOf(above)) {
    return {
      location,
      path: '',
      message: `${BAD_INDENTATION} this list item starts at column ${column}, but the item above it starts at column ${indentOf(above)}; items of one list must start at the same column${yaml}`,
    };
  }
  // The key of the line above starts after its indentation and any "- " item markers.
  const keyAbove = /^[ ]*(?:-[ ]+)*/.exec(lines[above]!)![0].length + 1;
  const opensBlock = /:[ ]*(#.*)?$/.test(lines[above]!);
  if (column === keyAbove || (column > keyAbove && opensBlock)) return undefined;
  if (column > keyAbove) {
    return {
      location,
      path: '',
      message: `${BAD_INDENTATION} this line starts at column ${column}, deeper than the key above it (column ${keyAbove}), so it cannot start a new key there; align it with the key above, or write the key above with nothing after its ":" to nest under it${yaml}`,
    };
  }
  return {
    location,
    path: '',
    message: `${BAD_INDENTATION} this line starts at column ${column}, but the key above it starts at column ${keyAbove}; keys of one mapping must start at the same column, and a new list item starts with "- "${yaml}`,
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
      if (range) diagnostics.push({ location: at(range[0]), path: '', message: 'a mapping key must be a plain name, not a list or mapping (a complex key `? …`); write the field name as a plain key' });
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
    return { location, path: '', message: `alias *${unresolved[1]} has no anchor &${unresolved[1]} before it; define the anchor first or write the value out` };
  }
  return { location, path: '', message: `YAML error: ${text}` };
}
