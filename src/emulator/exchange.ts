/**
 * One exchange with the emulated service, independent of sockets: the request as server.ts
 * decodes it (method, path, query, JSON body, bearer token), the reply it sends back, and the
 * tokens the service accepts.
 */

/** A bearer token the emulator accepts. */
export interface EmulatorToken {
  token: string;
  /** `owner`: reads and writes; `viewer`: reads only (writes → 403, code 7). */
  role: 'owner' | 'viewer';
  /** Group uid: only that group and its subtree are visible or writable. */
  scope?: string;
}

export interface ApiRequest {
  method: string;
  /** Percent-decoded path, without the query. */
  path: string;
  query: URLSearchParams;
  /** Parsed JSON body, undefined when empty. */
  body: unknown;
  /** Value of the Authorization header, if any. */
  authorization: string | undefined;
  /** Injected fault: a List serves a short page (see FaultDecision.shortPage). */
  shortPage?: number;
}

export interface ApiReply {
  status: number;
  /** JSON body; undefined → empty body (DELETE). */
  body?: unknown;
  headers?: Record<string, string>;
  /** True when the request changed state (persistence is scheduled). */
  mutated?: boolean;
  /** True when a List page was cut short by an injected fault. */
  shortened?: boolean;
}

/** A reply body already written as JSON: a listing joined from its resources' rendered JSON. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** A reply body as it is sent: its JSON text. */
export function replyBodyText(body: unknown): string {
  return body instanceof JsonText ? body.text : JSON.stringify(body);
}
