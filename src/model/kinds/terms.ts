/**
 * Accepted terms documents of the org (DESIGN.md §2): `acceptedTerms: [docId…]` on the org.
 * An acceptance is permanent: declaring a document accepts it (POST, a no-op when it already
 * is), leaving it out changes nothing (a note, never a step). Acceptances have no uid of their
 * own: the model names each by its org and document.
 */
import { declaredFieldSpecs, defineKind } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { Declared } from './declared-types.js';

/** An accepted terms document, as declared. */
export type TermsFields = Declared<'terms'>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.terms);

export const terms = defineKind({
  kind: 'terms',
  label: { one: 'accepted terms document', many: 'accepted terms documents' },
  api: {
    collection: '/iam/v2/terms',
    plural: 'termsAcceptances',
    createFields: ['documentIds'],
  },
  keyField: 'docId',
  fields: FIELDS,
  permanent: true,
  listedPerParent: true,
  uidOf: (item, parentUid) => `${parentUid}/terms:${String(item.docId)}`,
  createBody: (after) => ({ documentIds: [after.docId] }),
  manifest: { listKey: 'acceptedTerms', definition: 'org', form: 'values', itemNoun: 'document id' },
  address: (_groupPath, fields) => `terms:${String(fields.docId)}`,
  describe: (key) => `accepted terms document ${JSON.stringify(key)}`,
});
