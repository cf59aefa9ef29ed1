/**
 * What an identity stands for, as the emulator's contract says (DESIGN.md §2 "Identity
 * relationships", §6): exactly one of `claimMatch`, `awsIdentity`, `staticKeys` or
 * `servicePrincipal`, each with its own rules. Written here from the contract, sharing no
 * function with the client (STYLE.md 16): the emulator is the oracle integration tests judge
 * the client by, so a bug in the client's relationship rules must not be a bug here too.
 * Patterns are read as the service reads them, by RE2 (re2js, a port of the service's library).
 */
import { lazyRequire } from '../util/lazy-require.js';
import { componentValidator, identityServicePrincipals } from './contract.js';
import type { FieldViolation } from './failures.js';

/** The relationship fields of an identity (the contract's Identity members that say who it stands for). */
export const RELATIONSHIPS = ['claimMatch', 'awsIdentity', 'staticKeys', 'servicePrincipal'] as const;
export type Relationship = (typeof RELATIONSHIPS)[number];

const SERVICE_PRINCIPAL_PREFIX = 'SERVICE_PRINCIPAL_';
const re2 = lazyRequire<typeof import('re2js')>('re2js');

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function isRelationship(field: string): field is Relationship {
  return (RELATIONSHIPS as readonly string[]).includes(field);
}

/** `SERVICE_PRINCIPAL_COSIGNED` and `COSIGNED` are one principal; the short name is stored and returned. */
export function shortServicePrincipal(value: unknown): unknown {
  return typeof value === 'string' && value.startsWith(SERVICE_PRINCIPAL_PREFIX)
    ? value.slice(SERVICE_PRINCIPAL_PREFIX.length)
    : value;
}

/** Why a pattern is not RE2 (the parser's words), or undefined. */
function notRe2(pattern: unknown): string | undefined {
  if (typeof pattern !== 'string') return 'is not a string';
  try {
    re2().RE2JS.compile(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^error parsing regexp: /, '');
  }
}

/** An https URL of ASCII characters, as the contract's `HttpsUrl` says (a look-alike host is refused as the service refuses it). */
function httpsUrl(value: unknown): boolean {
  return typeof value === 'string' && componentValidator('HttpsUrl')(value) === true;
}

/** Exactly one of an exact member and its pattern (at most one when `optional`), the pattern RE2. */
function oneOf(o: Obj, exact: string, pattern: string, optional: boolean): string | undefined {
  if (o[exact] !== undefined && o[pattern] !== undefined)
    return `has both ${exact} and ${pattern}; expected one of them`;
  if (!optional && o[exact] === undefined && o[pattern] === undefined) return `needs ${exact} or ${pattern}`;
  if (o[pattern] !== undefined) {
    const why = notRe2(o[pattern]);
    if (why !== undefined)
      return `${pattern} ${JSON.stringify(o[pattern])} is not a valid RE2 regular expression (${why})`;
  }
  return undefined;
}

function claimMatch(o: Obj): string | undefined {
  const pairs =
    oneOf(o, 'issuer', 'issuerPattern', false) ??
    oneOf(o, 'subject', 'subjectPattern', false) ??
    oneOf(o, 'audience', 'audiencePattern', true);
  if (pairs) return pairs;
  if (o.issuer !== undefined && !httpsUrl(o.issuer)) return `issuer ${JSON.stringify(o.issuer)} is not an https URL`;
  for (const key of ['claims', 'claimPatterns']) {
    const map = o[key];
    if (map === undefined) continue;
    if (!isObject(map) || !Object.values(map).every((v) => typeof v === 'string'))
      return `${key} must map claim names to strings`;
    if (key === 'claimPatterns') {
      for (const [claim, pattern] of Object.entries(map)) {
        const why = notRe2(pattern);
        if (why !== undefined)
          return `claimPatterns.${claim} ${JSON.stringify(pattern)} is not a valid RE2 regular expression (${why})`;
      }
    }
  }
  return undefined;
}

function awsIdentity(o: Obj): string | undefined {
  if (typeof o.awsAccount !== 'string' || !/^\d{12}$/.test(o.awsAccount)) {
    return `awsAccount ${o.awsAccount === undefined ? 'is missing' : `${JSON.stringify(o.awsAccount)} is not an AWS account id`}; expected 12 digits`;
  }
  const pairs = oneOf(o, 'arn', 'arnPattern', true) ?? oneOf(o, 'userId', 'userIdPattern', true);
  if (pairs) return pairs;
  if (['arn', 'arnPattern', 'userId', 'userIdPattern'].every((k) => o[k] === undefined))
    return 'needs arn, arnPattern, userId or userIdPattern';
  return undefined;
}

function staticKeys(o: Obj): string | undefined {
  if (!httpsUrl(o.issuer))
    return `issuer ${o.issuer === undefined ? 'is missing' : `${JSON.stringify(o.issuer)} is not an https URL`}`;
  if (typeof o.subject !== 'string' || o.subject === '') return 'subject is missing';
  if (typeof o.issuerKeys !== 'string') return 'issuerKeys is missing: the JWKS document, as JSON text';
  let jwks: unknown;
  try {
    jwks = JSON.parse(o.issuerKeys);
  } catch {
    return 'issuerKeys is not JSON';
  }
  if (!isObject(jwks) || !Array.isArray(jwks.keys) || jwks.keys.length === 0 || !jwks.keys.every(isObject))
    return 'issuerKeys is not a JWKS document ({"keys": [ … ]} with at least one key)';
  if (
    o.expirationTime !== undefined &&
    (typeof o.expirationTime !== 'string' ||
      !/^\d{4}-\d{2}-\d{2}T/.test(o.expirationTime) ||
      Number.isNaN(Date.parse(o.expirationTime)))
  ) {
    return `expirationTime ${JSON.stringify(o.expirationTime)} is not an RFC 3339 time`;
  }
  if (
    o.audiences !== undefined &&
    (!Array.isArray(o.audiences) || !o.audiences.every((a) => typeof a === 'string' && a !== ''))
  )
    return 'audiences must be a list of non-empty strings';
  return undefined;
}

/** What is wrong with one relationship's value, as a field violation says it, or null. */
export function relationshipViolation(field: Relationship, value: unknown): string | null {
  if (value === null) return null; // clears it
  if (field === 'servicePrincipal') {
    const known = identityServicePrincipals();
    const short = shortServicePrincipal(value);
    return typeof short === 'string' && known.includes(short)
      ? null
      : `${JSON.stringify(value)} is not a service principal; expected one of ${known.join(', ')}`;
  }
  if (!isObject(value)) return 'must be an object';
  return (
    (field === 'claimMatch' ? claimMatch(value) : field === 'awsIdentity' ? awsIdentity(value) : staticKeys(value)) ??
    null
  );
}

/**
 * What is wrong with part of a relationship, as a PATCH sends it beside a mask that names some
 * of its paths, or none (the contract's `*Partial` schemas say which members exist and their
 * types): every pattern sent must be RE2 (DESIGN.md §2), applied or not. Null when all are.
 */
function partialRelationshipViolation(value: unknown): string | null {
  if (!isObject(value)) return null; // not an object: the contract's schema names it
  for (const [member, pattern] of Object.entries(value)) {
    if (!member.endsWith('Pattern') || typeof pattern !== 'string') continue;
    const why = notRe2(pattern);
    if (why !== undefined) return `${member} ${JSON.stringify(pattern)} is not a valid RE2 regular expression (${why})`;
  }
  if (!isObject(value.claimPatterns)) return null;
  for (const [claim, pattern] of Object.entries(value.claimPatterns)) {
    const why = typeof pattern === 'string' ? notRe2(pattern) : undefined;
    if (why !== undefined)
      return `claimPatterns.${claim} ${JSON.stringify(pattern)} is not a valid RE2 regular expression (${why})`;
  }
  return null;
}

/**
 * The patterns of every relationship a PATCH sent that {@link relationshipViolation} does not
 * check whole, as sent (the mask names none of it, or only some of its paths): each must be RE2
 * (DESIGN.md §2), applied or not. `applied` is the body the mask's fields are taken from.
 */
export function sentRelationshipViolations(
  sent: Record<string, unknown>,
  applied: Record<string, unknown>,
  fields: readonly string[],
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const f of RELATIONSHIPS) {
    if (fields.includes(f) && applied[f] === sent[f]) continue; // checked whole, as sent
    const problem = partialRelationshipViolation(sent[f]);
    if (problem) violations.push({ field: f, description: problem });
  }
  return violations;
}
