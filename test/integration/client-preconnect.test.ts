/**
 * Connections opened ahead (src/api/preconnect.ts): `preconnect(n)` opens them without sending
 * anything, requests then go out on them instead of opening their own, close() ends the ones
 * never used, and a connection that cannot be opened ahead costs nothing but the attempt.
 * Against a raw node:http server that counts connections, and readLiveState against the emulator.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../src/api/client.js';
import type { ApiClient } from '../../src/api/types.js';
import { readLiveState } from '../../src/live/index.js';
import { LISTED_KINDS } from '../../src/live/build-live-state.js';
import { descriptorOf } from '../../src/model/kinds.js';
import { createTestClient, startTestEmulator } from './client-harness.js';

const TOKEN = 'tok-preconnect-7';
const UID = 'a'.repeat(40);

let server: Server;
let url: string;
const sockets: Socket[] = [];
let requests = 0;

beforeAll(async () => {
  server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    // Answers a little later, so that parallel requests each need a connection of their own.
    setTimeout(() => res.end(JSON.stringify({ uid: UID, name: 'acme' })), 20);
  });
  server.on('connection', (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function fresh(): void {
  sockets.length = 0;
  requests = 0;
}

describe('connections opened ahead', () => {
  it('are opened without a request, and the requests that follow go out on them', async () => {
    fresh();
    const client = createClient({ baseUrl: url, token: TOKEN });
    client.preconnect!(4);
    await vi.waitFor(() => expect(sockets).toHaveLength(4));
    expect(requests).toBe(0);
    await Promise.all([1, 2, 3, 4].map(() => client.get('group', UID)));
    expect(requests).toBe(4);
    expect(sockets).toHaveLength(4); // none opened for the requests themselves
    await client.close();
  });

  it('are at most the pool size, and close() ends the ones never used', async () => {
    fresh();
    const client = createClient({ baseUrl: url, token: TOKEN, connections: 3 });
    client.preconnect!(50);
    await vi.waitFor(() => expect(sockets).toHaveLength(3));
    await client.get('group', UID);
    await client.close();
    await vi.waitFor(() => expect(sockets.every((s) => s.closed)).toBe(true));
    expect(sockets).toHaveLength(3);
    expect(requests).toBe(1);
  });

  it('that cannot be opened cost nothing: the request opens its own and reports its own failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, token: TOKEN, retry: { maxAttempts: 1 } });
    client.preconnect!(2);
    await expect(client.get('group', UID)).rejects.toMatchObject({
      grpcName: 'UNAVAILABLE',
      message: expect.stringContaining('ECONNREFUSED'),
    });
    await client.close();
  });

  it('close() right after preconnect() leaves nothing open', async () => {
    fresh();
    const client = createClient({ baseUrl: url, token: TOKEN });
    client.preconnect!(5);
    await client.close();
    // Whatever reached the server before the close is ended by it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sockets.every((s) => s.closed)).toBe(true);
    expect(requests).toBe(0);
  });
});

describe('readLiveState', () => {
  it('opens the connections its listings will need while the org lookup is in flight', async () => {
    const emu = await startTestEmulator({ seed: { orgs: [{ name: 'acme', repos: [{ name: 'nginx' }] }] } });
    const c = createTestClient(emu);
    const asked: number[] = [];
    const watched: ApiClient = Object.create(c, {
      preconnect: { value: (n: number) => (asked.push(n), c.preconnect!(n)) },
    });
    try {
      const declared = Array.from({ length: 450 }, () => ({ kind: 'repo' as const, groupPath: '' }));
      const live = await readLiveState(watched, { org: { name: 'acme' }, expected: declared });
      expect(live.resources.map((r) => r.address)).toContain('repo:nginx');
      // A first page of every kind, two more pages of repos (450 at 200 a page), the org's own association.
      const ownedByOrg = LISTED_KINDS.filter((k) => descriptorOf(k).uidIsParent).length;
      expect(asked).toEqual([LISTED_KINDS.length + 2 + ownedByOrg]);
    } finally {
      await c.close();
      await emu.close();
    }
  });
});
