/**
 * The JSON Schema of one manifest document (schemas/manifest.schema.json), compiled once with
 * ajv, and the translation of ajv's errors into messages a user understands, placed on the
 * YAML node they are about.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { readPackageText } from '../io/read-file.js';
import { NAME_PATTERN_SOURCE } from '../model/vocabulary.js';
import { join } from 'node:path';
import { findPackageFile } from '../io/package-file.js';
import { DESCRIPTORS } from '../model/kinds.js';
import type { Diagnostic } from '../model/errors.js';
import { FORBIDDEN_KEYS, type ManifestDocument } from './parse-documents.js';
import { parsePointer } from './diagnostics.js';
import { didYouMean, findMisspeltKey, formatList } from '../util/suggest.js';
import { validate as precompiledValidator } from './schema-validator.js';

export const MANIFEST_API_VERSION = 'platform-sync/v1';
const SCHEMA_RELATIVE_PATH = join('schemas', 'manifest.schema.json');

/** Manifest list field → what one item of it is called in messages. */
const LIST_ITEM_NAMES: Readonly<Record<string, string>> = Object.fromEntries([
  ...DESCRIPTORS.flatMap((d) => (d.manifest ? [[d.manifest.listKey, d.manifest.itemNoun]] : [])),
  // A members line is no kind of its own: it stands for a binding or an invite.
  ['members', 'member'],
]);

/** Path of schemas/manifest.schema.json in this package. */
export function findManifestSchemaPath(): string {
  return findPackageFile(SCHEMA_RELATIVE_PATH);
}

let schemaCache: Record<string, unknown> | undefined;

/** The manifest JSON Schema as an object (read once). */
export function readManifestSchema(): Record<string, unknown> {
  schemaCache ??= JSON.parse(readPackageText(findManifestSchemaPath())) as Record<string, unknown>;
  return schemaCache;
}

/**
 * The schema's validator, compiled ahead of time by generate-schemas.ts (ajv standalone
 * code, options allErrors and verbose): no compile cost at run time.
 */
const validateDocument = precompiledValidator as unknown as ValidateFunction;

/**
 * True when a document names an apiVersion other than ours: it follows other rules, so only
 * that is reported and the document takes no part in resolution.
 */
export function hasForeignApiVersion(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const version = (value as Record<string, unknown>).apiVersion;
  return version !== undefined && version !== MANIFEST_API_VERSION;
}

/** Checks one document against the schema; returns every problem, translated and located. */
export function checkDocumentSchema(doc: ManifestDocument): Diagnostic[] {
  if (validateDocument(doc.value)) return [];
  const errors = validateDocument.errors ?? [];
  // A foreign apiVersion means the rest of the document follows other rules: report only that.
  const version = errors.find((e) => e.instancePath === '/apiVersion');
  const relevant = version ? [version] : errors;
  const diagnostics: Diagnostic[] = [];
  for (const error of relevant) {
    const d = describeSchemaError(doc, error);
    if (d) diagnostics.push(d);
  }
  return diagnostics;
}

function describeSchemaError(doc: ManifestDocument, error: ErrorObject): Diagnostic | undefined {
  // The "exactly one of identity/identityUid, role/roleUid" combinators give unreadable ajv
  // errors; the resolver reports those cases itself (checkBindingReferences).
  if (/\/(anyOf|not|oneOf)(\/|$)/.test(error.schemaPath)) return undefined;
  const segments = parsePointer(error.instancePath);
  const place = (pointer: readonly string[], target: 'key' | 'value' = 'value'): Diagnostic['location'] =>
    doc.locate(pointer, target);
  const path = error.instancePath;
  const field = segments[segments.length - 1];
  const owner = describeObject(doc.value, segments.slice(0, -1));
  const label =
    field === undefined
      ? 'the document'
      : isIndex(field)
        ? `item ${Number(field) + 1} of ${segments[segments.length - 2]}`
        : `${field} of ${owner}`;
  const params = error.params as Record<string, unknown>;

  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      // "nmae: x" is one mistake: the unknown-field message already says "did you mean name".
      if (findMisspeltKey(error.data, missing, propertyNames(error.parentSchema))) return undefined;
      if (segments.length === 0 && missing === 'apiVersion') {
        return {
          location: place(segments),
          path,
          message: `missing apiVersion; expected "apiVersion: ${MANIFEST_API_VERSION}" at the top of the document`,
        };
      }
      const what = describeObject(doc.value, segments);
      const hint = propertyHint(error.parentSchema, missing);
      return {
        location: place(segments),
        path,
        message: `missing required field ${JSON.stringify(missing)} in ${what}${hint ? `; expected ${missing}: ${hint}` : ''}`,
      };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      if (FORBIDDEN_KEYS.has(extra)) return undefined; // already reported by the YAML layer
      const allowed = propertyNames(error.parentSchema);
      const what = describeObject(doc.value, segments);
      const note =
        extra === 'tags' && segments[segments.length - 2] === 'repos'
          ? '; tags are published by CI and never declared in manifests'
          : didYouMean(extra, allowed);
      return {
        location: place([...segments, extra], 'key'),
        path: `${path}/${extra}`,
        message: `unknown field ${JSON.stringify(extra)} in ${what}; expected ${allowed.length === 1 ? '' : 'one of '}${allowed.join(', ')}${note}`,
      };
    }
    case 'type': {
      const expected = describeType(params.type);
      if (segments.length === 0) {
        return {
          location: place(segments),
          path,
          message: `the document must be a mapping with apiVersion and org, got ${describeValue(error.data)}`,
        };
      }
      return {
        location: place(segments),
        path,
        message: `${label} must be ${expected}, got ${describeValue(error.data)}${suggestTypeFix(error.parentSchema, error.data)}`,
      };
    }
    case 'const':
      return {
        location: place(segments),
        path,
        message: `unsupported ${field} ${JSON.stringify(error.data)}; expected ${JSON.stringify(error.schema)}`,
      };
    case 'enum': {
      const allowed = (error.schema as unknown[]).map(String);
      const value = String(error.data);
      const what =
        segments[segments.length - 2] === 'capabilities'
          ? `capability ${JSON.stringify(value)} in ${describeObject(doc.value, segments.slice(0, -2))}`
          : `value ${JSON.stringify(value)} for ${label}`;
      return {
        location: place(segments),
        path,
        message: `unknown ${what}; expected one of ${formatList(allowed, allowed.length)}${didYouMean(value, allowed)}`,
      };
    }
    case 'pattern': {
      // A bad name is the owner's only name: "for identity" reads better than repeating it.
      const what = field === 'name' ? describeObject(doc.value, segments.slice(0, -1), false) : owner;
      return {
        location: place(segments),
        path,
        message: describePatternError(field ?? '', what, error.data, error.parentSchema),
      };
    }
    case 'minItems':
      if (field === 'capabilities') {
        return {
          location: place(segments),
          path,
          message: `${owner} has no capabilities; expected at least one, e.g. [repo.list]`,
        };
      }
      return {
        location: place(segments),
        path,
        message: `${label} must have at least ${String(params.limit)} item(s)`,
      };
    case 'uniqueItems': {
      const later = Math.max(Number(params.i), Number(params.j));
      return {
        location: place([...segments, String(later)]),
        path: `${path}/${later}`,
        message: `${JSON.stringify((error.data as unknown[])[later])} is listed twice in ${label}; list each value once`,
      };
    }
    case 'minLength':
      return { location: place(segments), path, message: `${label} must not be empty` };
    default:
      return { location: place(segments), path, message: `${label} ${error.message ?? 'is invalid'}` };
  }
}

/** "repo \"nginx\"", "group \"platform\"", "org \"acme\"", "settings", "claimMatch of identity \"x\"". */
function describeObject(root: unknown, segments: readonly string[], withName = true): string {
  if (segments.length === 0) return 'the document';
  const last = segments[segments.length - 1]!;
  const parent = segments[segments.length - 2];
  const node = valueAt(root, segments);
  const named = (kind: string) => {
    const name = typeof node === 'object' && node !== null ? (node as Record<string, unknown>).name : undefined;
    return typeof name === 'string' && withName ? `${kind} ${JSON.stringify(name)}` : kind;
  };
  if (isIndex(last) && parent !== undefined && LIST_ITEM_NAMES[parent]) {
    const kind = LIST_ITEM_NAMES[parent]!;
    const name = (node as Record<string, unknown> | undefined)?.name;
    // Items without a usable name (keyed otherwise, or a name that is missing or wrong) go by position.
    if (typeof name !== 'string')
      return `${kind} ${Number(last) + 1} of ${describeObject(root, segments.slice(0, -2))}`;
    return named(kind);
  }
  if (last === 'org' && segments.length === 1) return named('org');
  if (last === 'settings' && segments.length === 1) return 'settings';
  if (last === 'prune' && parent === 'settings') return 'settings.prune';
  // Any other list's item goes by position: "item 2 of mappings of …", never a bare "1 of".
  if (isIndex(last)) return `item ${Number(last) + 1} of ${describeObject(root, segments.slice(0, -1))}`;
  return `${last} of ${describeObject(root, segments.slice(0, -1))}`;
}

function describePatternError(field: string, owner: string, data: unknown, fieldSchema?: unknown): string {
  const value = JSON.stringify(data);
  switch (field) {
    case 'name':
      return `invalid ${owner} name ${value}; expected lowercase letters, digits, spaces, ".", "_" and "-" only (${NAME_PATTERN_SOURCE})`;
    case 'sink':
      return `sink ${value} of ${owner} is not an https URL; expected "https://…" (events are only delivered over TLS)`;
    case 'uid':
      return `invalid uid ${value} for ${owner}; expected the root group's uid, 40 lowercase hex digits`;
    case 'identityUid':
      return `invalid identityUid ${value} in ${owner}; expected an identity uid: 40 lowercase hex digits, then "/" and 16 hex digits per level`;
    case 'roleUid':
      return `invalid roleUid ${value} in ${owner}; expected a role uid: 40 lowercase hex digits (built-in), or followed by "/" and 16 hex digits per level`;
    default: {
      // What the field is, from its own schema: "expected AWS account id: 12 digits, quoted".
      const described = (fieldSchema as { description?: unknown } | undefined)?.description;
      return `invalid ${field} ${value} for ${owner}${typeof described === 'string' ? `; expected ${lowerFirst(described.replace(/\.$/, ''))}` : ''}`;
    }
  }
}

/** The fix for the usual type slips: a quoted or YAML 1.1 boolean, one string where a list of strings belongs. */
function suggestTypeFix(schema: unknown, data: unknown): string {
  const { type, items } = (schema ?? {}) as { type?: unknown; items?: { type?: unknown } };
  const types = Array.isArray(type) ? type.map(String) : [String(type)];
  if (typeof data !== 'string') return '';
  const word = data.toLowerCase();
  if (types.includes('boolean') && ['true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n'].includes(word)) {
    const meant = ['true', 'yes', 'on', 'y'].includes(word);
    return `; write ${meant}, unquoted (in YAML 1.2, ${JSON.stringify(data)} is a string, not a boolean)`;
  }
  if (types.includes('array') && items?.type === 'string') return `; write it as a list: [${JSON.stringify(data)}]`;
  return '';
}

function propertyNames(schema: unknown): string[] {
  return Object.keys((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
}

const definitionFields = new Map<string, readonly string[]>();

/** Field names of one definition of the schema (`roleBinding` → identity, identityUid, …), read once. */
export function readDefinitionFields(definition: string): readonly string[] {
  let fields = definitionFields.get(definition);
  if (fields === undefined) {
    const defs = readManifestSchema().$defs as Record<string, unknown>;
    fields = Object.freeze(propertyNames(defs[definition]));
    definitionFields.set(definition, fields);
  }
  return fields;
}

function propertyHint(parentSchema: unknown, property: string): string | undefined {
  const properties = (
    parentSchema as { properties?: Record<string, { description?: string; $ref?: string }> } | undefined
  )?.properties;
  const description = properties?.[property]?.description;
  if (description) return lowerFirst(description.replace(/\.$/, ''));
  return undefined;
}

/** "The org" → "the org"; an acronym ("URL of…", "JWKS") keeps its capitals. */
function lowerFirst(s: string): string {
  return /^[A-Z][A-Z0-9]/.test(s) ? s : s.charAt(0).toLowerCase() + s.slice(1);
}

function describeType(type: unknown): string {
  const names: Record<string, string> = {
    string: 'a string',
    array: 'a list',
    object: 'a mapping',
    boolean: 'true or false',
    number: 'a number',
    integer: 'an integer',
    null: 'empty',
  };
  const types = Array.isArray(type) ? type : String(type).split(',');
  return types.map((t) => names[String(t)] ?? String(t)).join(' or ');
}

/** What a YAML value is, for "got …": `a number (42)`, `a list`, `a mapping`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (an empty value)';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
    case 'number':
      return `a number (${value})`;
    case 'boolean':
      return `a boolean (${value})`;
    default:
      return 'a mapping';
  }
}

function valueAt(root: unknown, segments: readonly string[]): unknown {
  let node = root;
  for (const s of segments) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = Array.isArray(node) ? node[Number(s)] : (node as Record<string, unknown>)[s];
  }
  return node;
}

function isIndex(segment: string): boolean {
  return /^\d+$/.test(segment);
}
