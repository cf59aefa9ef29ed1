/**
 * Which principals of a relation accept every token another accepts (DESIGN.md §4 "Access
 * changes": an identity made again with the same relationship gains nothing), found through an
 * index by anchor instead of trying every principal. Pure.
 */
import { acceptsWithin } from './relationships.js';
import type { AccessRelation, Principal } from './relation.js';

/** The principals of `rel` that accept every token `p` accepts: itself when there, and every identity whose relationship holds it. */
export function covering(rel: AccessRelation, p: Principal): string[] {
  const out = rel.principals.has(p.id) ? [p.id] : [];
  if (p.relationship === undefined) return out;
  const index = (coveringIndexes.get(rel) ?? coveringIndexes.set(rel, anchorIndex(rel)).get(rel))!;
  // An issuer pattern may be held by a relationship of any issuer (`https://token\.actions…` by the exact one).
  const anchors =
    anchorOf(p.relationship) === 'cm**'
      ? [...index.keys()].filter((a) => a.startsWith('cm'))
      : anchorsThatMayHold(p.relationship);
  for (const anchor of anchors) {
    for (const q of index.get(anchor) ?? []) {
      if (q.id !== p.id && acceptsWithin(p.relationship, q.relationship!)) out.push(q.id);
    }
  }
  return out;
}

/**
 * Which relationships could accept every token of another, found by an anchor instead of trying
 * every principal of the org (tens of thousands at 100k resources): a relationship can hold only
 * one of its own kind with the same exact issuer and subject (or keys, or account, or service),
 * or one whose subject or issuer is a pattern.
 */
const coveringIndexes = new WeakMap<AccessRelation, Map<string, Principal[]>>();

function anchorOf(rel: { field: string; value: unknown }): string {
  const v = (rel.value !== null && typeof rel.value === 'object' ? rel.value : {}) as Record<string, unknown>;
  switch (rel.field) {
    case 'claimMatch':
      if (typeof v.issuer !== 'string') return 'cm**';
      return typeof v.subject === 'string' ? `cm|${v.issuer}|${v.subject}` : `cm*|${v.issuer}`;
    case 'staticKeys':
      return `sk|${String(v.issuer)}|${String(v.subject)}|${String(v.issuerKeys)}`;
    case 'awsIdentity':
      return `aws|${String(v.awsAccount)}`;
    default:
      return `${rel.field}|${typeof rel.value === 'string' ? rel.value.replace(/^SERVICE_PRINCIPAL_/, '') : JSON.stringify(rel.value)}`;
  }
}

/** The anchors of every relationship that may accept all the tokens `rel` accepts. */
function anchorsThatMayHold(rel: { field: string; value: unknown }): string[] {
  const own = anchorOf(rel);
  if (rel.field !== 'claimMatch') return [own];
  const issuer = (rel.value as Record<string, unknown>).issuer;
  if (own === 'cm**') return ['cm**'];
  return own.startsWith('cm*|') ? [own, 'cm**'] : [own, `cm*|${String(issuer)}`, 'cm**'];
}

function anchorIndex(rel: AccessRelation): Map<string, Principal[]> {
  const index = new Map<string, Principal[]>();
  for (const q of rel.principals.values()) {
    if (q.relationship === undefined || !rel.grantsOf.has(q.id)) continue;
    const anchor = anchorOf(q.relationship);
    const list = index.get(anchor);
    if (list) list.push(q);
    else index.set(anchor, [q]);
  }
  return index;
}

/**
 * The bucket of an identity (state-index.ts): identities of one principal share one (its
 * relationship's anchor, or for a relationship without one its field alone), and `covering` finds
 * a principal's coverers in the buckets `bucketsThatMayHold` names. Without a relationship, an
 * identity is a principal of its own (`identity:<key>`, as a grant to a key no identity has).
 */
export function bucketOf(relationship: { field: string; value: unknown } | undefined, key: string): string {
  if (relationship === undefined) return `identity:${key}`;
  const anchor = anchorOf(relationship);
  return ANCHORED.has(relationship.field) ? anchor : `${relationship.field}|`;
}

const ANCHORED: ReadonlySet<string> = new Set(['claimMatch', 'staticKeys', 'awsIdentity']);

/**
 * Whether an identity's bucket is among `buckets`, without making the bucket of each identity
 * whose bucket cannot be (a pass over every identity asks this): the bucket of a claimMatch of an
 * exact issuer and subject ends with its subject, so a subject no bucket ends with needs no
 * bucket made. Answers as `buckets.has(bucketOf(relationship, key))`.
 */
export function inBuckets(
  buckets: ReadonlySet<string>,
): (relationship: Relationship | undefined, key: string) => boolean {
  /** What each exact claimMatch bucket (`cm|<issuer>|<subject>`) holds after its last `|`. */
  const lastParts = new Set<string>();
  for (const bucket of buckets) if (bucket.startsWith('cm|')) lastParts.add(bucket.slice(bucket.lastIndexOf('|') + 1));
  return (relationship, key) => {
    const value = relationship?.field === 'claimMatch' ? relationship.value : undefined;
    if (value !== null && typeof value === 'object') {
      const { issuer, subject } = value as Record<string, unknown>;
      // Its bucket is `cm|${issuer}|${subject}`, whose last part is the subject when that holds no `|`.
      if (
        typeof issuer === 'string' &&
        typeof subject === 'string' &&
        !subject.includes('|') &&
        !lastParts.has(subject)
      )
        return false;
    }
    return buckets.has(bucketOf(relationship, key));
  };
}

type Relationship = { field: string; value: unknown };

/**
 * The buckets whose principals `covering` may find for a principal of this relationship (its own
 * among them); undefined: every claimMatch bucket (an issuer pattern may be held by any issuer's).
 */
export function bucketsThatMayHold(
  relationship: { field: string; value: unknown } | undefined,
  key: string,
): string[] | undefined {
  if (relationship === undefined) return [bucketOf(undefined, key)];
  if (anchorOf(relationship) === 'cm**') return undefined;
  if (!ANCHORED.has(relationship.field)) return [bucketOf(relationship, key)];
  return anchorsThatMayHold(relationship);
}
