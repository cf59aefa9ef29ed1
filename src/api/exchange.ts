/**
 * One HTTP exchange through undici's `dispatch`, its body gathered straight from the
 * connection's chunks into one Buffer: no response stream, no body mixin. A client that reads
 * every body whole needs neither, and on a big read (≈60 pages of ≈100 KB) they were a good part
 * of the client's CPU (`npm run bench plan-process`). Abortable by a signal, like `request`.
 */
import type { Dispatcher } from 'undici';

export interface Exchange {
  statusCode: number;
  /** Response headers by lower-case name (as undici parses them). */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A response body bigger than the client takes (a hostile or broken server or proxy). */
export class ResponseTooLargeError extends Error {
  readonly code = 'PS_RESPONSE_TOO_LARGE';
  constructor(readonly limit: number) {
    super(`the response body is over ${limit} bytes, more than any answer of the API; not read further`);
  }
}

export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal,
  maxBodyBytes: number,
): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    let controller: Dispatcher.DispatchController | undefined;
    let statusCode = 0;
    let headers: Exchange['headers'] = {};
    const chunks: Buffer[] = [];
    let bytes = 0;
    const onAbort = (): void => controller?.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = (err: unknown, value?: Exchange): void => {
      signal.removeEventListener('abort', onAbort);
      if (value !== undefined) resolve(value);
      else reject(err);
    };
    dispatcher.dispatch(options, {
      onRequestStart(c) {
        controller = c;
        // Aborted while it waited for a connection: it ends before a byte is sent.
        if (signal.aborted) c.abort(signal.reason);
      },
      onResponseStart(_c, code, responseHeaders) {
        statusCode = code;
        headers = responseHeaders as Exchange['headers'];
      },
      onResponseData(c, chunk) {
        bytes += chunk.length;
        if (bytes > maxBodyBytes) {
          c.abort(new ResponseTooLargeError(maxBodyBytes));
          return;
        }
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle(undefined, {
          statusCode,
          headers,
          body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes),
        });
      },
      onResponseError(_c, err) {
        settle(err);
      },
    });
  });
}
