/**
 * Who can act as an identity (DESIGN.md §4 "Effective access" (a)): the tokens its relationship
 * accepts. A change of relationship is a new principal exactly when the identity may now accept
 * a token it did not — decided here, by meaning where it can be decided cheaply and exactly, and
 * otherwise on the safe side (a changed pattern that is not plainly narrower is a new principal):
 *
 * - a value (exact or pattern) is within another when every text it accepts the other accepted:
 *   the languages compared exactly by finite automata (pattern-language.ts: RE2 as the service
 *   reads and anchors it, flags included), so `repo:acme/?.*` and `repo:acme/x|.*` are wider than
 *   `repo:acme/.*` and `repo:acme/(app|web):.*` narrower; a pattern that cannot be read there is
 *   never within anything else (a new principal);
 * - a requirement left out (an audience, a claim) accepts anything;
 * - another relationship, other keys, another issuer or a later key expiry accept other tokens.
 */
import { normalizeServicePrincipal } from '../model/identity-relationships.js';
import { within as languageWithin, type ValueSpec } from './pattern-language.js';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The relationship an identity's fields hold: its field name and value (undefined: none). */
export function relationshipOf(fields: Obj, names: readonly string[]): { field: string; value: unknown } | undefined {
  for (const field of names)
    if (fields[field] !== undefined && fields[field] !== null) return { field, value: fields[field] };
  return undefined;
}

/** One requirement (an exact member or its pattern): is what `now` accepts within what `was` accepted? */
function within(now: Obj, was: Obj, exact: string, pattern: string): boolean {
  const wasExact = str(was[exact]);
  const wasPattern = str(was[pattern]);
  if (wasExact === undefined && wasPattern === undefined) return true;
  const nowSpec = specOf(now, exact, pattern);
  return nowSpec !== undefined && languageWithin(nowSpec, specOf(was, exact, pattern)!);
}

/** A requirement as a value spec: its exact member, else its pattern (undefined: neither). */
function specOf(o: Obj, exact: string, pattern: string): ValueSpec | undefined {
  const e = str(o[exact]);
  if (e !== undefined) return { exact: e };
  const p = str(o[pattern]);
  return p !== undefined ? { pattern: p } : undefined;
}

/** Every claim `was` required must be required now, as strictly: an exact claim the same; a pattern by a pattern within it, or an exact claim it matches. */
function claimsWithin(now: Obj, was: Obj): boolean {
  const nowClaims = isObject(now.claims) ? now.claims : {};
  const nowPatterns = isObject(now.claimPatterns) ? now.claimPatterns : {};
  for (const [claim, value] of Object.entries(isObject(was.claims) ? was.claims : {}))
    if (nowClaims[claim] !== value) return false;
  for (const [claim, value] of Object.entries(isObject(was.claimPatterns) ? was.claimPatterns : {})) {
    const pattern = str(value);
    if (pattern === undefined) continue;
    const exact = str(nowClaims[claim]);
    const narrower = str(nowPatterns[claim]);
    const nowSpec: ValueSpec | undefined =
      exact !== undefined ? { exact } : narrower !== undefined ? { pattern: narrower } : undefined;
    if (nowSpec === undefined || !languageWithin(nowSpec, { pattern })) return false;
  }
  return true;
}

function claimMatchWithin(now: Obj, was: Obj): boolean {
  return (
    within(now, was, 'issuer', 'issuerPattern') &&
    within(now, was, 'subject', 'subjectPattern') &&
    within(now, was, 'audience', 'audiencePattern') &&
    claimsWithin(now, was)
  );
}

function awsWithin(now: Obj, was: Obj): boolean {
  return (
    now.awsAccount === was.awsAccount &&
    within(now, was, 'arn', 'arnPattern') &&
    within(now, was, 'userId', 'userIdPattern')
  );
}

function staticKeysWithin(now: Obj, was: Obj): boolean {
  if (now.issuer !== was.issuer || now.subject !== was.subject || now.issuerKeys !== was.issuerKeys) return false;
  const wasAudiences = Array.isArray(was.audiences) ? (was.audiences as unknown[]) : undefined;
  const nowAudiences = Array.isArray(now.audiences) ? (now.audiences as unknown[]) : undefined;
  if (
    wasAudiences !== undefined &&
    (nowAudiences === undefined || !nowAudiences.every((a) => wasAudiences.includes(a)))
  )
    return false;
  const wasExpiry = str(was.expirationTime);
  const nowExpiry = str(now.expirationTime);
  if (wasExpiry !== undefined && (nowExpiry === undefined || Date.parse(nowExpiry) > Date.parse(wasExpiry)))
    return false;
  return true;
}

/** Whether every token the identity accepts `now` it also accepted before (`was`). No relationship accepts nothing. */
export function acceptsWithin(
  now: { field: string; value: unknown } | undefined,
  was: { field: string; value: unknown } | undefined,
): boolean {
  if (now === undefined) return true;
  if (was === undefined || now.field !== was.field) return false;
  if (now.field === 'servicePrincipal')
    return normalizeServicePrincipal(now.value) === normalizeServicePrincipal(was.value);
  if (!isObject(now.value) || !isObject(was.value)) return false;
  if (now.field === 'claimMatch') return claimMatchWithin(now.value, was.value);
  if (now.field === 'awsIdentity') return awsWithin(now.value, was.value);
  if (now.field === 'staticKeys') return staticKeysWithin(now.value, was.value);
  return JSON.stringify(now.value) === JSON.stringify(was.value);
}

/** How a changed relationship is named beside its identity: `subjectPattern "repo:.*"`, `staticKeys (other keys)`. */
export function describeRelationship(
  now: { field: string; value: unknown },
  was: { field: string; value: unknown } | undefined,
): string {
  if (!isObject(now.value)) return `${now.field} ${JSON.stringify(normalizeServicePrincipal(now.value))}`;
  if (was === undefined || was.field !== now.field || !isObject(was.value)) return `${now.field}`;
  const changed = Object.keys(now.value).filter(
    (k) => JSON.stringify((now.value as Obj)[k]) !== JSON.stringify((was.value as Obj)[k]),
  );
  // A member replaced by its pattern (subject → subjectPattern) is said once, by the pattern.
  const removed = Object.keys(was.value).filter(
    (k) => (now.value as Obj)[k] === undefined && (now.value as Obj)[`${k}Pattern`] === undefined,
  );
  const parts = changed.map((k) =>
    k === 'issuerKeys' ? 'other issuerKeys' : `${k} ${JSON.stringify((now.value as Obj)[k])}`,
  );
  for (const k of removed) parts.push(`no ${k}`);
  return parts.length > 0 ? parts.join(', ') : now.field;
}
