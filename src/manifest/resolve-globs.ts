/**
 * What the resolver checks of `ignore` and `protect` globs against what the manifests declare
 * (DESIGN.md §4): a declared resource an ignore glob matches is a contradiction (an error); a
 * glob that matches only through an old name a `renamedFrom` line gives is a warning. Pure.
 */
import { compileAddressGlob } from '../model/address.js';
import type { Diagnostic } from '../model/errors.js';
import { renameLinesOf } from '../model/rename-lines.js';
import type { DesiredResource, SourceLocation } from '../model/resources.js';
import { formatLocation, formatPointer } from './diagnostics.js';
import type { ManifestDocument } from './parse-documents.js';

/** The globs of the settings, each with where it was written. */
export interface Globs {
  ignore: ReadonlyMap<string, SourceLocation>;
  protect: ReadonlyMap<string, SourceLocation>;
}

/** A resource both declared and ignored is a contradiction: ignore means "never touch". */
export function ignoredDeclarations(
  ignore: ReadonlyMap<string, SourceLocation>,
  resources: readonly DesiredResource[],
  /** The documents read, to give the JSON path of a declaration reported (pathsOfDeclarations). */
  documents: readonly ManifestDocument[],
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (ignore.size === 0) return diagnostics;
  const globs = [...ignore].map(([glob, location]) => ({ glob, location, re: compileAddressGlob(glob) }));
  let pathOf: ((location: SourceLocation) => string) | undefined;
  for (const resource of resources) {
    const hit = globs.find((g) => g.re.test(resource.address));
    if (hit) {
      diagnostics.push({
        location: resource.source,
        path: (pathOf ??= pathsOfDeclarations(documents))(resource.source),
        message: `${resource.address} is declared here but matches ignore glob ${JSON.stringify(hit.glob)} at ${formatLocation(hit.location)}, which leaves it alone entirely; remove the declaration or narrow the glob`,
      });
    }
  }
  return diagnostics;
}

/**
 * The JSON path of the node of `documents` at a location (a resource's source), or ''. A resource
 * keeps only its location (a pointer each would cost megabytes at 100,000 resources): for the few
 * a message names, the path is found again among the nodes of the documents, located the same way.
 */
function pathsOfDeclarations(documents: readonly ManifestDocument[]): (location: SourceLocation) => string {
  const paths = new Map<string, string>();
  // Mappings and list items (a resource is one of them: `acceptedTerms` items are strings).
  const visit = (doc: ManifestDocument, value: unknown, pointer: (string | number)[], item: boolean): void => {
    const container = typeof value === 'object' && value !== null;
    if (!container && !item) return;
    const at = formatLocation(doc.locate(pointer));
    if (!paths.has(at)) paths.set(at, formatPointer(pointer));
    if (Array.isArray(value)) value.forEach((v, i) => visit(doc, v, [...pointer, i], true));
    else if (container) for (const [key, v] of Object.entries(value)) visit(doc, v, [...pointer, key], false);
  };
  for (const doc of documents) visit(doc, doc.value, [], false);
  return (location) => paths.get(formatLocation(location)) ?? '';
}

/**
 * Globs that match only through an old name a `renamedFrom` line gives (DESIGN.md §4 rev 4):
 * they hold while the line stays, and stop holding — silently — once it is dropped, so say so
 * now. A glob "names" an old path when its text after the kind starts with it and no group of
 * that path is declared.
 */
export function oldNameGlobWarnings(
  globs: Globs,
  resources: readonly DesiredResource[],
  groups: ReadonlyMap<string, unknown>,
): Diagnostic[] {
  if (globs.ignore.size === 0 && globs.protect.size === 0) return [];
  const lines = renameLinesOf({ resources });
  if (lines.groups.length === 0 && lines.items.size === 0) return [];
  const warnings: Diagnostic[] = [];
  for (const list of ['ignore', 'protect'] as const) {
    for (const [glob, location] of globs[list]) {
      const colon = glob.indexOf(':');
      const kind = glob.slice(0, colon + 1);
      const rest = glob.slice(colon + 1);
      const group = lines.groups.find(
        ({ oldPath }) =>
          (rest === oldPath || rest.startsWith(`${oldPath}/`) || rest.startsWith(`${oldPath}:`)) &&
          !groups.has(oldPath),
      );
      const item = [...lines.items].find(([, old]) => old === glob);
      if (!group && !item) continue;
      const [oldName, owner, updated] = group
        ? [
            group.oldPath,
            `group ${JSON.stringify(group.path)}`,
            `${kind}${group.path}${rest.slice(group.oldPath.length)}`,
          ]
        : [item![1], item![0], item![0]];
      warnings.push({
        location,
        path: '',
        message: `settings.${list} glob ${JSON.stringify(glob)} matches only through the old name ${JSON.stringify(oldName)} that renamedFrom gives ${owner}; it holds while that renamedFrom line stays: update it (to ${JSON.stringify(updated)}) before the line is removed`,
      });
    }
  }
  return warnings;
}
