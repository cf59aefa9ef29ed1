/**
 * A live resource as a manifest writes it, as a `yaml` node to print into a file: the fields the
 * export writes (itemFields, writeBinding: one way to say a live resource as manifest text), in
 * the style of the export — short objects and sets on one line, markdown as a block literal, a
 * secret as a `{fromEnv: …}` reference with a comment, never a value (a secret the manifests
 * already declare kept as they write it); people as `members` lines.
 */
import { type Document, isScalar, type Node, type Scalar, type YAMLMap } from 'yaml';
import { flowWhenShort, itemFields, writeBinding } from '../export/written-items.js';
import type { RoleKey } from '../model/address.js';
import { referenceText } from '../model/address.js';
import type { KindDescriptor } from '../model/kind-descriptor.js';
import { descriptorOf, GROUP_KIND, IDENTITY_GRANT_KIND } from '../model/kinds.js';
import type { LiveResource } from '../model/resources.js';

/** The comment on an adopted secret reference: the value is never written (the API never returns it). */
const SECRET_COMMENT = ' the API never returns a secret: set this variable in the apply job only';

export function liveItemNode(doc: Document, r: LiveResource): Node {
  const descriptor = descriptorOf(r.kind) as KindDescriptor;
  if (r.kind === IDENTITY_GRANT_KIND) {
    const written = writeBinding(r.groupPath, r.fields.identity, r.fields.role);
    const map = doc.createNode(written.fields) as YAMLMap;
    for (const [key, comment] of Object.entries(written.comments)) {
      const node = map.get(key, true);
      if (isScalar(node)) node.comment = ` ${comment}`;
    }
    return map;
  }
  if (descriptor.manifest?.form === 'values')
    return doc.createNode(String(fieldValue(r, descriptor.keyField ?? 'name')));
  // An empty text the API answers for a field nobody set is left out: unmanaged, as it was made.
  const fields = Object.fromEntries(Object.entries(itemFields(descriptor, r)).filter(([, v]) => v !== ''));
  // A group's name comes first, as in every manifest; other kinds' key field is first already.
  const map = doc.createNode(r.kind === GROUP_KIND ? { name: fields.name, ...fields } : fields) as YAMLMap;
  styleItem(map, descriptor);
  return map;
}

/** A `members` line: `{email: …, role: …}` on one line, as the export writes it. */
export function memberNode(doc: Document, groupPath: string, email: string, role: RoleKey): Node {
  const map = doc.createNode({ email, role: referenceText(groupPath, role) }) as YAMLMap;
  map.flow = true;
  return map;
}

/**
 * A secret of a resource changed by hand stays as the manifest declares it, in whatever form
 * (`{fromFile}`, `{fromEnv}`), or absent: the API never returns a secret, so live cannot differ,
 * and only an item adopt adds gets a `{fromEnv}` reference (liveItemNode).
 */
export function keepDeclaredSecrets(descriptor: KindDescriptor, map: YAMLMap, written: Record<string, unknown>): void {
  for (const path of descriptor.secretPaths ?? []) {
    const parts = path.split('.');
    const last = parts.pop()!;
    const holder = parts.reduce<unknown>((o, p) => (isRecord(o) ? o[p] : undefined), written);
    if (!isRecord(holder)) continue;
    const declared = map.getIn([...parts, last], true) as Node | undefined;
    if (declared === undefined) delete holder[last];
    else holder[last] = declared.toJSON();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fieldValue(r: LiveResource, field: string): unknown {
  return (r.fields as unknown as Record<string, unknown>)[field];
}

function styleItem(map: YAMLMap, descriptor: KindDescriptor): void {
  for (const path of descriptor.secretPaths ?? []) {
    const node = map.getIn(path.split('.'), true);
    if (node && typeof node === 'object') (node as { comment?: string }).comment = SECRET_COMMENT;
  }
  for (const spec of descriptor.fields) {
    const node = map.get(spec.name, true) as Node | undefined;
    if (node && (spec.type === 'object' || spec.type === 'stringSet')) flowWhenShort(node);
    if (spec.block && isScalar(node) && typeof (node as Scalar).value === 'string' && (node as Scalar).value !== '')
      (node as Scalar).type = 'BLOCK_LITERAL';
  }
}
