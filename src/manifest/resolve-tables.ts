/**
 * The resolver's tables and how it reads documents defensively: where something was written (a
 * site), what it has recorded of each group, and values read without trusting their type. Pure.
 */
import type { Pointer } from './diagnostics.js';
import type { ManifestDocument } from './parse-documents.js';
import type { ParentPlace } from '../model/kind-descriptor.js';
import type { DesiredResource, SourceLocation } from '../model/resources.js';
import { findMisspeltKey } from '../util/suggest.js';
import { readDefinitionFields } from './schema.js';

/** Where something was written: a document and a path inside it. */
export interface Site {
  doc: ManifestDocument;
  pointer: Pointer;
}

/**
 * The site `steps` inside `site`. Its pointer is made by `concat`, which allocates it at its
 * length: an array literal with a spread keeps room to grow (≈230 bytes instead of ≈100 for a
 * pointer of five), and a resource's location keeps its pointer (≈15 MB at 100,000 resources).
 */
export function siteAt(site: Site, ...steps: (string | number)[]): Site {
  return { doc: site.doc, pointer: site.pointer.concat(steps) };
}

/** `siteAt(site, key, index)` without the array of steps: the site of each item of every list. */
export function itemSiteAt(site: Site, key: string, index: number): Site {
  return { doc: site.doc, pointer: site.pointer.concat(key, index) };
}

export interface ScalarRecord {
  value: unknown;
  location: SourceLocation;
}

export interface GroupRecord {
  resource: DesiredResource & { kind: 'group' };
  /** Where the group's resources sit (their descriptors' `address` reads it): one per group, not per resource. */
  place: ParentPlace;
  /** Scalars set so far (description; uid for the org), for "set twice differently". */
  scalars: Map<string, ScalarRecord>;
  /** Documents that described this group, to refuse a group twice in one document. */
  documents: Map<ManifestDocument, SourceLocation>;
  /** Whether `resource.source` is a place that sets a scalar of the group (its "main" declaration). */
  sourceSetsScalars: boolean;
}

export interface PendingBinding {
  site: Site;
  groupPath: string;
  value: Record<string, unknown>;
}

export type Obj = Record<string, unknown>;

/** What references resolve against: the declared resources of one referenceable kind. */
export interface ReferenceIndex {
  paths: Set<string>;
  namesByGroup: Map<string, string[]>;
  pathsByName: Map<string, string[]>;
}

/**
 * The key that holds `field` in `obj`: the field itself, or when it is absent, a key misspelt
 * for it ("nmae", "identites"). The schema reports the typo once, with its "did you mean"; the
 * checks here then judge what was meant instead of echoing the typo as a missing name or an
 * unknown reference. `definition` names the schema definition whose fields are the known keys.
 */
export function fieldKey(obj: Obj, field: string, definition: string): string {
  if (obj[field] !== undefined) return field;
  return findMisspeltKey(obj, field, readDefinitionFields(definition)) ?? field;
}

export function asObject(v: unknown): Obj | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}
export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * True when `name` can be one segment of a group path. Any other name is the schema's to report,
 * and is not read as a path: a group "x/y" would sit beneath an undeclared "x", and an identity
 * "eng/ci" of the org would take the address of identity "ci" of group "eng".
 */
export function isSegment(name: string): boolean {
  return name !== '' && !name.includes('/');
}
