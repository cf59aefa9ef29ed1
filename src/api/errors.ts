/**
 * AIP-193 error bodies and the ApiError class (DESIGN.md §2). The emulator builds bodies with
 * the same table the client reads them with.
 */
import { UserError } from '../model/errors.js';
import { escapeValue } from '../io/escape.js';

/** gRPC status codes used by the Platform API and the HTTP status each maps to. */
export const GRPC_CODES = {
  OK: { code: 0, http: 200 },
  /** Never sent by the API: a request the client itself cancelled (it was closed). */
  CANCELLED: { code: 1, http: 499 },
  INVALID_ARGUMENT: { code: 3, http: 400 },
  NOT_FOUND: { code: 5, http: 404 },
  ALREADY_EXISTS: { code: 6, http: 409 },
  PERMISSION_DENIED: { code: 7, http: 403 },
  RESOURCE_EXHAUSTED: { code: 8, http: 429 },
  FAILED_PRECONDITION: { code: 9, http: 400 },
  INTERNAL: { code: 13, http: 500 },
  UNIMPLEMENTED: { code: 12, http: 501 },
  UNAVAILABLE: { code: 14, http: 503 },
  UNAUTHENTICATED: { code: 16, http: 401 },
} as const;
export type GrpcCodeName = keyof typeof GRPC_CODES;

export function grpcCodeName(code: number): GrpcCodeName | 'UNKNOWN' {
  for (const [name, v] of Object.entries(GRPC_CODES)) if (v.code === code) return name as GrpcCodeName;
  return 'UNKNOWN';
}

export const TYPE_PREFIX = 'type.googleapis.com/google.rpc.';

export interface ErrorInfoDetail {
  '@type': string;
  reason: string;
  domain: string;
  metadata?: Record<string, string>;
}
export interface BadRequestDetail {
  '@type': string;
  fieldViolations: { field: string; description: string }[];
}
export interface PreconditionFailureDetail {
  '@type': string;
  violations: { type: string; subject?: string; description: string }[];
}
export interface ResourceInfoDetail {
  '@type': string;
  resourceType: string;
  resourceName: string;
  description?: string;
}
export type ErrorDetail = ErrorInfoDetail | BadRequestDetail | PreconditionFailureDetail | ResourceInfoDetail;

export interface ErrorBody {
  code: number;
  message: string;
  details: ErrorDetail[];
}

/** Finds a detail by the type name its `@type` ends with. */
export function findDetail<T extends ErrorDetail>(
  details: readonly ErrorDetail[],
  typeName: 'ErrorInfo' | 'BadRequest' | 'PreconditionFailure' | 'ResourceInfo',
): T | undefined {
  return details.find((d) => typeof d['@type'] === 'string' && d['@type'].endsWith(typeName)) as T | undefined;
}

/**
 * An error answered by the API (or the transport under it, after retries gave up).
 * `message` names the method, the path and the reason; never the token.
 */
export class ApiError extends UserError {
  /** gRPC code number (0 when the server sent no AIP-193 body). */
  readonly grpcCode: number;
  readonly grpcName: GrpcCodeName | 'UNKNOWN';
  /** HTTP status; 0 for transport failures (reset, timeout). */
  readonly status: number;
  readonly method: string;
  readonly path: string;
  readonly details: ErrorDetail[];
  /** The server's own message, without our prefix. */
  readonly reason: string;
  constructor(init: {
    method: string;
    path: string;
    status: number;
    grpcCode: number;
    reason: string;
    details?: ErrorDetail[];
    resource?: string;
    cause?: unknown;
  }) {
    const grpcName = grpcCodeName(init.grpcCode);
    const what = init.resource ? `${init.resource}: ` : '';
    super(
      `API_${grpcName}`,
      // The server's words are one line (DESIGN.md §8 rev 4): a reason cannot forge the lines after it.
      `${escapeValue(what)}${escapeValue(init.method)} ${escapeValue(init.path)} failed: ${init.status ? `HTTP ${init.status} ` : ''}${grpcName} (${init.grpcCode}): ${escapeValue(init.reason)}`,
      { cause: init.cause },
    );
    this.grpcCode = init.grpcCode;
    this.grpcName = grpcName;
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.details = init.details ?? [];
    this.reason = init.reason;
  }

  get errorInfo(): ErrorInfoDetail | undefined {
    return findDetail<ErrorInfoDetail>(this.details, 'ErrorInfo');
  }
  get badRequest(): BadRequestDetail | undefined {
    return findDetail<BadRequestDetail>(this.details, 'BadRequest');
  }
  get preconditionFailure(): PreconditionFailureDetail | undefined {
    return findDetail<PreconditionFailureDetail>(this.details, 'PreconditionFailure');
  }
  get resourceInfo(): ResourceInfoDetail | undefined {
    return findDetail<ResourceInfoDetail>(this.details, 'ResourceInfo');
  }
}
