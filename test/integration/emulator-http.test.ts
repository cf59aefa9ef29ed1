/**
 * The emulator speaks HTTP like the service (DESIGN.md §6 rev 4, issue 39), each item on a raw
 * socket where the wire matters: a body too large is answered with `Connection: close` before the
 * connection ends (a second request on it is never reset); a body that is not JSON is 415; HEAD
 * answers as GET without the body; an empty query value is "not set"; an int32 parameter beyond
 * its range is refused, never rounded.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { get, OWNER, patch, post, startTestEmulator } from './emulator-helpers.js';

let emu: Emulator;
let org: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  org = (await post(emu, '/iam/v2/groups', { name: 'acme' })).body.uid;
});
afterAll(() => emu.close());

/** A raw connection: write bytes, read what comes back until the server ends the connection or `until` holds. */
function raw(): {
  socket: Socket;
  send(text: string | Buffer): void;
  received(until: (text: string) => boolean, ms?: number): Promise<{ text: string; ended: boolean; error?: string }>;
} {
  const { port } = new URL(emu.url);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  let ended = false;
  let error: string | undefined;
  socket.on('data', (d) => (text += d.toString('latin1')));
  socket.on('end', () => (ended = true));
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  return {
    socket,
    send: (data) => void socket.write(data),
    received: async (until, ms = 3000) => {
      const start = Date.now();
      while (!until(text) && !ended && error === undefined && Date.now() - start < ms)
        await new Promise((r) => setTimeout(r, 5));
      return { text, ended, ...(error !== undefined ? { error } : {}) };
    },
  };
}

const request = (method: string, path: string, headers: Record<string, string> = {}, body = ''): string =>
  `${method} ${path} HTTP/1.1\r\nHost: emulator\r\nAuthorization: Bearer ${OWNER}\r\n${Object.entries({
    ...headers,
    ...(body !== '' ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}),
  })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n${body}`;

describe('the emulator over raw HTTP', () => {
  it('keeps a connection alive across two ordinary requests', async () => {
    const c = raw();
    c.send(request('GET', '/ping/v2/ping') + request('GET', '/ping/v2/ping'));
    const r = await c.received((t) => t.split('"pong"').length === 3);
    expect(r.text.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(r.ended).toBe(false);
    c.socket.destroy();
  });

  it('answers a body too large with 413 and Connection: close, then ends the connection cleanly: a second request on it is never reset', async () => {
    const c = raw();
    const huge = 'x'.repeat(2 * 1024 * 1024);
    c.send(
      `POST /registry/v2/repos/${org} HTTP/1.1\r\nHost: emulator\r\nAuthorization: Bearer ${OWNER}\r\nContent-Type: application/json\r\nContent-Length: ${huge.length}\r\n\r\n`,
    );
    const r = await c.received(() => false);
    expect(r.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(r.text.toLowerCase()).toContain('\r\nconnection: close\r\n');
    expect(r.text).toContain('is larger than');
    expect(r.ended).toBe(true);
    expect(r.error).toBeUndefined();
    c.socket.destroy();
    // The client that heeds Connection: close opens a new one, which works.
    expect((await get(emu, '/ping/v2/ping')).status).toBe(200);
  });

  it('refuses a body that is not application/json with 415, making nothing', async () => {
    for (const headers of [{ 'Content-Type': 'text/plain' }, {}] as Record<string, string>[]) {
      const c = raw();
      c.send(request('POST', `/registry/v2/repos/${org}`, headers, '{"name":"plain"}'));
      const r = await c.received((t) => t.includes('}'));
      expect(r.text, JSON.stringify(headers)).toMatch(/^HTTP\/1\.1 415 /);
      c.socket.destroy();
    }
    expect((await get(emu, '/registry/v2/repos?name=plain')).body.repos).toEqual([]);
    const c = raw();
    c.send(
      request(
        'POST',
        `/registry/v2/repos/${org}`,
        { 'Content-Type': 'application/json; charset=utf-8' },
        '{"name":"json"}',
      ),
    );
    expect((await c.received((t) => t.includes('}'))).text).toMatch(/^HTTP\/1\.1 200 /);
    c.socket.destroy();
  });

  it('answers HEAD as GET, without the body', async () => {
    const c = raw();
    c.send(request('HEAD', `/iam/v2/groups/${org}`) + request('GET', '/ping/v2/ping'));
    const r = await c.received((t) => t.includes('"pong"'));
    const [head] = r.text.split('HTTP/1.1 200').slice(1);
    expect(r.text).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/content-length: \d+/i);
    // Right after the HEAD answer's headers comes the next answer, not a body.
    expect(head!.split('\r\n\r\n')[1]).toBe('');
    c.socket.destroy();
  });

  it('reads an empty query value as not set (AIP), and refuses an int32 beyond its range instead of rounding it', async () => {
    expect((await get(emu, `/registry/v2/repos?uidp.children_of=&order_by=`)).status).toBe(200);
    const repo = (await get(emu, '/registry/v2/repos?name=json')).body.repos[0];
    const r = await fetch(`${emu.url}/registry/v2/repos/${repo.uid}?updateMask=`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${OWNER}`, 'content-type': 'application/json' },
      body: '{"description":"d"}',
    });
    expect(r.status).toBe(200);
    const skip = await get(emu, '/registry/v2/repos?skip=9007199254740993');
    expect(skip.status).toBe(400);
    expect(skip.text).toContain('must be an integer from 0 to 2147483647');
  });
});

describe('fields only the service sends (DESIGN.md §2, §6 rev 4)', () => {
  it('are sent by default, declared read-only in the contract, and left out with plainResponses', async () => {
    const { kindContract } = await import('../../src/emulator/contract.js');
    expect((await get(emu, `/iam/v2/groups/${org}`)).body).toMatchObject({
      verified: false,
      resourceLimits: expect.any(Object),
    });
    for (const kind of ['group', 'identity'] as const) {
      const sent = kindContract(kind)
        .response.filter((m) => m.serviceSent)
        .map((m) => m.name);
      expect(sent.length, kind).toBeGreaterThan(0);
    }
    // Read-only: a client may not set one.
    expect((await patch(emu, `/iam/v2/groups/${org}?updateMask=verified`, { verified: true })).status).toBe(400);
    const plain = await startTestEmulator({ plainResponses: true });
    try {
      const root = (await post(plain, '/iam/v2/groups', { name: 'acme' })).body;
      expect(root).not.toHaveProperty('verified');
      const r = (await post(plain, `/registry/v2/repos/${root.uid}`, { name: 'nginx' })).body;
      expect(Object.keys(r).sort()).toEqual([
        'activeTags',
        'aliases',
        'bundles',
        'catalogTier',
        'createTime',
        'description',
        'name',
        'uid',
        'updateTime',
      ]);
    } finally {
      await plain.close();
    }
  });

  it("a repo's catalogTier is always sent, in full; aliases are image references; mirrors are repository strings (DESIGN.md §2, §6 rev 6)", async () => {
    const repo = (await post(emu, `/registry/v2/repos/${org}`, { name: 'tiered' })).body;
    // The JSON gateway sends every field, zero values included.
    expect(repo).toMatchObject({ aliases: [], activeTags: [], catalogTier: 'CATALOG_TIER_UNSPECIFIED' });
    // Accepted short or in full; answered in full.
    const set = await post(emu, `/registry/v2/repos/${org}`, {
      name: 'tiered-2',
      catalogTier: 'FIPS',
      aliases: ['nginx:latest', 'docker.io/library/nginx:1.27'],
      activeTags: ['latest'],
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({
      catalogTier: 'CATALOG_TIER_FIPS',
      aliases: ['nginx:latest', 'docker.io/library/nginx:1.27'],
      activeTags: ['latest'],
    });
    const full = await post(emu, `/registry/v2/repos/${org}`, { name: 'tiered-3', catalogTier: 'CATALOG_TIER_AI' });
    expect(full.body.catalogTier).toBe('CATALOG_TIER_AI');
    // Outside the enum, an alias without a tag, or a duplicate in a set: code 3.
    expect((await post(emu, `/registry/v2/repos/${org}`, { name: 'x', catalogTier: 'GOLD' })).status).toBe(400);
    expect((await post(emu, `/registry/v2/repos/${org}`, { name: 'x', aliases: ['nginx'] })).status).toBe(400);
    expect((await post(emu, `/registry/v2/repos/${org}`, { name: 'y', aliases: ['a:1', 'a:1'] })).status).toBe(400);
    const changed = await patch(emu, `/registry/v2/repos/${set.body.uid}?updateMask=catalogTier,activeTags`, {
      catalogTier: 'BASE',
      activeTags: [],
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      catalogTier: 'CATALOG_TIER_BASE',
      aliases: ['nginx:latest', 'docker.io/library/nginx:1.27'],
      activeTags: [],
    });
    // The zero value unsets it.
    const unset = await patch(emu, `/registry/v2/repos/${set.body.uid}?updateMask=catalogTier`, {
      catalogTier: 'CATALOG_TIER_UNSPECIFIED',
    });
    expect(unset.body.catalogTier).toBe('CATALOG_TIER_UNSPECIFIED');
    // syncConfig's mirrors are the destination repositories, strings; a boolean is code 3.
    const mirrors = {
      amazon: '123456789012.dkr.ecr.us-east-1.amazonaws.com/acme-mirror',
      google: 'us-docker.pkg.dev/acme-prod/mirror',
      azure: 'acmeprod.azurecr.io/mirror',
    };
    const synced = await post(emu, `/registry/v2/repos/${org}`, {
      name: 'mirrored',
      syncConfig: {
        source: `${org}/0123456789abcdef`,
        expiration: '2027-06-30T00:00:00Z',
        gracePeriod: true,
        ...mirrors,
      },
    });
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    expect(synced.body.syncConfig).toMatchObject({ gracePeriod: true, ...mirrors });
    expect(
      (
        await post(emu, `/registry/v2/repos/${org}`, {
          name: 'z',
          syncConfig: { source: `${org}/0123456789abcdef`, expiration: '2027-06-30T00:00:00Z', amazon: true },
        })
      ).status,
    ).toBe(400);
    // The contract-fuzz counterexample of seed 897259: null is no value of these fields, even under updateMask=*.
    const nulled = await patch(emu, `/registry/v2/repos/${set.body.uid}?updateMask=*`, {
      name: 'tiered-2',
      aliases: null,
    });
    expect(nulled.status).toBe(400);
    expect(nulled.text).toContain('aliases');
    // An apko overlay is JSON text of an object; anything else is code 3 naming it.
    const sync = { source: `${org}/0123456789abcdef`, expiration: '2027-06-30T00:00:00.000Z' };
    const overlay = await post(emu, `/registry/v2/repos/${org}`, {
      name: 'z',
      syncConfig: { ...sync, apkoOverlay: '{contents' },
    });
    expect(overlay.status).toBe(400);
    expect(overlay.text).toContain('syncConfig.apkoOverlay must be JSON text of an object');
    expect(
      (
        await post(emu, `/registry/v2/repos/${org}`, {
          name: 'z',
          syncConfig: {
            ...sync,
            apkoOverlay: '{"contents":{}}',
            gracePeriod: true,
            azure: 'acmeprod.azurecr.io/mirror',
          },
        })
      ).status,
    ).toBe(200);
  });
});
