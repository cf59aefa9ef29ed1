/**
 * The emulator's routing, read from its contract: which collection a path names, the fixed
 * paths (ping, the OpenAPI document, readmes), the methods an item allows and the query
 * parameters a request may carry. Each kind's rules are elsewhere (validate.ts, the store).
 */
import type { ApiKind } from '../model/kinds.js';
import { answerSchemaName, contractKinds, kindContract, parameterViolations } from './contract.js';
import { invalidArgument, methodNotAllowed, type ApiFailure } from './failures.js';
import type { ApiRequest } from './exchange.js';

/** Which collection a path belongs to, and what follows it. */
interface Route {
  kind: ApiKind;
  /** Remainder after the collection: '' for the collection itself, else the uid/parent. */
  rest: string;
}

/** Collections by path prefix, from the contract. */
const ROUTES: { prefix: string; kind: ApiKind }[] = contractKinds().map((k) => ({
  prefix: k.collection,
  kind: k.kind,
}));

export const PING_PATH = '/ping/v2/ping';
/** The contract itself, served to anyone (no token), like ping. */
export const OPENAPI_PATH = '/openapi.json';
export const README_SUFFIX = '/readme';

export function matchRoute(path: string): Route | undefined {
  for (const { prefix, kind } of ROUTES) {
    if (path === prefix) return { kind, rest: '' };
    if (path.startsWith(`${prefix}/`)) return { kind, rest: path.slice(prefix.length + 1) };
  }
  return undefined;
}

/** The contract's schema of a 200 answer to `req`, from its operation (undefined: an answer without a body, or the document itself). */
export function answerSchemaFor(req: ApiRequest): string | undefined {
  if (req.path === PING_PATH) return answerSchemaName(PING_PATH, req.method);
  const route = matchRoute(req.path);
  return route ? answerSchemaName(operationPath(route.kind, route.rest).template, req.method) : undefined;
}

/** 405 for a method `{collection}/{uid}` does not have, whether or not the uid exists; `Allow` names those it has. */
export function methodNotOnPath(kind: ApiKind, method: string): ApiFailure {
  const contract = kindContract(kind);
  const why =
    method === 'PATCH'
      ? `${contract.plural} cannot be updated${contract.canCreate ? '; delete and create instead' : ''}`
      : method === 'POST' || method === 'DELETE'
        ? `${contract.plural} are read-only`
        : `${method} is not supported on ${contract.plural}`;
  return methodNotAllowed(why, allowedMethods(kind));
}

/** The methods one resource of a kind supports (the `Allow` header of a 405). */
export function allowedMethods(kind: ApiKind): string[] {
  return [...kindContract(kind).itemMethods];
}

/** `updateMask` (or `update_mask`) from a PATCH query; any other parameter is code 3. */
export function updateMaskOf(query: URLSearchParams): string | undefined {
  rejectQuery(query, ['updateMask', 'update_mask']);
  return query.get('updateMask') ?? query.get('update_mask') ?? undefined;
}

export function rejectQuery(query: URLSearchParams, allowed: readonly string[]): void {
  const bad = [...query.keys()].filter((k) => !allowed.includes(k));
  if (bad.length > 0)
    throw invalidArgument(
      bad.map((k) => ({
        field: k,
        description: `is not a query parameter of this request${allowed.length ? ` (allowed: ${allowed.join(', ')})` : ''}`,
      })),
    );
}

/** A request's `{uid}` and query parameters, by the contract's declaration of its operation (code 3 naming each). */
export function checkParameters(kind: ApiKind, method: string, rest: string, query: URLSearchParams): void {
  const { template, uid } = operationPath(kind, rest);
  const violations = parameterViolations(template, method, uid, query);
  if (violations.length > 0) throw invalidArgument(violations);
}

/** The contract's path of a request under a collection (`/iam/v2/groups/{uid}`), and its `{uid}`. */
function operationPath(kind: ApiKind, rest: string): { template: string; uid: string | undefined } {
  const collection = kindContract(kind).collection;
  const readme = kind === 'repo' && rest.endsWith(README_SUFFIX);
  const template = rest === '' ? collection : `${collection}/{uid}${readme ? README_SUFFIX : ''}`;
  const uid = rest === '' ? undefined : readme ? rest.slice(0, -README_SUFFIX.length) : rest;
  return { template, uid };
}
