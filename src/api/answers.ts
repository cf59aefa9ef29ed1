/**
 * What the server's answer to one attempt means (DESIGN.md §4; every answer is untrusted): a
 * success must carry the JSON object its endpoint defines (only a DELETE answers with nothing),
 * a redirect is never followed (the token must not travel), an error's status says whether to
 * retry and whether the change may have happened; a list envelope must hold its items, each
 * with a uid, and a count (one that is no count is an error; none at all, an unchecked read).
 */
import { GRPC_CODES, type ApiError, type ErrorDetail } from './errors.js';
import type { Page } from './paginate.js';
import { AttemptFailedError, isOutcomeUnknownStatus, isRetryableStatus, parseRetryAfter } from './retry.js';
import type { ApiObject } from './types.js';
import { describeLocation, grpcCodeForStatus, parseErrorBody, parseTotalCount } from './wire.js';
import { KIND_INFO, type ApiKind, type Kind } from '../model/kinds.js';

/** The error of this attempt, with its request, status and redaction (the client's own). */
export type AttemptError = (grpcCode: number, reason: string, details: ErrorDetail[], cause?: unknown) => ApiError;

/** One answer as it came: its status, body text and the headers read here. */
export interface Answer {
  status: number;
  text: string;
  location: string | string[] | undefined;
  retryAfter: string | string[] | undefined;
}

/** The parsed body of a success; otherwise throws the AttemptFailedError the retry loop judges. */
export function judgeAnswer(method: string, answer: Answer, makeError: AttemptError): unknown {
  const { status, text, location, retryAfter } = answer;
  const malformed = (reason: string, cause?: unknown): AttemptFailedError =>
    new AttemptFailedError({
      retryable: false,
      outcomeUnknown: false,
      reason,
      error: makeError(GRPC_CODES.INTERNAL.code, reason, [], cause),
    });
  if (status >= 300 && status < 400) {
    // Never followed: the token must not travel to wherever a proxy points.
    const to =
      typeof location === 'string' && location !== '' ? ` to ${describeLocation(location)}` : ' without a location';
    throw malformed(
      `the API answered with a redirect (HTTP ${status})${to}, which platform-sync does not follow; check the base URL`,
    );
  }
  if (status < 300) {
    // Only a DELETE answers with nothing; anything else must be the JSON object the endpoint defines.
    if (text.trim() === '') {
      if (method === 'DELETE') return {};
      throw malformed(`the response body is empty (HTTP ${status}), where the API sends a JSON object`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      const looksLikeHtml = /^\s*</.test(text);
      throw malformed(
        `the response body is not JSON${looksLikeHtml ? ' (it looks like an HTML page: a proxy or a wrong base URL?)' : ''}`,
        err,
      );
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw malformed('the response body is not a JSON object');
    return parsed;
  }
  const body = parseErrorBody(text);
  const reason = body?.message || `HTTP ${status}${text.trim() ? `: ${text.trim().slice(0, 200)}` : ''}`;
  throw new AttemptFailedError({
    retryable: isRetryableStatus(status),
    outcomeUnknown: isOutcomeUnknownStatus(status),
    ...(status === 429 ? { sort: 'rateLimited' as const } : {}),
    retryAfterMs: parseRetryAfter(retryAfter),
    reason: `HTTP ${status}`,
    error: makeError(body?.code ?? grpcCodeForStatus(status), reason, body?.details ?? []),
  });
}

/** One page of a listing from its envelope; `malformed` makes the error of an envelope that is not one. */
export function pageOfEnvelope<T extends ApiObject>(
  kind: ApiKind,
  under: string | undefined,
  envelope: Record<string, unknown>,
  malformed: (reason: string) => ApiError,
): Page<T> {
  const info = KIND_INFO[kind];
  let items = envelope[info.plural];
  // Items the API gives no uid (acceptances of terms) are named by the kind's own rule.
  const uidOf = KIND_INFO[kind as Kind]?.uidOf;
  if (uidOf && Array.isArray(items) && under !== undefined) {
    items = items.map((i) =>
      typeof i === 'object' && i !== null && !Array.isArray(i)
        ? { ...i, uid: uidOf(i as Record<string, unknown>, under) }
        : i,
    );
  }
  if (!Array.isArray(items) || items.some((i) => typeof (i as ApiObject)?.uid !== 'string')) {
    throw malformed(`the list envelope has no array "${info.plural}" of objects with a uid`);
  }
  // An absent count is no error here: the read that holds the page is inconsistent, since it
  // cannot be checked (listing-ledger.ts), and the plan refuses that kind's creates and deletes.
  const totalCount = parseTotalCount(envelope.totalCount);
  if (totalCount === null) {
    throw malformed(
      `the list envelope's totalCount ${JSON.stringify(envelope.totalCount).slice(0, 40)} is not a count`,
    );
  }
  const token = envelope.nextPageToken;
  return {
    items: items as T[],
    totalCount,
    nextPageToken: typeof token === 'string' && token !== '' ? token : undefined,
  };
}
