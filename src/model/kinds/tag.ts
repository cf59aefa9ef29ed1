/** Image tags: children of a repo, published by CI; never declared in manifests, never updated. */
import { joinPath, tagAddress } from '../address.js';
import { declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { DeclaredWith } from './declared-types.js';

/** A tag's fields, as declared; live state always says whether it is deprecated. */
export type TagFields = DeclaredWith<'tag', { deprecated: boolean }>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.tag, {
  // A server-side state the API does not let a client set: shown, never compared.
  deprecated: { compared: false },
});

export const tag = defineKind({
  kind: 'tag',
  label: { one: 'tag', many: 'tags' },
  api: {
    collection: '/registry/v2/tags',
    plural: 'tags',
  },
  parentKind: 'repo',
  keyField: 'name',
  fields: FIELDS,
  manifest: null,
  goesWithParent: true,
  address: (_groupPath, fields, repo) =>
    tagAddress(joinPath(repo.groupPath, String((repo.fields as { name?: unknown }).name)), String(fields.name)),
  describe: (key) => `tag ${JSON.stringify(key)}`,
});
