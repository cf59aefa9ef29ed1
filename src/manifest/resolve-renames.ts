/**
 * `renamedFrom` claims of the manifests (DESIGN.md §3): an old name must be another name, and no
 * two siblings of one kind may claim the same old name. Pure (the resolver's, resolve.ts).
 */
import { declaringGroupPath, descriptorOf } from '../model/kinds.js';
import type { DesiredResource, SourceLocation } from '../model/resources.js';
import { formatLocation } from './diagnostics.js';
import type { Site } from './resolve-tables.js';

export class RenameClaims {
  /** Claims by kind, parent and old name. */
  private readonly renames = new Map<string, { address: string; what: string; location: SourceLocation }>();

  constructor(
    private readonly report: (site: Site, message: string) => void,
    private readonly groupLabel: (path: string) => string,
  ) {}

  /**
   * `renamedFrom` must name another name, and no two siblings of one kind may claim the same old
   * name (the plan could not tell which one the live resource becomes). False when reported.
   */
  check(site: Site, resource: DesiredResource, renamedFrom: string): boolean {
    const name = (resource.fields as { name?: string }).name ?? '';
    const what = `${descriptorOf(resource.kind).describe(name)} in ${this.groupLabel(declaringGroupPath(resource))}`;
    if (renamedFrom === name) {
      this.report(
        site,
        `renamedFrom ${JSON.stringify(renamedFrom)} of ${what} is its own name; expected the previous name, or remove renamedFrom`,
      );
      return false;
    }
    const parent = declaringGroupPath(resource);
    const key = `${resource.kind}\u0000${parent}\u0000${renamedFrom}`;
    const earlier = this.renames.get(key);
    if (earlier && earlier.address !== resource.address) {
      this.report(
        site,
        `${what} and ${earlier.what} (at ${formatLocation(earlier.location)}) are both renamedFrom ${JSON.stringify(renamedFrom)}; expected one ${resource.kind} to take over the old name`,
      );
      return false;
    }
    this.renames.set(key, { address: resource.address, what, location: site.doc.locate(site.pointer) });
    return true;
  }
}
