/**
 * Manifests → DesiredState (DESIGN.md §3): read files, parse YAML with positions, check the
 * schema, check and resolve meaning, and report every problem at once. Never touches the network.
 */
import { DESCRIPTORS } from '../model/kinds.js';
import { ManifestError, type Diagnostic } from '../model/errors.js';
import type { DesiredState } from '../model/resources.js';
import { fileDiagnostic, sortDiagnostics } from './diagnostics.js';
import {
  DEFAULT_MAX_FILE_BYTES,
  parseManifestText,
  type ManifestDocument,
  type YamlReader,
} from './parse-documents.js';
import { listManifestFiles, readManifestFiles } from './read-files.js';
import { resolveDesiredState } from './resolve.js';
import { MANIFEST_API_VERSION, checkDocumentSchema, hasForeignApiVersion } from './schema.js';

export { DEFAULT_MAX_FILE_BYTES, MAX_ALIAS_COUNT } from './parse-documents.js';
export { MANIFEST_API_VERSION, findManifestSchemaPath, readManifestSchema } from './schema.js';

/** Largest manifest set read by default: all files together (DESIGN.md §8). */
export const DEFAULT_MAX_TOTAL_BYTES = 64 * 1024 * 1024;

export interface LoadOptions {
  /** Largest manifest file accepted, in bytes (default 1 MiB). */
  maxFileBytes?: number;
  /** Largest manifest set accepted, all files together, in bytes (default 64 MiB). */
  maxTotalBytes?: number;
  /** How YAML is read (parse-documents.ts); the results are the same either way. Default 'fast'. */
  yamlReader?: YamlReader;
  /** Capabilities live roles hold beyond the service's catalog: accepted in roles (ResolveOptions). */
  knownCapabilities?: ReadonlySet<string>;
}

/** What validation found: a state only when there is no diagnostic. */
export interface ValidationResult {
  state?: DesiredState;
  /** Every problem, sorted by file (in `files` order), line and column. */
  diagnostics: Diagnostic[];
  /** What does not stop the manifests but a reader should fix (validate prints them). */
  warnings?: Diagnostic[];
}

/**
 * Validates in-memory documents `{file, text}` (file is the name shown in messages) and resolves
 * them into a DesiredState. Pure: no file system, no network.
 */
export function validateManifestTexts(
  docs: { file: string; text: string }[],
  options: LoadOptions = {},
): ValidationResult {
  const files = [...new Set(docs.map((d) => d.file))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const rank = new Map(files.map((f, i) => [f, i]));
  const ordered = [...docs].sort((a, b) => rank.get(a.file)! - rank.get(b.file)!);
  return checkTexts(ordered, files, [], options);
}

/** Reads files and directories, validates everything and resolves; never throws for bad input. */
export async function validateManifests(
  paths: string[],
  options: LoadOptions = {},
): Promise<ValidationResult & { files: string[] }> {
  const listed = await listManifestFiles(paths);
  const read = await readManifestFiles(
    listed,
    options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    options.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES,
  );
  const result = checkTexts(read.texts, listed.files, [...listed.diagnostics, ...read.diagnostics], options);
  return { ...result, files: listed.files };
}

/** Like validateManifests, but throws a ManifestError carrying every diagnostic. */
export async function loadManifests(paths: string[], options: LoadOptions = {}): Promise<DesiredState> {
  const { state, diagnostics } = await validateManifests(paths, options);
  if (!state || diagnostics.length > 0) throw new ManifestError(diagnostics);
  return state;
}

const MANIFEST_FILE = /\.ya?ml$/i;
/** Text that at least tries to be a manifest; a file without it is never quoted in an error. */
const MANIFEST_MARK = /platform-sync\//;
/** Messages that quote nothing of a file, kept as they are for a file that is no manifest. */
const UNQUOTING =
  /^(missing apiVersion|empty file|empty document|the document must be a mapping with apiVersion and org, got (a list|a mapping|nothing))/;

/** The first problem of a file that holds no manifest, said without quoting any of the file. */
function unquotedDiagnostic(first: Diagnostic): Diagnostic {
  if (UNQUOTING.test(first.message)) return first;
  const what = first.message.startsWith('YAML')
    ? 'YAML syntax error'
    : first.message.startsWith('the document must be a mapping')
      ? 'the document is not a mapping'
      : 'not a manifest';
  return {
    ...first,
    path: '',
    message: `${what}: the file holds no "apiVersion: ${MANIFEST_API_VERSION}" document, so none of its content is quoted; is it a manifest?`,
  };
}

/** Parsed without problems into documents that all have an apiVersion (of any version: that one is reported). */
function looksLikeManifest(parsed: { documents: ManifestDocument[]; diagnostics: Diagnostic[] }): boolean {
  if (parsed.diagnostics.length > 0 || parsed.documents.length === 0) return false;
  return parsed.documents.every(
    (d) =>
      d.value !== null && typeof d.value === 'object' && !Array.isArray(d.value) && 'apiVersion' in (d.value as object),
  );
}

function checkTexts(
  texts: readonly { file: string; text: string }[],
  files: string[],
  earlier: Diagnostic[],
  options: LoadOptions,
): ValidationResult {
  const diagnostics = [...earlier];
  const documents: ManifestDocument[] = [];
  let complete = earlier.length === 0;
  for (const { file, text } of texts) {
    const parsed = parseManifestText(file, text, options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES, options.yamlReader);
    if (!MANIFEST_FILE.test(file) && !looksLikeManifest(parsed)) {
      // A file named on the command line that is no manifest (`validate README.md`): one line
      // saying so, not every YAML error its prose makes.
      diagnostics.push(
        fileDiagnostic(
          file,
          'not a manifest: expected a YAML file (.yaml/.yml) whose documents have "apiVersion: platform-sync/v1" and "org"',
        ),
      );
      complete = false;
      continue;
    }
    if (!MANIFEST_MARK.test(text)) {
      // Not even an attempt at a manifest (a link to .git/config, a credentials file, /proc/…):
      // one line, and nothing of its content (DESIGN.md §8 rev 4).
      const found = [...parsed.diagnostics, ...parsed.documents.flatMap((doc) => checkDocumentSchema(doc))];
      if (found.length > 0 || parsed.documents.length > 0) {
        diagnostics.push(unquotedDiagnostic(found[0] ?? fileDiagnostic(file, '')));
        complete = false;
        continue;
      }
    }
    diagnostics.push(...parsed.diagnostics);
    complete &&= parsed.complete;
    for (const doc of parsed.documents) {
      nullListsAsEmpty(doc.value);
      diagnostics.push(...checkDocumentSchema(doc));
      if (hasForeignApiVersion(doc.value)) complete = false;
      else documents.push(doc);
    }
  }
  if (documents.length === 0 && diagnostics.length === 0) {
    diagnostics.push({
      location: { file: files[0] ?? '(no files)', line: 1, column: 1 },
      path: '',
      message: 'no manifest documents found; expected at least one document with apiVersion and org',
    });
  }
  const resolved = resolveDesiredState(documents, {
    files,
    complete,
    ...(options.knownCapabilities ? { knownCapabilities: options.knownCapabilities } : {}),
  });
  diagnostics.push(...resolved.diagnostics);
  if (diagnostics.length > 0) return { diagnostics: sortDiagnostics(diagnostics, files) };
  return {
    state: resolved.state!,
    diagnostics: [],
    ...(resolved.warnings?.length ? { warnings: sortDiagnostics(resolved.warnings, files) } : {}),
  };
}

/** Every list key of the manifest format: each kind's list, and the settings' globs. */
const LIST_KEYS: ReadonlySet<string> = new Set([
  ...DESCRIPTORS.flatMap((d) => (d.manifest ? [d.manifest.listKey] : [])),
  'ignore',
  'protect',
]);

/**
 * `identities:` left with nothing after its last item was deleted is YAML null: it means an
 * empty list, as a reader of the file would take it (not "must be a list, got nothing").
 */
export function nullListsAsEmpty(value: unknown): void {
  // Indexed: it walks every node of every document once, before V8 optimises it (a for…of
  // allocates then; docs/performance.md, issue 61 allocation).
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) nullListsAsEmpty(value[i]);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as Record<string, unknown>;
  // for…in over own keys, not Object.keys: no array of keys per node (the same keys, in order).
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const v = object[key];
    if (v === null && LIST_KEYS.has(key)) object[key] = [];
    else if (v !== null && typeof v === 'object') nullListsAsEmpty(v);
  }
}
