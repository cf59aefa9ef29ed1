/**
 * Lost-create recovery (DESIGN.md §4): a create whose answer was lost (a timeout, a reset, a 5xx)
 * may have been made. Before it is retried, the parent is listed for what the create would have
 * made, so that no duplicate is made: by name, by what a binding references, or — for a kind
 * with no natural key — by every field sent. Reads only, through the client's own listing.
 */
import type { ApiClient, ApiObject, ListQuery } from './types.js';
import { referencedUid } from './hydrated.js';
import { descriptorOf, isKind, KIND_INFO, type Kind } from '../model/kinds.js';
import { referenceUidField, sameJson, withInstants } from '../model/kind-descriptor.js';

/** A body field's value as it compares: its instants (FieldSpec `instants`) in one spelling. */
function comparable(kind: string, apiField: string, value: unknown): unknown {
  if (!isKind(kind)) return value;
  const spec = descriptorOf(kind).fields.find((f) => (f.apiName ?? f.name) === apiField);
  return withInstants(spec?.instants, value);
}

/** The root groups of a name (root groups need not have unique names). */
export async function findRootGroups(client: Pick<ApiClient, 'list'>, name: string): Promise<ApiObject[]> {
  const result = await client.list('group', { name });
  return result.items.filter((g) => !g.uid.includes('/') && g.name === name);
}

/**
 * Looks under the parent for the resource a create with `body` would have made; for a root
 * group, one that was not among `rootsBefore` (read before the create was sent).
 */
export async function findCreated<T extends ApiObject>(
  client: Pick<ApiClient, 'list'>,
  kind: Kind,
  parentUid: string | null,
  body: Record<string, unknown>,
  rootsBefore: Set<string> | undefined,
): Promise<T | undefined> {
  if (parentUid === null) {
    const roots = await findRootGroups(client, String(body.name));
    return roots.find((g) => !rootsBefore?.has(g.uid)) as T | undefined;
  }
  const info = KIND_INFO[kind];
  const query: ListQuery = { childrenOf: parentUid };
  if (info.nameFilter) query.name = String(body.name);
  const { items } = await client.list<T>(kind, query);
  // A kind keyed by what it references (a binding): the item that references what was sent.
  if (info.references) {
    const refs = info.references;
    return items.find((i) => refs.every((ref) => referencedUid(i, ref) === body[referenceUidField(ref)]));
  }
  if (info.keyField !== null) return items.find((i) => i[info.keyField!] === body[info.keyField!]);
  // No natural key (a group mapping, an account association): the one whose every created
  // field is as sent. Matching on an absent key would take any sibling for the lost create.
  const sent = info.createFields.filter((f) => body[f] !== undefined);
  // Times compare as instants: the service answers them in its own form (DESIGN.md §4 "Timestamps").
  return items.find((i) => sent.every((f) => sameJson(comparable(kind, f, i[f]), comparable(kind, f, body[f]))));
}
