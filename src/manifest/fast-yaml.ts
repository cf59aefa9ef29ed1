/**
 * The first, fast read of a manifest file: its values, and where each of its mappings and lists
 * starts, told by js-yaml as it reads them (collection-starts.ts); a key's or a scalar's position
 * is the `yaml` package's, found when something needs one (parse-documents.ts). A file is read
 * here only when it is in the plain shape manifests are written in, checked line by line first
 * (plain-shape.ts, block-structure.ts). Its values are read by js-yaml alone, whatever the style
 * (block or flow collections, block scalars, quoted scalars with escapes), through documented
 * options only (`schema`, `maxDepth`, `listener`); the shape check decides no value. Anything
 * the shape check does not take, and anything js-yaml refuses or that holds a prototype-altering
 * key however it is spelt (`"__pro\x74o__"`), gives undefined: the caller reads the file with
 * `yaml` alone, whose diagnostics explain what is wrong. What is
 * returned is exactly what `yaml` would give: the differential test (test/unit/fast-yaml.test.ts)
 * holds the readers to it over every fixture and thousands of generated and mutated manifests,
 * several documents and long keys among them.
 *
 * Why js-yaml 4 and not 5: 5 reads through an event list (parseEvents) that costs a fresh
 * process twice as much on a 10,000-resource org (≈110 ms against ≈45 ms, `npm run bench
 * plan-process`), and the `yaml` package's own lexer alone costs ≈160–250 ms there. js-yaml is
 * pinned: this module relies on what one version reads (the differential test says which).
 */
import { FAILSAFE_SCHEMA, Type, loadAll, type LoadOptions } from 'js-yaml';
import { isBlockStructure } from './block-structure.js';
import type { CollectionStarts } from './collection-starts.js';
import { plainShape, resolvePlain, type PlainLines } from './plain-shape.js';

/**
 * Plain scalars that are not strings (null, booleans, numbers), resolved by resolvePlain; one
 * implicit type, as what each becomes is all that is read here.
 */
const SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    new Type('tag:yaml.org,2002:core-plain', {
      kind: 'scalar',
      resolve: (s: string | null) => s !== null && s !== '' && typeof resolvePlain(s) !== 'string',
      construct: (s: string) => resolvePlain(s),
    }),
  ],
});

/**
 * js-yaml's own bound on nesting (its README, 4.3: `maxDepth`; @types/js-yaml 4.0.9 predates
 * it). It counts every node it opens, scalars too: set past ours, which the walk below applies;
 * a deeper document goes to `yaml` either way.
 */
interface LoadOptionsWithDepth extends LoadOptions {
  maxDepth: number;
}

/**
 * Reads a file's documents (each a mapping), or undefined when the file is not plain manifest
 * YAML (see above): then it is the `yaml` reader's. `starts`, when given, records where each
 * mapping and list starts as js-yaml reads it (collection-starts.ts).
 */
export function readPlainYaml(
  text: string,
  forbiddenKeys: ReadonlySet<string>,
  maxDepth: number,
  starts?: CollectionStarts,
): Record<string, unknown>[] | undefined {
  const lines: PlainLines = { content: [], indent: [], docFirst: [] };
  const documents = plainShape(text, lines);
  // A file with no document at all (empty, or only comments) is an error `yaml` reports.
  if (documents === undefined || documents === 0) return undefined;
  // Lines that are no block structure js-yaml may still take: `yaml` reads them, and says why.
  if (!isBlockStructure(text, lines)) return undefined;
  let values: unknown[];
  try {
    const options: LoadOptionsWithDepth = { schema: SCHEMA, maxDepth: 3 * maxDepth };
    if (starts !== undefined) options.listener = starts.listener;
    values = loadAll(text, null, options);
  } catch {
    return undefined;
  }
  if (values.length !== documents) return undefined;
  for (const value of values) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    if (!withinDepth(value, maxDepth - 1, forbiddenKeys)) return undefined;
  }
  return values as Record<string, unknown>[];
}

/**
 * Whether no mapping or list inside `node` (itself within the limit) is more than `levels`
 * below it, and no key of a mapping is in `forbidden`. Keys are judged as js-yaml read them, so
 * that an escape (`"\u005f_proto__"`) hides none; `yaml` then reports the key with its place.
 */
function withinDepth(node: object, levels: number, forbidden: ReadonlySet<string>): boolean {
  if (Array.isArray(node)) {
    for (const item of node)
      if (item !== null && typeof item === 'object' && (levels === 0 || !withinDepth(item, levels - 1, forbidden)))
        return false;
    return true;
  }
  for (const key in node) {
    if (forbidden.has(key)) return false;
    const item = (node as Record<string, unknown>)[key];
    if (item !== null && typeof item === 'object' && (levels === 0 || !withinDepth(item, levels - 1, forbidden)))
      return false;
  }
  return true;
}
