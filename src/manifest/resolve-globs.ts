/**
 * What the resolver checks of `ignore` and `protect` globs against what the manifests declare
 * (DESIGN.md §4): a declared resource an ignore glob matches is a contradiction (an error); a
 * glob that matches only through an old name a `renamedFrom` line gives is a warning. Pure.
 */
import { compileAddressGlob } from '../model/address.js';
import type { Diagnostic } from '../model/errors.js';
import { renameLinesOf } from '../model/rename-lines.js';
import type { DesiredResource, SourceLocation } from '../model/resources.js';
import { formatLocation } from './diagnostics.js';

/** The globs of the settings, each with where it was written. */
export interface Globs {
  ignore: ReadonlyMap<string, SourceLocation>;
  protect: ReadonlyMap<string, SourceLocation>;
}

/** A resource both declared and ignored is a contradiction: ignore means "never touch". */
export function ignoredDeclarations(
  ignore: ReadonlyMap<string, SourceLocation>,
  resources: readonly DesiredResource[],
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  if (ignore.size === 0) return diagnostics;
  const globs = [...ignore].map(([glob, location]) => ({ glob, location, re: compileAddressGlob(glob) }));
  for (const resource of resources) {
    const hit = globs.find((g) => g.re.test(resource.address));
    if (hit) {
      diagnostics.push({
        location: resource.source,
        path: '',
        message: `${resource.address} is declared here but matches ignore glob ${JSON.stringify(hit.glob)} at ${formatLocation(hit.location)}, which leaves it alone entirely; remove the declaration or narrow the glob`,
      });
    }
  }
  return diagnostics;
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
