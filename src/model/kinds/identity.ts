/**
 * Identities: who may log in — a workload matched by exactly one relationship (DESIGN.md §2):
 * the claims of its OIDC token, an AWS role or user, tokens signed by keys given here, or a
 * platform service principal. The rules of each live in identity-relationships.ts.
 */
import { namedAddress } from '../address.js';
import { declaredFieldSpecs, defineKind, type ItemProblem } from '../kind-descriptor.js';
import { DECLARED_FIELDS } from './declared-fields.js';
import type { DeclaredWith } from './declared-types.js';
import {
  compactRelationship,
  readServicePrincipal,
  relationshipProblems,
  relationshipsOf,
  RELATIONSHIP_FIELDS,
} from '../identity-relationships.js';

export type { AwsIdentity, ClaimMatch, StaticKeys } from '../identity-relationships.js';

/** An identity's fields, as declared; a live one may name a service principal this version does not know. */
export type IdentityFields = DeclaredWith<'identity', { servicePrincipal?: string }>;

const FIELDS = declaredFieldSpecs(DECLARED_FIELDS.identity, {
  claimMatch: { normalize: compactRelationship },
  awsIdentity: { normalize: compactRelationship },
  staticKeys: { normalize: compactRelationship, instants: ['expirationTime'] },
  servicePrincipal: { optional: true, normalize: readServicePrincipal },
});

/** Whether an item holds `field` (relationshipsOf's test, without its list). */
function holds(item: Readonly<Record<string, unknown>>, field: string): boolean {
  return item[field] !== undefined && item[field] !== null;
}
const NO_PROBLEMS: readonly ItemProblem[] = [];

/** The schema checked each relationship's shape (one options object for every identity checked). */
const SHAPE_CHECKED = { shapeChecked: true } as const;

export const identity = defineKind({
  kind: 'identity',
  label: { one: 'identity', many: 'identities' },
  api: {
    collection: '/iam/v2/identities',
    plural: 'identities',
    nameFilter: true,
  },
  keyField: 'name',
  fields: FIELDS,
  exclusiveFields: RELATIONSHIP_FIELDS,
  hasUpdate: true,
  renameable: true,
  referenceable: true,
  access: { is: 'principal', relationship: RELATIONSHIP_FIELDS },
  manifest: { listKey: 'identities', definition: 'identity', form: 'item', itemNoun: 'identity' },
  deleteReliesOn: ['identity', 'roleBinding'],
  address: (groupPath, fields) => namedAddress('identity', groupPath, String(fields.name)),
  describe: (key) => `identity ${JSON.stringify(key)}`,
  checkItem(item, key) {
    // Every identity of a manifest is checked: a list of what is wrong is made only when something
    // is, and nothing is iterated with for…of (docs/performance.md, issue 61: resolve).
    let problems: ItemProblem[] | undefined;
    let held = 0;
    for (let i = 0; i < RELATIONSHIP_FIELDS.length; i++) if (holds(item, RELATIONSHIP_FIELDS[i]!)) held++;
    if (held > 1) {
      const set = relationshipsOf(item);
      problems = [
        {
          pointer: [set[1]!],
          message: `identity ${JSON.stringify(key)} has ${set.join(' and ')}; an identity stands for exactly one of ${RELATIONSHIP_FIELDS.join(', ')}`,
        },
      ];
    }
    // servicePrincipal is an enum the schema checks; the objects have rules beyond their shape.
    for (let i = 0; i < RELATIONSHIP_FIELDS.length; i++) {
      const field = RELATIONSHIP_FIELDS[i]!;
      if (field === 'servicePrincipal' || !holds(item, field)) continue;
      const found = relationshipProblems(field, item[field], SHAPE_CHECKED);
      for (let j = 0; j < found.length; j++) {
        const p = found[j]!;
        (problems ??= []).push({ pointer: p.path, message: `${p.message} (identity ${JSON.stringify(key)})` });
      }
    }
    return problems ?? NO_PROBLEMS;
  },
});
