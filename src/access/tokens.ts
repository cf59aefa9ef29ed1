/**
 * `platform-sync access --as CLAIMS` (DESIGN.md §5): which identities a token can act as, matched
 * as the service matches a relationship — exact members by equality, patterns by RE2 over the
 * whole value. A token is its claims: `iss`, `sub`, `aud` (a string or a list) and any others;
 * an AWS caller gives `awsAccount`, `arn`, `userId`; a service gives `servicePrincipal`. A token
 * for `staticKeys` is taken as signed by those keys (the question is who, not whether it is valid).
 */
import { UserError } from '../model/errors.js';
import { normalizeServicePrincipal } from '../model/identity-relationships.js';
import { re2FullMatch } from '../util/re2.js';

export type Token = Readonly<Record<string, string | readonly string[]>>;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_TOKEN_TEXT = 16 * 1024;

/** Reads `--as`: a JSON object of string (or string list) claims, at most 16 KiB. */
export function parseToken(text: string): Token {
  if (text.length > MAX_TOKEN_TEXT)
    throw new UserError('USAGE', `--as: the claims are longer than ${MAX_TOKEN_TEXT} characters`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UserError(
      'USAGE',
      `--as: expected a JSON object of claims, such as '{"iss":"https://token.actions.githubusercontent.com","sub":"repo:acme/app:ref:refs/heads/main"}'`,
    );
  }
  if (!isObject(value) || Object.keys(value).length === 0)
    throw new UserError(
      'USAGE',
      '--as: expected a JSON object of claims with at least one claim (iss and sub for a workload token)',
    );
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string' && !(Array.isArray(v) && v.every((x) => typeof x === 'string')))
      throw new UserError('USAGE', `--as: claim ${JSON.stringify(k)} is not a string or a list of strings`);
  }
  // Claims by own name only: a manifest claim named `toString` or `constructor` is not a token's method.
  return Object.assign(Object.create(null) as Record<string, string | readonly string[]>, value) as Token;
}

/** A claim of the token, read as its own property only (undefined when the token lacks it). */
const claimOf = (token: Token, claim: string): string | readonly string[] | undefined =>
  Object.hasOwn(token, claim) ? token[claim] : undefined;

function one(token: Token, claim: string): string | undefined {
  const v = claimOf(token, claim);
  return typeof v === 'string' ? v : undefined;
}

/** An exact member or its pattern against a value; absent both, anything passes when `optional`. */
function matches(rule: Obj, exact: string, pattern: string, values: readonly string[], optional: boolean): boolean {
  if (typeof rule[exact] === 'string') return values.includes(rule[exact] as string);
  if (typeof rule[pattern] === 'string') return values.some((v) => re2FullMatch(rule[pattern] as string, v));
  return optional;
}

const list = (v: string | readonly string[] | undefined): readonly string[] =>
  v === undefined ? [] : typeof v === 'string' ? [v] : v;

/** Whether a relationship accepts the token. */
export function tokenAccepted(rel: { field: string; value: unknown }, token: Token): boolean {
  const v = rel.value;
  switch (rel.field) {
    case 'claimMatch': {
      if (!isObject(v)) return false;
      if (
        !matches(v, 'issuer', 'issuerPattern', list(claimOf(token, 'iss')), false) ||
        !matches(v, 'subject', 'subjectPattern', list(claimOf(token, 'sub')), false) ||
        !matches(v, 'audience', 'audiencePattern', list(claimOf(token, 'aud')), true)
      )
        return false;
      for (const [claim, want] of Object.entries(isObject(v.claims) ? v.claims : {}))
        if (!list(claimOf(token, claim)).includes(String(want))) return false;
      for (const [claim, pattern] of Object.entries(isObject(v.claimPatterns) ? v.claimPatterns : {}))
        if (!list(claimOf(token, claim)).some((x) => re2FullMatch(String(pattern), x))) return false;
      return true;
    }
    case 'staticKeys':
      if (!isObject(v) || one(token, 'iss') !== v.issuer || one(token, 'sub') !== v.subject) return false;
      return (
        !Array.isArray(v.audiences) || list(claimOf(token, 'aud')).some((a) => (v.audiences as unknown[]).includes(a))
      );
    case 'awsIdentity':
      return (
        isObject(v) &&
        one(token, 'awsAccount') === v.awsAccount &&
        matches(v, 'arn', 'arnPattern', list(claimOf(token, 'arn')), true) &&
        matches(v, 'userId', 'userIdPattern', list(claimOf(token, 'userId')), true)
      );
    case 'servicePrincipal':
      return (
        one(token, 'servicePrincipal') !== undefined &&
        normalizeServicePrincipal(one(token, 'servicePrincipal')) === normalizeServicePrincipal(v)
      );
    default:
      return false;
  }
}
