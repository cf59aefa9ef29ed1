/**
 * Connections opened before the requests that will use them: while the org lookup is in flight,
 * the read knows how many pages it will ask for at once, and their connections (a TCP and, with
 * https, a TLS handshake each) can be made in that wait instead of in front of each request.
 * A connector for undici's pool (its `connect` option): it hands out a connection opened ahead
 * when one is there, else opens one as undici would (undici's own connector, same options).
 * Nothing is sent on a connection opened ahead until undici sends a request on it; one that fails
 * or closes before it is used is dropped, and the request opens its own.
 */
import type { Socket } from 'node:net';
import type { buildConnector as BuildConnector } from 'undici';
import { undiciConnector } from './undici-pool.js';

type Connect = BuildConnector.connector;
type ConnectOptions = BuildConnector.Options;
type Callback = BuildConnector.Callback;

/** A connection opened ahead: connected, or still connecting (a request handed it waits). */
interface Ahead {
  socket: Socket | undefined;
  connected: boolean;
  waiting: Callback | undefined;
}

export class Preconnector {
  private readonly open: Connect;
  private ahead: Ahead[] = [];
  private closed = false;

  constructor(
    private readonly origin: URL,
    options: BuildConnector.BuildOptions,
  ) {
    this.open = undiciConnector()(options);
  }

  /** undici's `connect`: a connection opened ahead if one is there, else a new one. */
  readonly connect: Connect = (options: ConnectOptions, callback: Callback): void => {
    const entry = this.ahead.shift();
    if (entry === undefined) {
      this.open(options, callback);
    } else if (entry.connected) {
      const socket = entry.socket!;
      queueMicrotask(() => callback(null, socket));
    } else {
      entry.waiting = callback;
    }
  };

  /** Opens connections until `count` are open ahead (and not yet used). */
  warm(count: number): void {
    const { host, protocol, port } = this.origin;
    // As undici's client does: an IPv6 literal is connected to without its brackets.
    const hostname = this.origin.hostname.startsWith('[') ? this.origin.hostname.slice(1, -1) : this.origin.hostname;
    while (this.ahead.length < count && !this.closed) {
      const entry: Ahead = { socket: undefined, connected: false, waiting: undefined };
      const drop = (): void => {
        this.ahead = this.ahead.filter((e) => e !== entry);
      };
      const returned: unknown = this.open({ hostname, host, protocol, port } as ConnectOptions, (err, socket) => {
        const waiting = entry.waiting;
        entry.waiting = undefined;
        if (err !== null) {
          drop();
          // Handed out while connecting: undici takes the failure as its own connect's.
          waiting?.(err, null);
          return;
        }
        entry.socket = socket;
        entry.connected = true;
        if (waiting !== undefined) {
          waiting(null, socket);
        } else if (this.closed) {
          socket.destroy();
        } else {
          // Closed by the server before it was used (its idle timeout): not handed out.
          socket.once('close', drop);
        }
      });
      // undici's connector returns the socket it opens: close() can then end one still connecting.
      if (entry.socket === undefined && returned !== null && typeof returned === 'object' && 'destroy' in returned)
        entry.socket = returned as Socket;
      this.ahead.push(entry);
    }
  }

  /** Closes what was opened ahead and not used. */
  close(): void {
    this.closed = true;
    for (const entry of this.ahead) entry.socket?.destroy();
    this.ahead = [];
  }
}
