/**
 * How one live item is written in a manifest, by export and by adopt alike: its fields (secrets
 * as the reference a manifest must use, roles by name), a role binding's references (by name in
 * the org, by uid outside it, with a comment), and short maps and lists in flow style.
 */
import { isMap, isPair, isSeq, type Node } from 'yaml';
import { type IdentityKey, parentPath, pathDepth, type RoleKey } from '../model/address.js';
import { copyValue, type KindDescriptor } from '../model/kind-descriptor.js';
import type { LiveResource } from '../model/resources.js';

/** One item's fields as a manifest writes them (secrets as references, roles as names). */
export function itemFields(descriptor: KindDescriptor, r: LiveResource): Record<string, unknown> {
  const have = r.fields as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const spec of descriptor.fields) {
    const value = have[spec.name];
    if (value === undefined) continue;
    // An empty set is what an absent one means (bundles: every repo has none): not written.
    if (spec.type === 'stringSet' && Array.isArray(value) && value.length === 0) continue;
    if (spec.type === 'roleRef') {
      // A role as a manifest names one; a role outside the org cannot be named: left unmanaged.
      const key = value as RoleKey;
      if ('builtin' in key) out[spec.name] = key.builtin;
      else if ('path' in key) out[spec.name] = referenceInOrg(r.groupPath, key.path);
    } else out[spec.name] = spec.manifestForm ? spec.manifestForm(copyValue(value)) : copyValue(value);
  }
  // The API never returns a secret: written as the reference a manifest must use.
  for (const path of descriptor.secretPaths ?? [])
    setAtPath(out, path, { fromEnv: secretVariable(String(have.name), path, descriptor.secretPaths?.length ?? 1) });
  return out;
}

export interface WrittenBinding {
  fields: Record<string, string>;
  /** Trailing comments by field name. */
  comments: Record<string, string>;
  sortKey: string;
}

/**
 * A role binding as a manifest writes it: a sibling by bare name, anything else in the org by
 * `/path` from the root, anything outside the org by `identityUid:`/`roleUid:` with a comment.
 */
export function writeBinding(groupPath: string, identity: IdentityKey, role: RoleKey): WrittenBinding {
  const fields: Record<string, string> = {};
  const comments: Record<string, string> = {};
  if ('uid' in identity) {
    fields.identityUid = identity.uid;
    comments.identityUid = 'an identity outside this org (a person?): referenced, not managed';
  } else {
    fields.identity = referenceInOrg(groupPath, identity.path);
  }
  if ('builtin' in role) {
    fields.role = role.builtin;
  } else if ('uid' in role) {
    fields.roleUid = role.uid;
    comments.roleUid = 'a custom role outside this org: referenced, not managed';
  } else {
    fields.role = referenceInOrg(groupPath, role.path);
  }
  const sortKey = `${fields.identity ?? `~${fields.identityUid}`}\u0000${fields.role ?? `~${fields.roleUid}`}`;
  return { fields, comments, sortKey };
}

/** Bare name for a sibling of the binding's group, `/path` from the org root otherwise. */
function referenceInOrg(groupPath: string, path: string): string {
  const isSibling = parentPath(path) === groupPath && pathDepth(path) === pathDepth(groupPath) + 1;
  return isSibling ? path.slice(path.lastIndexOf('/') + 1) : `/${path}`;
}

/**
 * Longest object or list written on one line (`claimMatch: { issuer: …, subject: … }`); a longer
 * one (an identity provider's oidc) is a block of its own lines, never a flow mapping folded over
 * several — with its short members on one line each (`clientSecret: { fromEnv: … }`).
 */
const FLOW_MAX = 110;

/** A map or list on one line when it is short; else a block, its short members each on one line. */
export function flowWhenShort(node: Node): void {
  if (!isMap(node) && !isSeq(node)) return;
  const short = JSON.stringify(node.toJSON()).length <= FLOW_MAX;
  node.flow = short;
  if (short) return;
  for (const item of node.items) {
    const value = isPair(item) ? item.value : item;
    if (value && typeof value === 'object') flowWhenShort(value as Node);
  }
}

/**
 * `okta` → `PLATFORM_SYNC_SECRET_OKTA`: the variable an exported secret reference names (DESIGN.md
 * §4), the only kind of variable a manifest may name; the field is added when a kind has several.
 */
function secretVariable(name: string, path: string, secretPaths: number): string {
  const last = path.slice(path.lastIndexOf('.') + 1).replace(/([a-z])([A-Z])/g, '$1_$2');
  const suffix = secretPaths > 1 ? `_${last}` : '';
  return `PLATFORM_SYNC_SECRET_${name}${suffix}`.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

function setAtPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let holder = target;
  for (const part of parts.slice(0, -1)) {
    if (typeof holder[part] !== 'object' || holder[part] === null) holder[part] = {};
    holder = holder[part] as Record<string, unknown>;
  }
  holder[parts[parts.length - 1]!] = value;
}
