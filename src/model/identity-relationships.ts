/**
 * What an identity stands for (DESIGN.md §2 "Identity relationships"): exactly one of
 * `claimMatch` (an OIDC token's issuer, subject, audience and claims, each exact or a pattern),
 * `awsIdentity` (an AWS account and role/user), `staticKeys` (tokens signed by keys given here)
 * or `servicePrincipal` (a platform service). The rules are written once, here, and used by the
 * manifest check (with the place in the file and a fix) and by the emulator (as the API's field
 * violations). Pure.
 */
import { DECLARED_FIELDS } from './kinds/declared-fields.js';
import type { Declared } from './kinds/declared-types.js';
import { setOwnKey } from '../util/own-key.js';
import { isHttpsUrl as isHttpsUrlText, nonAsciiUrlProblem } from '../util/url.js';
import { re2Problem as patternProblem } from '../util/re2.js';
import { shortEnumValue } from '../util/service-enum.js';

/** The relationship fields: every declared field of an identity but its name and description (declared-fields.ts). */
export type RelationshipField = 'claimMatch' | 'awsIdentity' | 'staticKeys' | 'servicePrincipal';
/** The union above is the declaration's (the build fails when a relationship is declared or removed without it). */
type DeclaredRelationship = Exclude<keyof Declared<'identity'>, 'name' | 'description'>;
type RelationshipFieldsAgree = [RelationshipField] extends [DeclaredRelationship]
  ? [DeclaredRelationship] extends [RelationshipField]
    ? true
    : never
  : never;
const relationshipFieldsAgree: RelationshipFieldsAgree = true;
void relationshipFieldsAgree;
export const RELATIONSHIP_FIELDS = DECLARED_FIELDS.identity
  .map((f) => f.name)
  .filter((name) => name !== 'name' && name !== 'description') as readonly RelationshipField[];

export const SERVICE_PRINCIPALS = ['COSIGNED', 'INGESTER', 'CATALOG_SYNCER', 'APKO_BUILDER'] as const;
const SERVICE_PRINCIPAL_PREFIX = 'SERVICE_PRINCIPAL_';

export interface ClaimMatch {
  issuer?: string;
  issuerPattern?: string;
  subject?: string;
  subjectPattern?: string;
  audience?: string;
  audiencePattern?: string;
  claims?: Record<string, string>;
  claimPatterns?: Record<string, string>;
}

export interface AwsIdentity {
  awsAccount: string;
  arn?: string;
  arnPattern?: string;
  userId?: string;
  userIdPattern?: string;
}

export interface StaticKeys {
  issuer: string;
  subject: string;
  /** A JWKS document, as JSON text. */
  issuerKeys: string;
  expirationTime?: string;
  audiences?: string[];
}

/** One broken rule: where inside the relationship (`['claimMatch', 'subjectPattern']`) and what is expected. */
export interface RelationshipProblem {
  path: string[];
  message: string;
}

const KEYS: Record<Exclude<RelationshipField, 'servicePrincipal'>, readonly string[]> = {
  claimMatch: [
    'issuer',
    'issuerPattern',
    'subject',
    'subjectPattern',
    'audience',
    'audiencePattern',
    'claims',
    'claimPatterns',
  ],
  awsIdentity: ['awsAccount', 'arn', 'arnPattern', 'userId', 'userIdPattern'],
  staticKeys: ['issuer', 'subject', 'issuerKeys', 'expirationTime', 'audiences'],
};

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `SERVICE_PRINCIPAL_COSIGNED` or `COSIGNED` → `COSIGNED`; anything else as it was. */
export function normalizeServicePrincipal(value: unknown): unknown {
  return typeof value === 'string' && value.startsWith(SERVICE_PRINCIPAL_PREFIX)
    ? value.slice(SERVICE_PRINCIPAL_PREFIX.length)
    : value;
}

/**
 * An identity's servicePrincipal field as read from the API or a manifest: short, and the zero
 * value (`SERVICE_PRINCIPAL_UNSPECIFIED`), `UNKNOWN` or "" unset (undefined) — as every enum that
 * crosses the wire is read (util/service-enum.ts, DESIGN.md §2 rev 6).
 */
export function readServicePrincipal(value: unknown): unknown {
  return shortEnumValue(value, SERVICE_PRINCIPAL_PREFIX);
}

/**
 * A relationship object as compared and shown: keys with nothing in them (`""`, `{}`, `[]`) left
 * out, since a server may send them for "unset" and a manifest leaves them out.
 */
export function compactRelationship(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: Obj = {};
  // Keys and an index, not Object.entries: every identity's relationship is compacted, desired
  // and live, mostly before V8 optimises this (a pair array per key; docs/performance.md).
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = value[k];
    if (v === undefined || v === null || v === '') continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (isObject(v) && Object.keys(v).length === 0) continue;
    setOwnKey(out, k, v);
  }
  return out;
}

export { re2Problem as patternProblem } from '../util/re2.js';

function isHttpsUrl(value: unknown): boolean {
  return typeof value === 'string' && isHttpsUrlText(value);
}

/** A JWKS document as JSON text: an object with a non-empty `keys` array of objects. */
function jwksProblem(text: unknown): string | undefined {
  if (typeof text !== 'string') return 'must be the JWKS document as JSON text';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return `is not JSON (${(err as Error).message}); expected a JWKS document such as {"keys": [{"kty": "EC", …}]}`;
  }
  if (!isObject(parsed) || !Array.isArray(parsed.keys) || parsed.keys.length === 0 || !parsed.keys.every(isObject)) {
    return 'is not a JWKS document; expected {"keys": [ … ]} with at least one key';
  }
  return undefined;
}

/**
 * Exactly one (or, with `optional`, at most one) of an exact value and its pattern; what is wrong
 * goes into `problems`. Every identity of a manifest is checked: pushing into one list, with no
 * list per pair to spread, keeps the check from allocating when nothing is wrong.
 */
function pairProblems(
  problems: RelationshipProblem[],
  field: string,
  o: Obj,
  exact: string,
  pattern: string,
  optional: boolean,
): void {
  const hasExact = o[exact] !== undefined;
  const hasPattern = o[pattern] !== undefined;
  if (hasExact && hasPattern) {
    problems.push({
      path: [field, pattern],
      message: `${field} has both ${exact} and ${pattern}; expected one of them`,
    });
    return;
  }
  if (!optional && !hasExact && !hasPattern) {
    problems.push({ path: [field], message: `${field} needs ${exact} (exact) or ${pattern} (a regular expression)` });
    return;
  }
  if (hasPattern) {
    const why = typeof o[pattern] === 'string' ? patternProblem(o[pattern] as string) : 'is not a string';
    if (why !== undefined)
      problems.push({
        path: [field, pattern],
        message: `${field}.${pattern} ${JSON.stringify(o[pattern])} is not a valid RE2 regular expression, as the service reads patterns (${why}); lookaround and backreferences are not RE2`,
      });
  }
}

function unknownKeys(field: keyof typeof KEYS, o: Obj): RelationshipProblem[] {
  return Object.keys(o)
    .filter((k) => !KEYS[field].includes(k))
    .map((k) => ({
      path: [field, k],
      message: `${field} has no field ${JSON.stringify(k)}; expected ${KEYS[field].join(', ')}`,
    }));
}

/** `shapeChecked`: the manifest schema already reported unknown keys and value types (not repeated here). */
interface CheckOptions {
  shapeChecked?: boolean;
}

const CLAIM_MAPS = ['claims', 'claimPatterns'] as const;

function claimMatchProblems(o: Obj, opts: CheckOptions): RelationshipProblem[] {
  const problems = opts.shapeChecked ? [] : unknownKeys('claimMatch', o);
  pairProblems(problems, 'claimMatch', o, 'issuer', 'issuerPattern', false);
  pairProblems(problems, 'claimMatch', o, 'subject', 'subjectPattern', false);
  pairProblems(problems, 'claimMatch', o, 'audience', 'audiencePattern', true);
  const ascii = typeof o.issuer === 'string' ? nonAsciiUrlProblem('claimMatch.issuer', o.issuer) : undefined;
  if (ascii) problems.push({ path: ['claimMatch', 'issuer'], message: ascii });
  else if (o.issuer !== undefined && !isHttpsUrl(o.issuer)) {
    problems.push({
      path: ['claimMatch', 'issuer'],
      message: `claimMatch.issuer ${JSON.stringify(o.issuer)} is not an https URL; expected the token issuer, e.g. https://token.actions.githubusercontent.com`,
    });
  }
  // Indexed: every identity of a manifest is checked, mostly before V8 optimises this (a for…of allocates then).
  for (let k = 0; k < CLAIM_MAPS.length; k++) {
    const key = CLAIM_MAPS[k]!;
    const map = o[key];
    if (map === undefined) continue;
    if (!isObject(map) || !Object.values(map).every((v) => typeof v === 'string')) {
      if (!opts.shapeChecked)
        problems.push({ path: ['claimMatch', key], message: `claimMatch.${key} must map claim names to strings` });
      continue;
    }
    if (key === 'claimPatterns') {
      for (const [claim, pattern] of Object.entries(map)) {
        const why = patternProblem(pattern as string);
        if (why !== undefined)
          problems.push({
            path: ['claimMatch', key, claim],
            message: `claimMatch.claimPatterns.${claim} ${JSON.stringify(pattern)} is not a valid RE2 regular expression, as the service reads patterns (${why}); lookaround and backreferences are not RE2`,
          });
      }
    }
  }
  return problems;
}

function awsIdentityProblems(o: Obj, opts: CheckOptions): RelationshipProblem[] {
  const problems = opts.shapeChecked ? [] : unknownKeys('awsIdentity', o);
  pairProblems(problems, 'awsIdentity', o, 'arn', 'arnPattern', true);
  pairProblems(problems, 'awsIdentity', o, 'userId', 'userIdPattern', true);
  if (typeof o.awsAccount !== 'string' || !/^\d{12}$/.test(o.awsAccount)) {
    problems.push({
      path: ['awsIdentity', 'awsAccount'],
      message: `awsIdentity.awsAccount ${o.awsAccount === undefined ? 'is missing' : `${JSON.stringify(o.awsAccount)} is not an AWS account id`}; expected 12 digits, quoted ("123456789012")`,
    });
  }
  if (['arn', 'arnPattern', 'userId', 'userIdPattern'].every((k) => o[k] === undefined)) {
    problems.push({
      path: ['awsIdentity'],
      message: 'awsIdentity needs arn or arnPattern (the role or user), or userId or userIdPattern',
    });
  }
  return problems;
}

function staticKeysProblems(o: Obj, opts: CheckOptions): RelationshipProblem[] {
  const problems = opts.shapeChecked ? [] : unknownKeys('staticKeys', o);
  const ascii = typeof o.issuer === 'string' ? nonAsciiUrlProblem('staticKeys.issuer', o.issuer) : undefined;
  if (ascii) problems.push({ path: ['staticKeys', 'issuer'], message: ascii });
  else if (!isHttpsUrl(o.issuer))
    problems.push({
      path: ['staticKeys', 'issuer'],
      message: `staticKeys.issuer ${o.issuer === undefined ? 'is missing' : `${JSON.stringify(o.issuer)} is not an https URL`}; expected the issuer the tokens name`,
    });
  if (typeof o.subject !== 'string' || o.subject === '')
    problems.push({
      path: ['staticKeys', 'subject'],
      message: 'staticKeys.subject is missing; expected the subject the tokens name',
    });
  const jwks =
    o.issuerKeys === undefined
      ? 'is missing; expected the JWKS document (JSON text) of the keys that sign the tokens'
      : jwksProblem(o.issuerKeys);
  if (jwks !== undefined)
    problems.push({ path: ['staticKeys', 'issuerKeys'], message: `staticKeys.issuerKeys ${jwks}` });
  if (
    o.expirationTime !== undefined &&
    (typeof o.expirationTime !== 'string' ||
      Number.isNaN(Date.parse(o.expirationTime)) ||
      !/^\d{4}-\d{2}-\d{2}T/.test(o.expirationTime))
  ) {
    problems.push({
      path: ['staticKeys', 'expirationTime'],
      message: `staticKeys.expirationTime ${JSON.stringify(o.expirationTime)} is not a time; expected RFC 3339, e.g. 2027-01-01T00:00:00Z`,
    });
  }
  if (
    !opts.shapeChecked &&
    o.audiences !== undefined &&
    (!Array.isArray(o.audiences) || !o.audiences.every((a) => typeof a === 'string' && a !== ''))
  ) {
    problems.push({
      path: ['staticKeys', 'audiences'],
      message: 'staticKeys.audiences must be a list of non-empty strings',
    });
  }
  return problems;
}

/** The problems of one relationship field's value (empty when it is good). */
export function relationshipProblems(
  field: RelationshipField,
  value: unknown,
  opts: CheckOptions = {},
): RelationshipProblem[] {
  if (field === 'servicePrincipal') {
    const short = normalizeServicePrincipal(value);
    if (typeof short === 'string' && (SERVICE_PRINCIPALS as readonly string[]).includes(short)) return [];
    return [
      {
        path: [field],
        message: `servicePrincipal ${JSON.stringify(value)} is not a service principal; expected one of ${SERVICE_PRINCIPALS.join(', ')}`,
      },
    ];
  }
  if (!isObject(value)) return [{ path: [field], message: `${field} must be an object` }];
  if (field === 'claimMatch') return claimMatchProblems(value, opts);
  if (field === 'awsIdentity') return awsIdentityProblems(value, opts);
  return staticKeysProblems(value, opts);
}

/** The relationship fields set in `fields` (an identity should have at most one). */
export function relationshipsOf(fields: Readonly<Record<string, unknown>>): RelationshipField[] {
  return RELATIONSHIP_FIELDS.filter((f) => fields[f] !== undefined && fields[f] !== null);
}
