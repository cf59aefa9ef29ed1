/**
 * Errors the emulator answers with: AIP-193 bodies (the spec's error model), with the emulator's
 * own table of codes and HTTP statuses — not the client's (STYLE.md 16): a client that read a
 * status wrong would otherwise be judged by the same mistake. Only the body's types are shared.
 */
import type { ErrorBody, ErrorDetail } from '../api/errors.js';

/** gRPC codes the emulator answers with, and the HTTP status of each (AIP-193, the spec's §Errors). */
const CODES = {
  INVALID_ARGUMENT: { code: 3, http: 400 },
  NOT_FOUND: { code: 5, http: 404 },
  ALREADY_EXISTS: { code: 6, http: 409 },
  PERMISSION_DENIED: { code: 7, http: 403 },
  RESOURCE_EXHAUSTED: { code: 8, http: 429 },
  FAILED_PRECONDITION: { code: 9, http: 400 },
  UNIMPLEMENTED: { code: 12, http: 501 },
  INTERNAL: { code: 13, http: 500 },
  UNAVAILABLE: { code: 14, http: 503 },
  UNAUTHENTICATED: { code: 16, http: 401 },
} as const;
export type GrpcCodeName = keyof typeof CODES;
const GRPC_CODES = CODES;
const TYPE_PREFIX = 'type.googleapis.com/google.rpc.';

/** A request the emulator refuses. Thrown inside handlers, turned into a reply at the edge. */
export class ApiFailure extends Error {
  readonly codeName: GrpcCodeName;
  readonly details: ErrorDetail[];
  /** Extra response headers (Retry-After). */
  readonly headers: Record<string, string>;
  /** An HTTP status other than the code's own (405 for a method a resource does not support). */
  private readonly statusOverride: number | undefined;
  /** The answer ends the connection (a body too large to read to its end). */
  closesConnection = false;
  constructor(
    codeName: GrpcCodeName,
    message: string,
    details: ErrorDetail[],
    headers: Record<string, string> = {},
    status?: number,
  ) {
    super(message);
    this.codeName = codeName;
    this.details = [errorInfo(codeName), ...details];
    this.headers = headers;
    this.statusOverride = status;
  }
  /** Sets the ErrorInfo domain (the service that answered). */
  inDomain(domain: string): this {
    for (const d of this.details) if (d['@type'].endsWith('ErrorInfo')) (d as { domain: string }).domain = domain;
    return this;
  }
  get status(): number {
    return this.statusOverride ?? GRPC_CODES[this.codeName].http;
  }
  toBody(): ErrorBody {
    return { code: GRPC_CODES[this.codeName].code, message: this.message, details: this.details };
  }
}

/** The ErrorInfo domain when no service is known (the spec: IAM errors carry the IAM domain). */
const ERROR_DOMAIN = 'platform.emulator';

/** The ErrorInfo domain of the service a path belongs to: `/iam/v2/...` → `iam.platform.emulator`. */
export function errorDomainFor(path: string): string {
  const service = /^\/([a-z]+)\/v2\//.exec(path)?.[1];
  return service ? `${service}.${ERROR_DOMAIN}` : ERROR_DOMAIN;
}

function errorInfo(reason: GrpcCodeName): ErrorDetail {
  return { '@type': `${TYPE_PREFIX}ErrorInfo`, reason, domain: ERROR_DOMAIN };
}

export interface FieldViolation {
  field: string;
  description: string;
}

/** Code 3 with a BadRequest naming every offending field; the message names the first. */
export function invalidArgument(violations: FieldViolation[]): ApiFailure {
  const [first] = violations;
  const more = violations.length > 1 ? ` (and ${violations.length - 1} more)` : '';
  return new ApiFailure('INVALID_ARGUMENT', `Invalid argument: ${first!.field}: ${first!.description}${more}`, [
    { '@type': `${TYPE_PREFIX}BadRequest`, fieldViolations: violations },
  ]);
}

/** A request body over `limit` bytes: code 3 at HTTP 413, and the connection closed after the answer. */
export function payloadTooLarge(limit: number): ApiFailure {
  const violations = [{ field: '(body)', description: `is larger than ${limit} bytes` }];
  const failure = new ApiFailure(
    'INVALID_ARGUMENT',
    `Invalid argument: (body): ${violations[0]!.description}`,
    [{ '@type': `${TYPE_PREFIX}BadRequest`, fieldViolations: violations }],
    { connection: 'close' },
    413,
  );
  failure.closesConnection = true;
  return failure;
}

/** Code 5, HTTP 404, with a ResourceInfo naming what was looked for. */
export function notFound(resourceType: string, resourceName: string, description?: string): ApiFailure {
  const text = description ?? `${resourceType} ${resourceName} does not exist (or is not visible to this token)`;
  return new ApiFailure('NOT_FOUND', `Not found: ${text}`, [
    { '@type': `${TYPE_PREFIX}ResourceInfo`, resourceType, resourceName, description: text },
  ]);
}

/** Code 6, HTTP 409: a sibling with the same natural key exists. */
export function alreadyExists(resourceType: string, resourceName: string, description: string): ApiFailure {
  return new ApiFailure('ALREADY_EXISTS', `Already exists: ${description}`, [
    { '@type': `${TYPE_PREFIX}ResourceInfo`, resourceType, resourceName, description },
  ]);
}

/** Code 9 with a PreconditionFailure of type RESOURCE_NOT_EMPTY. */
export function resourceNotEmpty(subject: string, description: string): ApiFailure {
  return new ApiFailure('FAILED_PRECONDITION', `Precondition failed: ${description}`, [
    {
      '@type': `${TYPE_PREFIX}PreconditionFailure`,
      violations: [{ type: 'RESOURCE_NOT_EMPTY', subject, description }],
    },
  ]);
}

export function permissionDenied(description: string): ApiFailure {
  return new ApiFailure('PERMISSION_DENIED', `Permission denied: ${description}`, []);
}

export function unauthenticated(description: string): ApiFailure {
  return new ApiFailure('UNAUTHENTICATED', `Unauthenticated: ${description}`, []);
}

export function unimplemented(description: string): ApiFailure {
  return new ApiFailure('UNIMPLEMENTED', `Unimplemented: ${description}`, []);
}

/**
 * A method the resource does not support (DESIGN.md §2): HTTP 405 with code 12 (UNIMPLEMENTED)
 * and an `Allow` header naming the methods it does.
 */
export function methodNotAllowed(description: string, allow: readonly string[]): ApiFailure {
  return new ApiFailure('UNIMPLEMENTED', `Unimplemented: ${description}`, [], { allow: allow.join(', ') }, 405);
}

/** A bug of the emulator's own (an answer that breaks its contract): HTTP 500, code 13. */
export function internalError(description: string): ApiFailure {
  return new ApiFailure('INTERNAL', `Internal: ${description}`, []);
}

const INJECTED_FAULT_TEXT = {
  UNAVAILABLE: 'Unavailable: the service is temporarily unavailable (injected fault)',
  RESOURCE_EXHAUSTED: 'Resource exhausted: rate limit exceeded (injected fault)',
  INTERNAL: 'Internal: an internal error occurred (injected fault)',
} as const;

/**
 * An injected fault: 503 or 429 with Retry-After in whole seconds, or a 500 INTERNAL, which,
 * like a real server bug, says nothing about when to retry.
 */
export function injectedFailure(codeName: keyof typeof INJECTED_FAULT_TEXT, retryAfterSeconds: number): ApiFailure {
  return new ApiFailure(
    codeName,
    INJECTED_FAULT_TEXT[codeName],
    [],
    codeName === 'INTERNAL' ? {} : { 'retry-after': String(retryAfterSeconds) },
  );
}
