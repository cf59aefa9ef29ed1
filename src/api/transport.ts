/**
 * The transport under the client: which undici and socket error codes mean a request may have
 * been processed, timed out, never left, or was cancelled by close(); and the one signal every
 * wait of a client listens on.
 */
import { setMaxListeners } from 'node:events';
import { GRPC_CODES, type ApiError } from './errors.js';
import type { AttemptFailure } from './retry.js';

/** Transport error codes after which the server may or may not have processed the request. */
const RESET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED', 'ECONNABORTED']);
/** undici's own header/body timeouts (set just above ours, as a backstop). */
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
/** Transport error codes that mean the request never reached the server. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EAI_AGAIN']);
/** undici's answers to a request made after `close()`: ours, a cancellation, not a failure. */
export const CLOSED_CODES = new Set(['UND_ERR_CLOSED', 'UND_ERR_DESTROYED']);

/** Every wait of a client listens on one signal: as many listeners as requests in flight. */
export function createCloseController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

/**
 * What a transport failure means for a retry (DESIGN.md §4): a timeout or a reset may have been
 * processed (outcome unknown), a refused connection never left; anything else is not retried.
 * `fail` makes the error a request reports (the client names the request and redacts).
 */
export function classifyTransportError(
  err: unknown,
  timedOut: boolean,
  timeoutMs: number,
  fail: (grpcCode: number, reason: string, cause: unknown) => ApiError,
): AttemptFailure {
  const code = (err as { code?: string })?.code ?? '';
  const unavailable = GRPC_CODES.UNAVAILABLE.code;
  if (timedOut || TIMEOUT_CODES.has(code)) {
    return {
      retryable: true,
      outcomeUnknown: true,
      reason: 'timeout',
      error: fail(unavailable, `no response within ${timeoutMs} ms`, err),
    };
  }
  const message = err instanceof Error ? err.message : String(err);
  if (RESET_CODES.has(code) || NOT_SENT_CODES.has(code)) {
    const notSent = NOT_SENT_CODES.has(code);
    return {
      retryable: true,
      outcomeUnknown: !notSent,
      ...(notSent ? { sort: 'notConnected' as const } : {}),
      reason: notSent ? `connection failed (${code})` : 'connection reset',
      error: fail(unavailable, `${notSent ? 'could not connect' : 'connection reset'} (${code}: ${message})`, err),
    };
  }
  return {
    retryable: false,
    outcomeUnknown: false,
    reason: `transport error ${code}`,
    error: fail(unavailable, `transport error (${code || 'unknown'}: ${message})`, err),
  };
}
